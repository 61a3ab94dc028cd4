package publish_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
)

// downStore fails Current (and blocks it for block) while down is set.
type downStore struct {
	publish.Store
	down    atomic.Bool
	block   time.Duration
	current atomic.Int32
}

var errDown = errors.New("store unreachable")

func (s *downStore) Current(ctx context.Context) (string, error) {
	s.current.Add(1)
	if s.down.Load() {
		time.Sleep(s.block)
		return "", errDown
	}
	return s.Store.Current(ctx)
}

func TestFollower(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &downStore{Store: dir}
	f := &publish.Follower{Store: st}

	if _, _, err := f.Check(ctx); !publish.IsNotExist(err) {
		t.Fatalf("empty store: %v, want not-exist", err)
	}
	if _, err := f.Fresh(ctx, time.Hour); !publish.IsNotExist(err) {
		t.Fatalf("empty store, Fresh within maxAge: %v, want the last check's not-exist", err)
	}
	b1 := publishBuild(t, dir, day(1), "a")
	if b, changed, err := f.Check(ctx); err != nil || !changed || b.ID != b1 || f.Current().ID != b1 {
		t.Fatalf("first build: %v %v %v", b, changed, err)
	}
	if _, changed, err := f.Check(ctx); err != nil || changed {
		t.Fatalf("same build again: changed %v, %v", changed, err)
	}

	// The store goes down: the last good build stays, and concurrent
	// readers do not queue behind the one that checks.
	st.down.Store(true)
	st.block = 200 * time.Millisecond
	if b, changed, err := f.Check(ctx); !errors.Is(err, errDown) || changed || b.ID != b1 {
		t.Fatalf("store down: %v %v %v", b, changed, err)
	}
	before := st.current.Load()
	var wg sync.WaitGroup
	var slow atomic.Int32
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			b, err := f.Fresh(ctx, 0)
			if err != nil || b.ID != b1 {
				t.Errorf("Fresh while down: %v, %v", b, err)
			}
			if time.Since(start) > 100*time.Millisecond {
				slow.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := slow.Load(); n > 1 {
		t.Errorf("%d readers waited for the store; only the one checking may", n)
	}
	if n := st.current.Load() - before; n < 1 {
		t.Errorf("no reader checked the stale build")
	}

	// Back up with a new build: Fresh sees it once the old one is stale.
	st.down.Store(false)
	b2 := publishBuild(t, dir, day(2), "b")
	if b, err := f.Fresh(ctx, time.Hour); err != nil || b.ID != b1 {
		t.Fatalf("Fresh within maxAge: %v %v, want the kept %s", b, err, b1)
	}
	if b, err := f.Fresh(ctx, 0); err != nil || b.ID != b2 {
		t.Fatalf("Fresh when stale: %v %v, want %s", b, err, b2)
	}

	// A build adopted from elsewhere is not loaded again.
	g := &publish.Follower{Store: dir}
	g.Keep(b2, &publish.Manifest{})
	if _, changed, err := g.Check(ctx); err != nil || changed {
		t.Fatalf("kept build: changed %v, %v", changed, err)
	}
}
