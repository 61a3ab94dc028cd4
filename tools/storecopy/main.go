// Command storecopy copies a published directory store to S3 (MinIO in
// make bench-scale): every object (but the writer lease), then the current
// build pointer, so that the bucket serves the same build without
// rendering it again. Objects the bucket already holds are skipped (keys
// are content addresses), so an interrupted copy resumes; the pointer
// moves only once every object has landed (publish.Uploader).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/bibleplatform/platform/publish"
	s3store "github.com/bibleplatform/platform/publish/s3"
)

func main() {
	from := flag.String("from", "", "published directory store to copy")
	to := flag.String("to", "", "s3://bucket[/prefix]?endpoint=… (credentials from the environment)")
	parallel := flag.Int("parallel", 16, "uploads in flight")
	flag.Parse()
	if *from == "" || *to == "" {
		fmt.Fprintln(os.Stderr, "usage: storecopy -from DIR -to s3://bucket/prefix?endpoint=host:port&secure=false")
		os.Exit(2)
	}
	rep, err := run(context.Background(), *from, *to, *parallel)
	if err != nil {
		log.Fatal(err)
	}
	log.Print(rep)
}

// copyReport says what a copy did.
type copyReport struct {
	publish.SyncReport
	skipped int // objects the bucket already held
	to      string
	build   string
	took    time.Duration
}

func (r copyReport) String() string {
	if r.Uploaded == 0 && r.skipped == 0 {
		return fmt.Sprintf("%s already serves build %s", r.to, r.build)
	}
	return fmt.Sprintf("%s: build %s current; %s, %d already there, in %s", r.to, r.build, r.SyncReport, r.skipped, r.took.Round(time.Second))
}

// run copies the current build of the directory store from to the S3 store
// to, unless to already serves it.
func run(ctx context.Context, from, to string, parallel int) (copyReport, error) {
	rep := copyReport{}
	src, err := publish.OpenDir(from)
	if err != nil {
		return rep, err
	}
	build, err := src.Current(ctx)
	if err != nil {
		return rep, fmt.Errorf("%s: current build: %w", from, err)
	}
	dst, err := s3store.NewURL(to)
	if err != nil {
		return rep, err
	}
	if err := dst.EnsureBucket(ctx); err != nil {
		return rep, err
	}
	rep.to, rep.build = dst.String(), build
	if cur, err := dst.Current(ctx); err == nil && cur == build {
		return rep, nil
	}
	keys, err := src.List(ctx, "")
	if err != nil {
		return rep, fmt.Errorf("list %s: %w", from, err)
	}
	have, err := dst.List(ctx, "")
	if err != nil {
		return rep, fmt.Errorf("list %s: %w", dst, err)
	}
	there := make(map[string]bool, len(have))
	for _, k := range have {
		there[k] = true
	}
	t0 := time.Now()
	u := publish.NewUploader(ctx, dst, publish.SyncOptions{Parallel: parallel})
	for _, k := range keys {
		if k == publish.LeaseKey {
			continue // the source's writer lease: not this bucket's
		}
		if there[k] {
			rep.skipped++
			continue
		}
		data, err := src.Get(ctx, k)
		if err != nil {
			return rep, fmt.Errorf("read %s: %w", k, err)
		}
		if err := u.Put(ctx, k, data); err != nil {
			return rep, fmt.Errorf("upload %s: %w", k, err)
		}
	}
	if err := u.SetCurrent(ctx, build); err != nil {
		return rep, err
	}
	rep.SyncReport, err = u.Wait(ctx)
	rep.took = time.Since(t0)
	return rep, err
}
