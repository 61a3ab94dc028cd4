package s3store_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	s3store "github.com/bibleplatform/platform/publish/s3"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// The edge's store reads at catalogue scale: 16 KiB ranges (a pack's
// header probe, an entry) and whole objects of about 100 KiB (a chapter's
// pack), from many connections at once. MinIO runs in another process on
// the same machine, so ns/op counts its work as well; cpu-ns/op is this
// process's own CPU (user and system) an op, the figure a store read
// costs the edge.

func BenchmarkGetRange(b *testing.B) {
	s, keys := benchStore(b, 16, 256<<10)
	const n = 16 << 10
	benchParallel(b, n, func(ctx context.Context, i int) error {
		off := int64(i*4099) % (256<<10 - n)
		got, err := s.GetRange(ctx, keys[i%len(keys)], off, n)
		if err == nil && len(got) != n {
			err = fmt.Errorf("GetRange: %d bytes, want %d", len(got), n)
		}
		return err
	})
}

func BenchmarkGet(b *testing.B) {
	const n = 100 << 10
	s, keys := benchStore(b, 16, n)
	benchParallel(b, n, func(ctx context.Context, i int) error {
		got, err := s.Get(ctx, keys[i%len(keys)])
		if err == nil && len(got) != n {
			err = fmt.Errorf("Get: %d bytes, want %d", len(got), n)
		}
		return err
	})
}

func benchStore(b *testing.B, count, size int) (*s3store.Store, []string) {
	srv := s3test.Shared(b)
	s := srv.Store(b, "bench")
	ctx := context.Background()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	keys := make([]string, count)
	for i := range keys {
		keys[i] = fmt.Sprintf("packs/bench%02d", i)
		if err := s.Put(ctx, keys[i], data); err != nil {
			b.Fatal(err)
		}
	}
	return s, keys
}

// benchParallel runs read from 4 goroutines a CPU (the edge has several
// requests waiting on the store at once) and reports this process's CPU an
// op.
func benchParallel(b *testing.B, bytesPerOp int64, read func(ctx context.Context, i int) error) {
	ctx := context.Background()
	b.SetBytes(bytesPerOp)
	b.SetParallelism(4)
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if err := read(ctx, i); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
