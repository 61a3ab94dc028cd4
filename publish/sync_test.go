package publish_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// backends runs f against the directory store and against S3 on a real
// MinIO, each time on a fresh empty store.
func backends(t *testing.T, f func(t *testing.T, newStore func(t *testing.T) publish.Store)) {
	t.Run("dir", func(t *testing.T) {
		f(t, func(t *testing.T) publish.Store {
			d, err := publish.OpenDir(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return d
		})
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3test.Shared(t)
		f(t, func(t *testing.T) publish.Store { return srv.Store(t, "p") })
	})
}

// contentKey is a content address, as the build names packs.
func contentKey(data []byte) string {
	sum := sha256.Sum256(data)
	return "packs/" + hex.EncodeToString(sum[:20])
}

// object is one object to publish: its key and its data.
type object struct {
	Key  string
	Data []byte
}

func objects(n int, tag string) []object {
	var objs []object
	for i := 0; i < n; i++ {
		data := []byte(fmt.Sprintf("%s object %d", tag, i))
		objs = append(objs, object{Key: contentKey(data), Data: data})
	}
	return objs
}

// upload queues objs on an Uploader, as a build does, stopping at the
// first Put that fails, and waits for them.
func upload(ctx context.Context, s publish.Store, objs []object, opt publish.SyncOptions) (publish.SyncReport, error) {
	u := publish.NewUploader(ctx, s, opt)
	for _, o := range objs {
		if err := u.Put(ctx, o.Key, o.Data); err != nil {
			break // the error is also Wait's
		}
	}
	return u.Wait(ctx)
}

func TestUpload(t *testing.T) {
	backends(t, func(t *testing.T, newStore func(t *testing.T) publish.Store) {
		ctx := context.Background()
		s := newStore(t)
		objs := objects(40, "a")
		rep, err := upload(ctx, s, objs, publish.SyncOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var size int64
		for _, o := range objs {
			size += int64(len(o.Data))
		}
		if rep.Uploaded != 40 || rep.UploadedBytes != size {
			t.Errorf("upload: %v; want 40 objects, %d bytes", rep, size)
		}
		for _, o := range objs {
			got, err := s.Get(ctx, o.Key)
			if err != nil || !bytes.Equal(got, o.Data) {
				t.Fatalf("Get(%s) = %q, %v; want %q", o.Key, got, err, o.Data)
			}
		}
	})
}

// flaky fails Puts as a network that drops requests does, in front of a
// real store: the nth Put of key fails when fail(key, n) says so.
type flaky struct {
	publish.Store
	fail func(key string, n int) bool
	err  error
	mu   sync.Mutex
	seen map[string]int
	puts atomic.Int64
}

func newFlaky(s publish.Store, err error, fail func(key string, n int) bool) *flaky {
	return &flaky{Store: s, fail: fail, err: err, seen: map[string]int{}}
}

func (f *flaky) Put(ctx context.Context, key string, data []byte) error {
	f.puts.Add(1)
	f.mu.Lock()
	f.seen[key]++
	n := f.seen[key]
	f.mu.Unlock()
	if f.fail(key, n) {
		return f.err
	}
	return f.Store.Put(ctx, key, data)
}

var errNetwork = errors.New("connection reset by peer")

func TestUploadRetries(t *testing.T) {
	fast := publish.SyncOptions{Backoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, Attempts: 3}
	for _, c := range []struct {
		name     string
		failures int // of every key's first Puts
		err      error
		wantErr  bool
		// Puts and retries per object that was tried; once one object
		// has failed for good, the build stops queueing more.
		wantPuts, wantRetries int
	}{
		{"transient", 2, errNetwork, false, 3, 2},
		{"too many failures", 3, errNetwork, true, 3, 2},
		{"permission denied is not retried", 1, fs.ErrPermission, true, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			backends(t, func(t *testing.T, newStore func(t *testing.T) publish.Store) {
				ctx := context.Background()
				f := newFlaky(newStore(t), c.err, func(_ string, n int) bool { return n <= c.failures })
				rep, err := upload(ctx, f, objects(10, "r"), fast)
				if (err != nil) != c.wantErr {
					t.Fatalf("upload error = %v; want error: %t", err, c.wantErr)
				}
				puts := int(f.puts.Load())
				tried := puts / c.wantPuts
				if tried < 1 || puts != tried*c.wantPuts || rep.Retries != tried*c.wantRetries {
					t.Errorf("puts, retries = %d, %d; want %d and %d per object tried", puts, rep.Retries, c.wantPuts, c.wantRetries)
				}
				if !c.wantErr && (rep.Uploaded != 10 || tried != 10) {
					t.Errorf("uploaded %d of %d tried; want 10", rep.Uploaded, tried)
				}
				if c.wantErr && !errors.Is(err, c.err) {
					t.Errorf("upload error = %v; want it to wrap %v", err, c.err)
				}
			})
		})
	}
}

// TestUploaderHoldsTheSwitch checks the promise publishing rests on: the
// current pointer moves only when every object is in place, and a failed
// publish leaves the previous build current; a rerun then uploads only
// what is missing.
func TestUploaderHoldsTheSwitch(t *testing.T) {
	backends(t, func(t *testing.T, newStore func(t *testing.T) publish.Store) {
		ctx := context.Background()
		s := newStore(t)
		if err := s.SetCurrent(ctx, "old"); err != nil {
			t.Fatal(err)
		}
		objs := objects(20, "u")
		bad := map[string]bool{}
		for _, o := range objs[:10] {
			bad[o.Key] = true
		}
		broken := newFlaky(s, errNetwork, func(key string, _ int) bool { return bad[key] })
		u := publish.NewUploader(ctx, broken, publish.SyncOptions{Backoff: time.Millisecond, Attempts: 2})
		for _, o := range objs {
			if err := u.Put(ctx, o.Key, o.Data); err != nil {
				break // an earlier failure stops the publish early: fine
			}
		}
		// The build reads back what it wrote before it lands.
		if got, err := u.Get(ctx, objs[0].Key); err != nil || !bytes.Equal(got, objs[0].Data) {
			t.Errorf("Get of a queued object = %q, %v", got, err)
		}
		if keys, err := u.List(ctx, "packs/"); err != nil || !slices.Contains(keys, objs[0].Key) || !slices.IsSorted(keys) {
			t.Errorf("List = %v, %v; want it sorted, with the queued %s", keys, err, objs[0].Key)
		}
		if err := u.SetCurrent(ctx, "new"); err == nil {
			t.Fatal("SetCurrent succeeded although uploads failed")
		}
		if got, err := s.Current(ctx); err != nil || got != "old" {
			t.Fatalf("after a failed publish Current = %q, %v; want old", got, err)
		}

		// Rerun on a healthy network.
		u = publish.NewUploader(ctx, s, publish.SyncOptions{})
		for _, o := range objs {
			if err := u.Put(ctx, o.Key, o.Data); err != nil {
				t.Fatal(err)
			}
		}
		if err := u.SetCurrent(ctx, "new"); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Current(ctx); err != nil || got != "new" {
			t.Errorf("Current = %q, %v; want new", got, err)
		}
	})
}

func TestUploaderParallel(t *testing.T) {
	// A store whose Put takes 20 ms: 32 uploads 16 at a time take about
	// 40 ms, one at a time 640 ms.
	slow, peak := newSlowStore(t)
	ctx := context.Background()
	u := publish.NewUploader(ctx, slow, publish.SyncOptions{Parallel: 16})
	for _, o := range objects(32, "p") {
		if err := u.Put(ctx, o.Key, o.Data); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := u.Wait(ctx)
	if err != nil || rep.Uploaded != 32 {
		t.Fatalf("Wait = %v, %v; want 32 uploaded", rep, err)
	}
	if got := peak.Load(); got < 8 || got > 16 {
		t.Errorf("peak uploads in flight = %d; want between 8 and 16", got)
	}
}

// newSlowStore is a directory store whose Put takes 20 ms, and the most
// Puts it saw at once.
func newSlowStore(t *testing.T) (*slowStore, *atomic.Int64) {
	t.Helper()
	d, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var peak atomic.Int64
	return &slowStore{Store: d, delay: 20 * time.Millisecond, inflight: new(atomic.Int64), peak: &peak}, &peak
}

type slowStore struct {
	publish.Store
	delay          time.Duration
	inflight, peak *atomic.Int64
}

func (s *slowStore) Put(ctx context.Context, key string, data []byte) error {
	n := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(s.delay)
	return s.Store.Put(ctx, key, data)
}

// TestUploaderOutlivesPutContext: a build cancels a worker's context as
// soon as its part is done; uploads it queued must still land.
func TestUploaderOutlivesPutContext(t *testing.T) {
	backends(t, func(t *testing.T, newStore func(t *testing.T) publish.Store) {
		ctx := context.Background()
		s := newStore(t)
		u := publish.NewUploader(ctx, s, publish.SyncOptions{})
		worker, cancel := context.WithCancel(ctx)
		objs := objects(20, "w")
		for _, o := range objs {
			if err := u.Put(worker, o.Key, o.Data); err != nil {
				t.Fatal(err)
			}
		}
		cancel()
		if rep, err := u.Wait(ctx); err != nil || rep.Uploaded != len(objs) {
			t.Fatalf("Wait = %v, %v; want %d uploaded", rep, err, len(objs))
		}
		for _, o := range objs {
			if _, err := s.Stat(ctx, o.Key); err != nil {
				t.Errorf("Stat(%s): %v", o.Key, err)
			}
		}
	})
}

// TestUploaderBoundsBytes: the uploads in flight hold at most MaxBytes
// (one larger object alone), however many slots are free.
func TestUploaderBoundsBytes(t *testing.T) {
	slow, peak := newSlowStore(t)
	ctx := context.Background()
	u := publish.NewUploader(ctx, slow, publish.SyncOptions{Parallel: 16, MaxBytes: 3 << 10})
	for i := range 8 {
		if err := u.Put(ctx, fmt.Sprintf("packs/%d", i), make([]byte, 1<<10)); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.Put(ctx, "packs/large", make([]byte, 8<<10)); err != nil {
		t.Fatal(err)
	}
	rep, err := u.Wait(ctx)
	if err != nil || rep.Uploaded != 9 {
		t.Fatalf("Wait = %v, %v; want 9 uploaded", rep, err)
	}
	if got := peak.Load(); got < 2 || got > 3 {
		t.Errorf("peak uploads in flight = %d; want 2 or 3 of 1 KiB within 3 KiB", got)
	}
}
