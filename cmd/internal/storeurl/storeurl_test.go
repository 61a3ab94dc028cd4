package storeurl

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/publish"
	s3store "github.com/bibleplatform/platform/publish/s3"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		in      string
		wantDir string // "" for an error
	}{
		{filepath.Join(dir, "a"), filepath.Join(dir, "a")},
		{"file://" + filepath.Join(dir, "b"), filepath.Join(dir, "b")},
		{"", ""},
		{"s4://bucket/p", ""},
		{"s3://bucket/../p", ""},
	} {
		st, err := Open(ctx, c.in)
		if c.wantDir == "" {
			if err == nil {
				t.Errorf("Open(%q) = %T; want an error", c.in, st)
			}
			continue
		}
		d, ok := st.(*publish.Dir)
		if err != nil || !ok || d.Root() != c.wantDir {
			t.Errorf("Open(%q) = %#v, %v; want a directory store at %s", c.in, st, err, c.wantDir)
		}
	}
}

func TestOpenS3(t *testing.T) {
	srv := s3test.Shared(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	ctx := context.Background()
	st, err := Open(ctx, srv.URL(srv.NewBucket(t), "prod"))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := st.(*s3store.Store)
	if !ok || s.Config().Prefix != "prod" {
		t.Fatalf("Open = %#v; want an S3 store with prefix prod", st)
	}
	if err := st.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(ctx, "k"); err != nil || string(got) != "v" {
		t.Errorf("Get = %q, %v; want v", got, err)
	}
}
