package s3store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// TestPublishSurvivesOutage stops MinIO in the middle of a publish: the
// switch must not happen, the previous build must stay current, and a rerun
// once MinIO is back must upload only what did not land.
func TestPublishSurvivesOutage(t *testing.T) {
	srv := s3test.Start(t) // its own server: this test stops it
	ctx := context.Background()
	s := srv.Store(t, "prod")
	if err := s.SetCurrent(ctx, "previous"); err != nil {
		t.Fatal(err)
	}
	type object struct {
		Key  string
		Data []byte
	}
	var objs []object
	for i := 0; i < 300; i++ {
		data := bytes.Repeat([]byte(fmt.Sprintf("object %d;", i)), 2000)
		sum := sha256.Sum256(data)
		objs = append(objs, object{Key: "packs/" + hex.EncodeToString(sum[:20]), Data: data})
	}

	w := s3test.NewStopAfter(s, 40, func() { srv.Stop(t) })
	u := publish.NewUploader(ctx, w, publish.SyncOptions{Parallel: 4, Attempts: 2, Backoff: 10 * time.Millisecond})
	for _, o := range objs {
		if err := u.Put(ctx, o.Key, o.Data); err != nil {
			break // uploads have started failing: the publish gives up
		}
	}
	err := u.SetCurrent(ctx, "next")
	<-w.Stopped
	if err == nil {
		t.Fatal("SetCurrent succeeded although MinIO went down mid-publish")
	}
	if errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an outage reads as a missing object: %v", err)
	}
	landed := int(w.Landed())
	t.Logf("%d of %d objects landed before the outage; publish failed with: %.200v", landed, len(objs), err)

	srv.Restart(t)
	if cur, err := s.Current(ctx); err != nil || cur != "previous" {
		t.Fatalf("after the failed publish Current = %q, %v; want previous", cur, err)
	}
	// The rerun (the build skips what landed by its own Stat) publishes
	// everything and switches.
	u = publish.NewUploader(ctx, s, publish.SyncOptions{})
	for _, o := range objs {
		if _, err := s.Stat(ctx, o.Key); err == nil {
			continue
		}
		if err := u.Put(ctx, o.Key, o.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.SetCurrent(ctx, "next"); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		got, err := s.Get(ctx, o.Key)
		if err != nil || !bytes.Equal(got, o.Data) {
			t.Fatalf("Get(%s): %d bytes, %v; want %d bytes", o.Key, len(got), err, len(o.Data))
		}
	}
	if cur, err := s.Current(ctx); err != nil || cur != "next" {
		t.Errorf("Current = %q, %v; want next", cur, err)
	}
}
