package packs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/publish"
)

// Store operations the edge makes, for metrics.
type storeOp uint8

const (
	opCurrent storeOp = iota // the current build pointer
	opManifest
	opGet      // a whole pack
	opGetRange // a pack header or entry
	numStoreOps
)

var storeOpNames = [numStoreOps]string{"current", "manifest", "get", "get_range"}

// health follows whether the store answers. The store is down when
// the most recent request to it failed: the build watcher asks every poll
// interval, so an outage and a recovery both show within one interval.
// "No such object" is an answer, not an outage; nor is a request given up
// because the edge is shutting down.
type health struct {
	ok, failed [numStoreOps]metrics.Counter

	mu        sync.Mutex
	down      bool
	downSince time.Time
	lastOK    time.Time
}

// observe records the outcome of one store request.
func (h *health) observe(op storeOp, err error) {
	if err != nil && (publish.IsNotExist(err) || errors.Is(err, context.Canceled)) {
		err = nil
	}
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil {
		h.ok[op].Inc()
		h.down, h.lastOK = false, now
		return
	}
	h.failed[op].Inc()
	if !h.down {
		h.down, h.downSince = true, now
	}
}

// outage returns a reason when the store is down; it names no error text
// (readiness is read by load balancers and people, not only operators).
func (h *health) outage() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.down {
		return "", false
	}
	last := "never"
	if !h.lastOK.IsZero() {
		last = h.lastOK.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("object store unreachable for %s (last answer %s); serving cached content\n",
		time.Since(h.downSince).Round(time.Second), last), true
}

// Observe returns st with its reads observed: their outcomes are the
// store's health that Outage reports and /metrics shows. The build
// watcher's reads go through it as the packs' own do.
func (p *Packs) Observe(st publish.Store) publish.Store { return observedStore{st, &p.health} }

// Outage returns a reason when the store is down; it names no error text
// (readiness is read by load balancers and people, not only operators).
func (p *Packs) Outage() (string, bool) { return p.health.outage() }

// observedStore reports every read to the health tracker. The edge only
// reads; writes pass through unobserved.
type observedStore struct {
	publish.Store
	h *health
}

func (s observedStore) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.Store.Get(ctx, key)
	op := opGet
	if key != "" && key[0] == 'b' { // builds/<id>.json
		op = opManifest
	}
	s.h.observe(op, err)
	return b, err
}

// AppendGet reads into dst, in place when the store can (publish.Appender).
func (s observedStore) AppendGet(ctx context.Context, key string, dst []byte) ([]byte, error) {
	b, err := publish.AppendGet(ctx, s.Store, key, dst)
	s.h.observe(opGet, err)
	return b, err
}

func (s observedStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	b, err := s.Store.GetRange(ctx, key, off, n)
	s.h.observe(opGetRange, err)
	return b, err
}

// ReadRange reads into b, in place when the store can (publish.RangeReader).
func (s observedStore) ReadRange(ctx context.Context, key string, off int64, b []byte) error {
	err := publish.ReadRange(ctx, s.Store, key, off, b)
	s.h.observe(opGetRange, err)
	return err
}

func (s observedStore) Current(ctx context.Context) (string, error) {
	id, err := s.Store.Current(ctx)
	s.h.observe(opCurrent, err)
	return id, err
}

// WriteMetrics adds the tiers' metrics and the store's to /metrics.
func (p *Packs) WriteMetrics(w io.Writer) {
	t, h := &p.tiers, &p.health
	fmt.Fprintln(w, "# HELP edge_pack_reads_total Pack lookups by the tier that answered: memory (a decoded pack or an entry read earlier), disk (a whole pack, a header or an entry from the disk cache), store (a whole pack fetched, into memory or onto the disk), store_header and store_range (a pack header and an entry fetched by ranged read).")
	fmt.Fprintln(w, "# TYPE edge_pack_reads_total counter")
	for _, x := range []struct {
		tier string
		n    uint64
	}{{"memory", t.memory.Load()}, {"disk", t.disk.Load()}, {"store", t.store.Load()},
		{"store_header", t.header.Load()}, {"store_range", t.ranged.Load()}} {
		fmt.Fprintf(w, "edge_pack_reads_total{tier=%q} %d\n", x.tier, x.n)
	}
	d := p.disk
	files, bytes := d.stats()
	fmt.Fprintln(w, "# HELP edge_disk_cache_bytes Bytes of packs in the disk cache.")
	fmt.Fprintln(w, "# TYPE edge_disk_cache_bytes gauge")
	fmt.Fprintf(w, "edge_disk_cache_bytes %d\n", bytes)
	fmt.Fprintln(w, "# HELP edge_disk_cache_files Packs in the disk cache.")
	fmt.Fprintln(w, "# TYPE edge_disk_cache_files gauge")
	fmt.Fprintf(w, "edge_disk_cache_files %d\n", files)
	if d != nil {
		fmt.Fprintln(w, "# HELP edge_disk_cache_events_total Disk cache writes, evictions and I/O errors.")
		fmt.Fprintln(w, "# TYPE edge_disk_cache_events_total counter")
		fmt.Fprintf(w, "edge_disk_cache_events_total{event=\"write\"} %d\n", d.writes.Load())
		fmt.Fprintf(w, "edge_disk_cache_events_total{event=\"evict\"} %d\n", d.evictions.Load())
		fmt.Fprintf(w, "edge_disk_cache_events_total{event=\"error\"} %d\n", d.errs.Load())
	}
	fmt.Fprintln(w, "# HELP edge_store_requests_total Requests to the object store by operation and result (a missing object is ok).")
	fmt.Fprintln(w, "# TYPE edge_store_requests_total counter")
	for op := range numStoreOps {
		fmt.Fprintf(w, "edge_store_requests_total{op=%q,result=\"ok\"} %d\n", storeOpNames[op], h.ok[op].Load())
		fmt.Fprintf(w, "edge_store_requests_total{op=%q,result=\"error\"} %d\n", storeOpNames[op], h.failed[op].Load())
	}
	var errs uint64
	for op := range numStoreOps {
		errs += h.failed[op].Load()
	}
	fmt.Fprintln(w, "# HELP edge_store_errors_total Failed requests to the object store.")
	fmt.Fprintln(w, "# TYPE edge_store_errors_total counter")
	fmt.Fprintf(w, "edge_store_errors_total %d\n", errs)
	fmt.Fprintln(w, "# HELP edge_store_up 1 when the last request to the object store was answered.")
	fmt.Fprintln(w, "# TYPE edge_store_up gauge")
	up := 1
	if _, down := h.outage(); down {
		up = 0
	}
	fmt.Fprintf(w, "edge_store_up %d\n", up)
}
