package publish

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// Publishing to a remote store is many small uploads over a network that
// fails now and then. The Uploader runs them in parallel, retries each with
// backoff, and holds back the switch of the current build until every
// upload has landed: a publish that fails or is interrupted leaves the
// previous build current, and a rerun finds the objects that did land
// (they are content-addressed) and uploads only the rest.

// SyncOptions tune uploads. Zero values take the defaults.
type SyncOptions struct {
	Parallel int // uploads in flight; default 16
	// MaxBytes bounds the bytes of the uploads in flight, which the
	// Uploader holds until they land; default 64 MiB. An object larger
	// than it is uploaded alone.
	MaxBytes   int64
	Attempts   int           // tries per object; default 5
	Backoff    time.Duration // wait after the first failure, doubled after each; default 200ms
	MaxBackoff time.Duration // cap on one wait; default 5s
}

func (o *SyncOptions) defaults() {
	if o.Parallel <= 0 {
		o.Parallel = 16
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 20
	}
	if o.Attempts <= 0 {
		o.Attempts = 5
	}
	if o.Backoff <= 0 {
		o.Backoff = 200 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Second
	}
}

// SyncReport counts what an upload did.
type SyncReport struct {
	Uploaded      int   // objects written
	UploadedBytes int64 // their bytes
	Retries       int   // failed attempts that were retried
}

func (r SyncReport) String() string {
	return fmt.Sprintf("uploaded %d objects (%d bytes), %d retries", r.Uploaded, r.UploadedBytes, r.Retries)
}

// Uploader is a Store whose Put returns as soon as the upload is queued;
// uploads run in parallel (at most Parallel at once: Put blocks beyond
// that) and are retried with backoff. Until an upload lands, Get, GetRange,
// Stat and List answer from the queued bytes, so a caller sees its own
// writes. Delete is not ordered after queued uploads: Wait first.
//
// SetCurrent first waits for every queued upload and fails, leaving the
// current build as it was, if any of them failed: the pointer never names a
// build whose objects are not all in place. Wrapping a store with it is all
// a build needs to publish in parallel:
//
//	u := publish.NewUploader(ctx, store, publish.SyncOptions{})
//	… build writes objects to u, then u.SetCurrent(ctx, id) …
//	rep, err := u.Wait(ctx)
type Uploader struct {
	Store
	ctx   context.Context // bounds every upload
	opt   SyncOptions
	sem   chan struct{}
	bytes *semaphore.Weighted // of opt.MaxBytes
	wg    sync.WaitGroup

	mu      sync.Mutex
	pending map[string][]byte
	rep     SyncReport
	errs    []error
}

// NewUploader wraps s. Cancelling ctx abandons the uploads still running;
// the context given to Put only bounds the wait for a free slot, because
// an upload outlives the call that queued it (a build may cancel a
// worker's context as soon as its own part is done).
func NewUploader(ctx context.Context, s Store, opt SyncOptions) *Uploader {
	opt.defaults()
	return &Uploader{Store: s, ctx: ctx, opt: opt, sem: make(chan struct{}, opt.Parallel),
		bytes: semaphore.NewWeighted(opt.MaxBytes), pending: map[string][]byte{}}
}

// Put queues an upload. It fails at once for a bad key, a cancelled
// context, or when an earlier upload has failed (there is no point going
// on with a publish that cannot complete).
func (u *Uploader) Put(ctx context.Context, key string, data []byte) error {
	if err := CheckKey(key); err != nil {
		return fmt.Errorf("%w: %q", err, key)
	}
	if err := u.failed(); err != nil {
		return err
	}
	select {
	case u.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	n := min(int64(len(data)), u.opt.MaxBytes)
	if err := u.bytes.Acquire(ctx, n); err != nil {
		<-u.sem
		return err
	}
	u.mu.Lock()
	u.pending[key] = data
	u.mu.Unlock()
	u.wg.Add(1)
	go func() {
		defer func() { u.bytes.Release(n); <-u.sem; u.wg.Done() }()
		_, err := retry(u.ctx, u.opt, u.countRetry, func() (struct{}, error) {
			return struct{}{}, u.Store.Put(u.ctx, key, data)
		})
		u.mu.Lock()
		defer u.mu.Unlock()
		if err != nil {
			u.errs = append(u.errs, fmt.Errorf("upload %s: %w", key, err))
			// Keep serving reads of it from memory: the store has
			// not got it.
			return
		}
		// Drop it only if a later Put of the same key did not
		// replace it meanwhile.
		if d, ok := u.pending[key]; ok && len(d) == len(data) && (len(d) == 0 || &d[0] == &data[0]) {
			delete(u.pending, key)
		}
		u.rep.Uploaded++
		u.rep.UploadedBytes += int64(len(data))
	}()
	return nil
}

func (u *Uploader) countRetry() {
	u.mu.Lock()
	u.rep.Retries++
	u.mu.Unlock()
}

func (u *Uploader) failed() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return errors.Join(u.errs...)
}

func (u *Uploader) queued(key string) ([]byte, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	d, ok := u.pending[key]
	return d, ok
}

// Get reads a queued object from memory, others from the store.
func (u *Uploader) Get(ctx context.Context, key string) ([]byte, error) {
	if d, ok := u.queued(key); ok {
		return append([]byte(nil), d...), nil
	}
	return u.Store.Get(ctx, key)
}

// GetRange reads a queued object from memory, others from the store.
func (u *Uploader) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if d, ok := u.queued(key); ok {
		if off < 0 || n < 0 || off+n > int64(len(d)) {
			return nil, fmt.Errorf("get %s [%d,+%d): out of range of %d bytes", key, off, n, len(d))
		}
		return append([]byte(nil), d[off:off+n]...), nil
	}
	return u.Store.GetRange(ctx, key, off, n)
}

// Stat answers for a queued object from memory, others from the store.
func (u *Uploader) Stat(ctx context.Context, key string) (int64, error) {
	if d, ok := u.queued(key); ok {
		return int64(len(d)), nil
	}
	return u.Store.Stat(ctx, key)
}

// List lists the store and the queued objects under prefix.
func (u *Uploader) List(ctx context.Context, prefix string) ([]string, error) {
	keys, err := u.Store.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	for k := range u.pending {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	u.mu.Unlock()
	sort.Strings(keys)
	return slices.Compact(keys), nil
}

// Wait waits for every queued upload and reports what was uploaded; the
// error joins every upload that failed after all its attempts.
func (u *Uploader) Wait(ctx context.Context) (SyncReport, error) {
	done := make(chan struct{})
	go func() { u.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return u.Report(), ctx.Err()
	}
	return u.Report(), u.failed()
}

// Report is what has been uploaded so far.
func (u *Uploader) Report() SyncReport {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.rep
}

// SetCurrent switches builds once every queued upload is in place.
func (u *Uploader) SetCurrent(ctx context.Context, build string) error {
	if _, err := u.Wait(ctx); err != nil {
		return fmt.Errorf("switch to %s: not every object was uploaded, the current build is unchanged: %w", build, err)
	}
	_, err := retry(ctx, u.opt, u.countRetry, func() (struct{}, error) {
		return struct{}{}, u.Store.SetCurrent(ctx, build)
	})
	return err
}

// retry calls f until it succeeds, fails permanently, or has been tried
// opt.Attempts times, waiting with exponential backoff and equal jitter
// (half the wait fixed, half random) between tries, so that parallel
// uploads that failed together do not retry together.
func retry[T any](ctx context.Context, opt SyncOptions, onRetry func(), f func() (T, error)) (T, error) {
	opt.defaults()
	wait := opt.Backoff
	for attempt := 1; ; attempt++ {
		v, err := f()
		if err == nil || attempt >= opt.Attempts || permanent(ctx, err) {
			return v, err
		}
		if onRetry != nil {
			onRetry()
		}
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return v, err
		}
		wait = min(2*wait, opt.MaxBackoff)
	}
}

// permanent reports errors that another attempt cannot fix.
func permanent(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, ErrBadKey) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
