package edge

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge/internal/outage"
	"github.com/bibleplatform/platform/internal/atomicfile"
	"github.com/bibleplatform/platform/wire"
)

// AccessSource yields access snapshots: the dynamic service's
// /internal/access, or a file (development, tests, an edge without dynamic).
type AccessSource interface {
	// Fetch returns the current snapshot's bytes when they differ from
	// what the caller has (version have, content digest sum), or nil when
	// nothing changed. It may block for a while (long-poll).
	Fetch(ctx context.Context, have int64, sum [32]byte) ([]byte, error)
	String() string
}

// NewAccessSource picks the source for --access: an http(s) URL or a file.
func NewAccessSource(loc, edgeToken string) (AccessSource, error) {
	if strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://") {
		u, err := url.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("access source %q: %w", loc, err)
		}
		return &httpSource{url: u, token: edgeToken, client: &http.Client{}}, nil
	}
	if loc == "" {
		return nil, errors.New("access source: none given")
	}
	return &fileSource{path: loc}, nil
}

type fileSource struct{ path string }

func (f *fileSource) String() string { return f.path }

func (f *fileSource) Fetch(ctx context.Context, have int64, sum [32]byte) ([]byte, error) {
	b, err := os.ReadFile(f.path)
	if err != nil {
		return nil, err
	}
	if sha256.Sum256(b) == sum {
		return nil, nil
	}
	return b, nil
}

// httpSource reads GET {url}?version=N. The dynamic service may hold the
// request until its version passes N (long-poll) or answer at once; 304
// and 204 mean unchanged.
type httpSource struct {
	url    *url.URL
	token  string
	client *http.Client
}

func (h *httpSource) String() string { return h.url.Redacted() }

func (h *httpSource) Fetch(ctx context.Context, have int64, sum [32]byte) ([]byte, error) {
	u := *h.url
	q := u.Query()
	q.Set("version", strconv.FormatInt(have, 10))
	u.RawQuery = q.Encode()
	pollCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(pollCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if h.token != "" {
		req.Header.Set(wire.HeaderEdgeToken, h.token)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		if ctx.Err() == nil && pollCtx.Err() != nil {
			return nil, nil // a long-poll that outlived our wait: nothing changed
		}
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified, http.StatusNoContent:
		return nil, nil
	case http.StatusUnauthorized:
		if edgeTokenFault(resp.Body) {
			return nil, fmt.Errorf("access source %s: %w", h, ErrEdgeTokenRejected)
		}
		return nil, fmt.Errorf("access source %s: %s", h, resp.Status)
	default:
		return nil, fmt.Errorf("access source %s: %s", h, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("access source %s: %w", h, err)
	}
	if sha256.Sum256(b) == sum {
		return nil, nil
	}
	return b, nil
}

// ErrEdgeTokenRejected is the access source's answer when dynamic does not
// accept the edge's token: no snapshot can be loaded until the operator
// gives the edge dynamic's --edge-token.
var ErrEdgeTokenRejected = errors.New("edge token rejected by dynamic (--edge-token differs from dynamic's)")

// edgeTokenFault reports whether a 401 body is dynamic's fault for a
// wrong edge token (wire.FaultInvalidEdgeToken).
func edgeTokenFault(body io.Reader) bool {
	var f struct {
		Fault struct {
			Detail struct {
				ErrorCode string `json:"errorcode"`
			} `json:"detail"`
		} `json:"fault"`
	}
	err := json.NewDecoder(io.LimitReader(body, 4<<10)).Decode(&f)
	return err == nil && f.Fault.Detail.ErrorCode == wire.FaultInvalidEdgeToken.Code
}

// AccessWatcher keeps a server's access table current: it polls (or
// long-polls) the source, applies every valid new snapshot, and writes it to
// a local file so that a restart while the source is down still serves the
// last good data.
type AccessWatcher struct {
	Source    AccessSource
	CachePath string // last good snapshot; "" to keep none
	Interval  time.Duration
	Server    *Server
	Log       *slog.Logger

	version int64
	sum     [32]byte
	outage  outage.Log

	// build is the content build the snapshot names; since, when the
	// edge has served another one since then; stores logs that.
	build  string
	since  time.Time
	stores outage.Log
}

// BuildMismatchGrace is how long the edge may serve another build than the
// one its access snapshot names before it warns: each side follows the
// store on its own poll, so they differ for a moment after every publish.
const BuildMismatchGrace = time.Minute

// Init loads the first snapshot: from the source if it answers, else from
// the local copy. The edge is not ready until one of them succeeds.
func (w *AccessWatcher) Init(ctx context.Context) error {
	ctx2, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := w.poll(ctx2)
	if err == nil {
		return nil
	}
	w.Log.Warn("access source unavailable at start, trying the local copy", "source", w.Source.String(), "err", err)
	if w.CachePath == "" {
		return err
	}
	b, cerr := os.ReadFile(w.CachePath)
	if cerr != nil {
		return fmt.Errorf("%w; local copy: %w", err, cerr)
	}
	if aerr := w.apply(b, false); aerr != nil {
		return fmt.Errorf("%w; local copy: %w", err, aerr)
	}
	return nil
}

// Run polls until ctx ends. Changes reach the edge within Interval (a file)
// or at once (a long-polling source).
func (w *AccessWatcher) Run(ctx context.Context) {
	for ctx.Err() == nil {
		start := time.Now()
		if err := w.poll(ctx); err != nil && ctx.Err() == nil {
			w.outage.Failed(w.Log, "access refresh failed; serving the last good snapshot",
				"source", w.Source.String(), "err", err, "version", w.version)
		} else if err == nil {
			w.outage.OK(w.Log, "access source answers again")
		}
		w.checkBuild(time.Now())
		// Never spin, whether the source long-polls or not.
		if d := w.Interval - time.Since(start); d > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(d):
			}
		}
	}
}

func (w *AccessWatcher) poll(ctx context.Context) error {
	b, err := w.Source.Fetch(ctx, w.version, w.sum)
	w.Server.tokenRejected.Store(errors.Is(err, ErrEdgeTokenRejected))
	if err != nil {
		return err
	}
	if b == nil {
		w.Server.authz.Confirmed()
		return nil
	}
	return w.apply(b, true)
}

func (w *AccessWatcher) apply(b []byte, save bool) error {
	snap, err := access.Decode(b)
	if err != nil {
		return err
	}
	if err := w.Server.SetAccess(snap); err != nil {
		return err
	}
	w.version, w.sum, w.build = snap.Version, sha256.Sum256(b), snap.Build
	w.Log.Info("access snapshot loaded", "version", snap.Version, "apps", len(snap.Apps))
	if save && w.CachePath != "" {
		if err := writeFileAtomic(w.CachePath, b); err != nil {
			w.Log.Warn("cannot keep a local copy of the access snapshot", "path", w.CachePath, "err", err)
		}
	}
	return nil
}

// checkBuild warns, once per interval, while the edge has served another
// build than its access snapshot names for longer than BuildMismatchGrace:
// the edge and dynamic then follow different stores, and licences are
// judged on another catalogue than the one served.
func (w *AccessWatcher) checkBuild(now time.Time) {
	served := w.Server.Build()
	if w.build == "" || served == "" || served == w.build {
		w.since = time.Time{}
		w.stores.OK(w.Log, "the edge and dynamic follow the same build again")
		return
	}
	if w.since.IsZero() {
		w.since = now
		return
	}
	if now.Sub(w.since) >= BuildMismatchGrace {
		w.stores.Failed(w.Log, "this edge serves another build than dynamic follows: are both on the same store?",
			"edge_build", served, "dynamic_build", w.build, "since", w.since.UTC().Format(time.RFC3339))
	}
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, ".access-", false)
}
