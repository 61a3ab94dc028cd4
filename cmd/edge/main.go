// Command edge is the fasthttp gateway that serves published Bible content:
// flags and environment, signals, and wiring of the edge package.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	_ "net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/cmd/internal/command"
	"github.com/bibleplatform/platform/cmd/internal/storeurl"
	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/internal/hugepages"
	"github.com/bibleplatform/platform/internal/logbuf"

	"github.com/alecthomas/kong"
)

type cli struct {
	command.Logging `embed:"" envprefix:"EDGE_"`

	Serve  serveCmd  `cmd:"" default:"withargs" help:"Serve published content (the default)."`
	Export exportCmd `cmd:"" help:"Write the current build's representations as plain files with .gz siblings (for nginx)."`
}

type serveCmd struct {
	Store  string `help:"Published store: a directory or s3://bucket[/prefix]." required:"" env:"EDGE_STORE"`
	Listen string `help:"Address for HTTP." default:"127.0.0.1:8080" env:"EDGE_LISTEN"`

	Access      string `help:"Access data: a snapshot file, or the dynamic service's http(s) URL (…/internal/access)." required:"" env:"EDGE_ACCESS"`
	AccessCache string `help:"Where to keep the last good access snapshot (served from when the source is down). Default: the user cache dir." env:"EDGE_ACCESS_CACHE"`

	Dynamic   string        `help:"Base URL of the dynamic service; its routes answer 503 until set." env:"EDGE_DYNAMIC"`
	EdgeToken string        `help:"Shared secret sent to dynamic as X-Edge-Token." env:"EDGE_TOKEN"`
	Timeout   time.Duration `help:"Time limit for a request forwarded to dynamic." default:"${dynamic_timeout}" env:"EDGE_DYNAMIC_TIMEOUT"`

	TLSCert          string        `help:"TLS certificate (PEM). With --tls-key, serve HTTPS on --tls-listen and redirect HTTP to it." env:"EDGE_TLS_CERT" type:"existingfile"`
	TLSKey           string        `help:"TLS private key (PEM)." env:"EDGE_TLS_KEY" type:"existingfile"`
	TLSListen        string        `help:"Address for HTTPS." default:"127.0.0.1:8443" env:"EDGE_TLS_LISTEN"`
	HTTPSPort        int           `help:"Port to name in redirects to HTTPS (default: --tls-listen's, or 443)." env:"EDGE_HTTPS_PORT"`
	ForceHTTPS       bool          `help:"Redirect when a trusted proxy reports X-Forwarded-Proto: http, also without TLS here." env:"EDGE_FORCE_HTTPS"`
	TrustedProxy     []string      `help:"CIDR of a proxy whose X-Forwarded-Proto is believed (repeatable)." env:"EDGE_TRUSTED_PROXIES"`
	Rate             float64       `help:"Default requests per second per app (apps may carry their own)." default:"${rate}" env:"EDGE_RATE"`
	Burst            int           `help:"Default burst per app." default:"${burst}" env:"EDGE_BURST"`
	Edges            int           `help:"How many edges share each app's allowance (each enforces 1/N of it)." default:"1" env:"EDGE_COUNT"`
	IDRate           float64       `name:"id-only-rate" help:"Requests per second, per client address, for requests that name their app only by its public id (x-svc-app-id); never charged to the app's keys." default:"${id_only_rate}" env:"EDGE_ID_ONLY_RATE"`
	IDBurst          int           `name:"id-only-burst" help:"Burst of --id-only-rate." default:"${id_only_burst}" env:"EDGE_ID_ONLY_BURST"`
	PackCache        int64         `help:"Bytes of decoded packs kept in memory." default:"${pack_cache}" env:"EDGE_PACK_CACHE"`
	ComposeCache     int64         `help:"Bytes of composed answers (verse ranges, catalogue pages) kept in memory." default:"${compose_cache}" env:"EDGE_COMPOSE_CACHE"`
	SearchCache      int64         `name:"search-answer-cache" help:"Bytes of search answers kept in memory." default:"${search_cache}" env:"EDGE_SEARCH_ANSWER_CACHE"`
	SearchIndexCache int64         `name:"search-index-cache-size" help:"Bytes of decoded search indexes kept in memory (a Bible's takes tens of megabytes; the least recently searched are let go and load again on their next search)." default:"${search_index_cache}" env:"EDGE_SEARCH_INDEX_CACHE"`
	DiskCache        string        `help:"Directory keeping packs fetched from the store on local disk (survives restarts; serves through store outages); off when empty. One directory per edge." env:"EDGE_DISK_CACHE"`
	CopyLocal        bool          `name:"disk-cache-local-store" help:"Keep a directory --store's packs on --disk-cache too, for a directory on a volume that may go away (a network mount); without it they are read from the directory, whose reads are as local as the disk cache's." env:"EDGE_DISK_CACHE_LOCAL_STORE"`
	DiskCacheMax     int64         `name:"disk-cache-size" help:"Bytes of packs kept in --disk-cache (least recently used evicted)." default:"10737418240" env:"EDGE_DISK_CACHE_SIZE"`
	WholePackMax     int64         `help:"Largest pack fetched whole onto the disk cache (not into memory) on its first miss from a remote store; memory holds the entries read by range (header, then entry). Negative: every pack whole into memory." default:"${whole_pack_max}" env:"EDGE_WHOLE_PACK_MAX"`
	WholePackFirst   bool          `help:"Fetch a pack of at most --whole-pack-max whole on its first miss, not by range." env:"EDGE_WHOLE_PACK_FIRST"`
	MaxVerses        int           `help:"Largest verse range composed on request." default:"${max_range_verses}" env:"EDGE_MAX_RANGE_VERSES"`
	Poll             time.Duration `help:"How often to look for a new build and a changed access file." default:"1s" env:"EDGE_POLL"`
	SearchReport     time.Duration `help:"How often counted searches are reported to dynamic for trending queries." default:"${search_report}" env:"EDGE_SEARCH_REPORT"`
	TrendingRefresh  time.Duration `help:"How often the trending queries are fetched from dynamic." default:"${trending_refresh}" env:"EDGE_TRENDING_REFRESH"`
	UsageReport      time.Duration `help:"How often the requests counted per app, Bible and day are reported to dynamic." default:"${usage_report}" env:"EDGE_USAGE_REPORT"`
	AccessLog        bool          `help:"Log every request." default:"true" negatable:"" env:"EDGE_ACCESS_LOG"`
	Concurrency      int           `help:"Most connections served at once." default:"262144" env:"EDGE_CONCURRENCY"`
	HugePages        bool          `help:"Ask the kernel for transparent huge pages for the heap where it gives them only when asked (a hit's lookups then miss the TLB far less; docs/edge.md)." default:"true" negatable:"" env:"EDGE_HUGE_PAGES"`
	DebugListen      string        `help:"Address for Go's pprof handlers (keep it on loopback); off when empty." env:"EDGE_DEBUG_LISTEN"`
	PublicURL        string        `name:"public-url" help:"Scheme and host of absolute URLs in answers (font sources), e.g. https://api.example.org. Required: built from each request's Host header, such answers could not be cached publicly." required:"" env:"EDGE_PUBLIC_URL"`
	PageTokenKey     string        `help:"Secret that seals page tokens; edges behind one balancer must share it (default: random per process)." env:"EDGE_PAGE_TOKEN_KEY"`
	ReaderAppKey     string        `help:"App Key the reader page at / uses (served to anyone at /reader/config.json: for demos only); without it the page asks for a key." env:"EDGE_READER_APP_KEY"`
}

type exportCmd struct {
	Store    string `help:"Published store." required:"" env:"EDGE_STORE"`
	Out      string `help:"Directory to write into." required:""`
	Passages string `help:"File of extra passages to compose and write, one 'BIBLE_ID PASSAGE_ID' a line."`
}

func main() {
	var c cli
	command.Main("edge", "Serve published Bible content: keys, licences, rate limits, HTTP caching semantics.", &c,
		kong.Vars{ // the defaults edge.New applies, so that they are written once
			"rate":               strconv.Itoa(edge.DefaultRatePerSecond),
			"burst":              strconv.Itoa(2 * edge.DefaultRatePerSecond),
			"pack_cache":         strconv.Itoa(edge.DefaultPackCacheBytes),
			"compose_cache":      strconv.Itoa(edge.DefaultComposeCacheBytes),
			"search_cache":       strconv.Itoa(edge.DefaultSearchCacheBytes),
			"search_index_cache": strconv.Itoa(edge.DefaultSearchIndexCacheBytes),
			"whole_pack_max":     strconv.Itoa(edge.DefaultWholePackMax),
			"max_range_verses":   strconv.Itoa(edge.DefaultMaxRangeVerses),
			"dynamic_timeout":    edge.DefaultDynamicTimeout.String(),
			"search_report":      edge.DefaultSearchReportInterval.String(),
			"trending_refresh":   edge.DefaultTrendingRefresh.String(),
			"usage_report":       edge.DefaultUsageReportInterval.String(),
			"id_only_rate":       strconv.FormatFloat(edge.DefaultIDOnlyRate.PerSecond, 'g', -1, 64),
			"id_only_burst":      strconv.Itoa(edge.DefaultIDOnlyRate.Burst),
		})
}

// memoryHeadroom is what the edge needs beyond its caches: connections,
// buffers, the catalogues, an answer being composed.
const memoryHeadroom = 256 << 20

// churnRoom: the runtime gets a third of the pack tier's bound again as
// room for the garbage the tier's churn leaves between two collections.
// Serving a catalogue that does not fit in memory, the tier reads and lets
// go tens of megabytes a second (entries and pack headers); with only
// memoryHeadroom beside a full tier the collector ran every 6 to 7 s, and
// on one processor its mark phases are the tail of the answers' latency
// (docs/edge.md, "Room for the collector").
const churnRoom = 3

// memoryBound is what the edge's process may hold with the caches'
// bounds given (answers: the composed and the search answers'), room for
// the pack tier's churn, and headroom.
func memoryBound(packs, answers, searchIndexes int64) int64 {
	return packs + packs/churnRoom + answers + searchIndexes + memoryHeadroom
}

// setMemoryLimit bounds the process at bound, through the Go runtime's
// soft memory limit, unless GOMEMLIMIT sets one. Without it the heap grows
// to twice what is live before a collection (GOGC=100), so full caches
// made the process about twice their bound, more with the garbage of
// compressing composed ranges; with it the collector works harder as the
// limit nears instead. The runtime's limit covers only the memory it
// manages: the edge's executable, mapped from its file (about 20 MiB
// resident under load), counts in the process's resident set beside it, so
// the runtime gets the bound less the executable's size.
func setMemoryLimit(bound int64, log *slog.Logger) {
	if limit := bound - executableSize(); command.SetMemoryLimit(limit) {
		log.Info("memory limit", "bytes", bound, "runtime_limit", limit)
	}
}

// executableSize is the size of the running executable's file: at most
// that much of it is resident, and a Go binary maps no other file. 0 when
// it cannot be found.
func executableSize() int64 {
	p, err := os.Executable()
	if err != nil {
		return 0
	}
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func (c *serveCmd) Run(ctx context.Context, log *slog.Logger, logging *command.Logging) error {
	if err := c.checkEdgeToken(); err != nil {
		return err
	}
	// No request to the store at start: an edge (re)started during a store
	// outage serves what its disk cache holds (see BuildWatcher.Check).
	store, err := storeurl.OpenLazy(c.Store)
	if err != nil {
		return err
	}
	var proxies []netip.Prefix
	for _, p := range c.TrustedProxy {
		for _, s := range strings.Split(p, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			pfx, err := netip.ParsePrefix(s)
			if err != nil {
				return fmt.Errorf("--trusted-proxy: %w", err)
			}
			proxies = append(proxies, pfx)
		}
	}
	if u, err := url.Parse(c.PublicURL); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" ||
		strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.User != nil {
		return fmt.Errorf("--public-url %q: want the scheme and host clients reach the edge at, like https://api.example.org", c.PublicURL)
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	cache := c.AccessCache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		cache = filepath.Join(dir, "bibleplatform-edge", "access.json")
	}
	setMemoryLimit(memoryBound(c.PackCache, c.ComposeCache+c.SearchCache, c.SearchIndexCache), log)
	if c.HugePages {
		// Before the packs fill the heap, so that the heap grows into
		// memory advised for huge pages up to its limit.
		hugepages.Advise(ctx, time.Second, debug.SetMemoryLimit(-1), log)
	}
	var accessLog *slog.Logger
	if c.AccessLog {
		// Access lines gather in memory and reach standard error in
		// batches (every 100 ms, or 64 KiB): one write(2) a request for
		// its log line cost as much CPU as answering it. Lines of the
		// last 100 ms are lost if the process is killed; shutdown writes
		// them out.
		lw := logbuf.New(os.Stderr, 64<<10, 100*time.Millisecond)
		defer lw.Close()
		accessLog = command.NewLogger(lw, logging)
	}
	srv, err := edge.New(edge.Config{
		Store: store, Log: log, AccessLog: accessLog,
		DefaultRate: access.Rate{PerSecond: c.Rate, Burst: c.Burst}, Edges: c.Edges,
		IDOnlyRate: access.Rate{PerSecond: c.IDRate, Burst: c.IDBurst},
		DynamicURL: c.Dynamic, EdgeToken: c.EdgeToken, DynamicTimeout: c.Timeout,
		ForceHTTPS: c.ForceHTTPS, HTTPSPort: c.HTTPSPort, TrustedProxies: proxies,
		PackCacheBytes: c.PackCache, ComposeCacheBytes: c.ComposeCache, SearchCacheBytes: c.SearchCache, SearchIndexCacheBytes: c.SearchIndexCache, MaxRangeVerses: c.MaxVerses,
		DiskCacheDir: c.DiskCache, DiskCacheBytes: c.DiskCacheMax, DiskCacheLocalStore: c.CopyLocal, WholePackMax: c.WholePackMax,
		WholePackFirst: c.WholePackFirst, PublicURL: c.PublicURL, PageTokenKey: []byte(c.PageTokenKey), ReaderAppKey: c.ReaderAppKey,
		SearchReportInterval: c.SearchReport, TrendingRefresh: c.TrendingRefresh, UsageReportInterval: c.UsageReport,
		Access: c.Access, AccessCache: cache, Poll: c.Poll, Concurrency: c.Concurrency,
		TLSCertFile: c.TLSCert, TLSKeyFile: c.TLSKey, TLSAddr: c.TLSListen,
	})
	if err != nil {
		return err
	}
	if c.DebugListen != "" {
		// net/http/pprof registers on the default mux; only this
		// listener serves it.
		go func() {
			if err := http.ListenAndServe(c.DebugListen, nil); err != nil {
				log.Error("debug listener", "err", err)
			}
		}()
	}
	if err := srv.Open(ctx, c.Listen); err != nil {
		return err
	}
	<-ctx.Done()
	log.Info("shutting down")
	return srv.Close()
}

// checkEdgeToken refuses a dynamic service, or an access source on
// dynamic, without the shared secret: dynamic answers 401 to every request
// without it, so such an edge could never serve.
func (c *serveCmd) checkEdgeToken() error {
	if c.EdgeToken != "" {
		return nil
	}
	if c.Dynamic != "" {
		return errors.New("--dynamic needs --edge-token (EDGE_TOKEN): dynamic refuses every request without dynamic's shared secret")
	}
	if strings.HasPrefix(c.Access, "http://") || strings.HasPrefix(c.Access, "https://") {
		return errors.New("--access on dynamic needs --edge-token (EDGE_TOKEN): dynamic refuses every request without dynamic's shared secret")
	}
	return nil
}

func (c *exportCmd) Run(ctx context.Context, log *slog.Logger) error {
	store, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	srv, err := edge.New(edge.Config{Store: store, Log: log, PackCacheBytes: 1 << 30})
	if err != nil {
		return err
	}
	bw := &edge.BuildWatcher{Store: store, Server: srv, Log: log}
	if err := bw.Check(ctx); err != nil {
		return err
	}
	extra := map[int32][]string{}
	if c.Passages != "" {
		f, err := os.Open(c.Passages)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			fields := strings.Fields(sc.Text())
			if len(fields) == 0 {
				continue
			}
			id, err := strconv.ParseInt(fields[0], 10, 32)
			if len(fields) != 2 || err != nil {
				return fmt.Errorf("%s:%d: want 'BIBLE_ID PASSAGE_ID'", c.Passages, line)
			}
			extra[int32(id)] = append(extra[int32(id)], fields[1])
		}
		if err := sc.Err(); err != nil {
			return err
		}
	}
	n, err := srv.Export(ctx, c.Out, extra)
	if err != nil {
		return err
	}
	log.Info("exported", "files", n, "dir", c.Out)
	return nil
}
