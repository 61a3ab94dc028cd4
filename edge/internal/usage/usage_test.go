package usage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/wire"
)

func sorted(cs []Count) []Count {
	slices.SortFunc(cs, func(a, b Count) int {
		return strings.Compare(fmt.Sprint(a.App, a.Bible, a.Day), fmt.Sprint(b.App, b.Bible, b.Day))
	})
	return cs
}

func TestCounterCounts(t *testing.T) {
	c := NewCounter()
	adds := []struct {
		app        string
		bible, day int32
		times      int
	}{
		{"a", 9001, 20000, 3}, {"a", 9002, 20000, 1}, {"a", 9001, 20001, 2}, {"b", 0, 20000, 5},
	}
	for _, a := range adds {
		for range a.times {
			if !c.Add(a.app, a.bible, a.day) {
				t.Fatalf("Add(%q) dropped", a.app)
			}
		}
	}
	got := sorted(c.Take())
	want := sorted([]Count{{"a", 9001, 20000, 3}, {"a", 9002, 20000, 1}, {"a", 9001, 20001, 2}, {"b", 0, 20000, 5}})
	if !slices.Equal(got, want) {
		t.Errorf("Take = %v, want %v", got, want)
	}
	if got := c.Take(); got != nil {
		t.Errorf("second Take = %v, want nil", got)
	}
}

func TestCounterConcurrent(t *testing.T) {
	c := NewCounter()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				c.Add(fmt.Sprint("app", i%5), int32(g%2), 1)
			}
		}()
	}
	wg.Wait()
	total := int64(0)
	got := c.Take()
	for _, x := range got {
		total += x.Requests
	}
	// Goroutines count one key in several shards; Take adds them up.
	if total != 8000 || c.Dropped() != 0 || len(got) != 10 {
		t.Errorf("counted %d in %d keys, dropped %d; want 8000 in 10, 0", total, len(got), c.Dropped())
	}
}

// One app reading one Bible on every core: the case sharding by stack
// spreads over the shards.
func BenchmarkCounterAddOneKey(b *testing.B) {
	c := NewCounter()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Add("5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a01", 9001, 20000)
		}
	})
}

// A table that fills asks for a report, then drops and counts what finds
// no room; what it holds stays bounded.
func TestCounterFull(t *testing.T) {
	c := NewCounter()
	kept, dropped := 0, 0
	for i := range shards * slots * 2 {
		if c.Add("app", int32(i), 1) {
			kept++
		} else {
			dropped++
		}
	}
	select {
	case <-c.Full():
	default:
		t.Error("a full table did not ask for a report")
	}
	if kept > shards*slots || dropped == 0 || int64(dropped) != c.Dropped() {
		t.Errorf("kept %d dropped %d (Dropped %d); want at most %d kept, the rest dropped", kept, dropped, c.Dropped(), shards*slots)
	}
	if got := len(c.Take()); got != kept {
		t.Errorf("Take gave %d counts, want %d", got, kept)
	}
	if !c.Add("app", 1, 1) {
		t.Error("an emptied table still drops")
	}
}

func TestCounterAllocs(t *testing.T) {
	c := NewCounter()
	app := strings.Repeat("x", 36)
	if n := testing.AllocsPerRun(1000, func() { c.Add(app, 9001, 20000) }); n != 0 {
		t.Errorf("Add allocates %v times, want 0", n)
	}
}

func TestDay(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), "2026-11-26"},
		{time.Date(2026, 11, 26, 23, 59, 59, 0, time.UTC), "2026-11-26"},
		{time.Date(2026, 11, 27, 0, 30, 0, 0, time.FixedZone("x", 3600)), "2026-11-26"},
	} {
		got := time.Unix(int64(Day(tc.at))*86400, 0).UTC().Format(time.DateOnly)
		if got != tc.want {
			t.Errorf("Day(%v) = %s, want %s", tc.at, got, tc.want)
		}
	}
}

const appA = "5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a01"

// A batch that fails is sent again as it was (same edge and seq), before
// what was counted since, which waits for it.
func TestReporterRetriesTheSameBatch(t *testing.T) {
	var sent []wire.UsageBatch
	fail := true
	r := NewReporter(func(_ context.Context, body []byte) error {
		var b wire.UsageBatch
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, b)
		if fail {
			return errors.New("down")
		}
		return nil
	})
	r.Counter.Add(appA, 9001, Day(time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)))
	if err := r.Report(context.Background()); err == nil {
		t.Fatal("a failed post reported no error")
	}
	r.Counter.Add(appA, 9001, Day(time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)))
	fail = false
	if err := r.Report(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Report(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sent) != 3 {
		t.Fatalf("sent %d batches, want 3: %+v", len(sent), sent)
	}
	want := wire.UsageCount{App: appA, Bible: 9001, Day: "2026-11-26", Requests: 1}
	for i, b := range sent {
		wantSeq := int64(1)
		if i == 2 {
			wantSeq = 2
		}
		if b.Edge != r.Edge() || b.Seq != wantSeq || len(b.Counts) != 1 || b.Counts[0] != want {
			t.Errorf("batch %d = %+v, want edge %s seq %d %+v", i, b, r.Edge(), wantSeq, want)
		}
	}
	if r.Failed.Load() != 1 || r.Reported.Load() != 2 {
		t.Errorf("failed %d reported %d, want 1 and 2", r.Failed.Load(), r.Reported.Load())
	}
}

func TestReporterSplitsBatches(t *testing.T) {
	var sizes []int
	r := NewReporter(func(_ context.Context, body []byte) error {
		var b wire.UsageBatch
		json.Unmarshal(body, &b)
		sizes = append(sizes, len(b.Counts))
		return nil
	})
	for i := range 2500 {
		r.Counter.Add(fmt.Sprintf("5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e%04d", i%100), int32(i/100), 1)
	}
	if err := r.Report(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sizes, []int{1000, 1000, 500}) {
		t.Errorf("batch sizes %v, want [1000 1000 500]", sizes)
	}
}

// A batch refused for a day is given up, and the next one goes; an app
// whose id dynamic cannot take is never sent.
func TestReporterGivesUp(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	var seqs []int64
	refuse := true
	r := NewReporter(func(_ context.Context, body []byte) error {
		var b wire.UsageBatch
		json.Unmarshal(body, &b)
		seqs = append(seqs, b.Seq)
		if refuse {
			return errors.New("422")
		}
		return nil
	})
	r.Now = func() time.Time { return now }
	r.Counter.Add(appA, 9001, Day(now))
	r.Counter.Add(appA, 9001, Day(now))
	r.Counter.Add("not-a-uuid", 9001, Day(now))
	if err := r.Report(context.Background()); err == nil {
		t.Fatal("no error")
	}
	now = now.Add(MaxPendingAge - time.Minute)
	if err := r.Report(context.Background()); err == nil || strings.Contains(err.Error(), "gave up") {
		t.Fatalf("within a day: %v, want a failure kept for later", err)
	}
	now = now.Add(time.Minute)
	if err := r.Report(context.Background()); err == nil || !strings.Contains(err.Error(), "gave up") {
		t.Fatalf("after a day: %v, want the batch given up", err)
	}
	refuse = false
	r.Counter.Add(appA, 9002, Day(now))
	if err := r.Report(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seqs, []int64{1, 1, 1, 2}) || r.Abandoned.Load() != 3 || r.Reported.Load() != 1 {
		t.Errorf("sent %v, abandoned %d, reported %d; want [1 1 1 2], 3 (2 given up, 1 not a UUID), 1",
			seqs, r.Abandoned.Load(), r.Reported.Load())
	}
}
