package storeurl

import (
	"context"
	"net"
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
		for name, open := range map[string]func(string) (publish.Store, error){
			"Open":     func(s string) (publish.Store, error) { return Open(ctx, s) },
			"OpenLazy": OpenLazy,
		} {
			st, err := open(c.in)
			if c.wantDir == "" {
				if err == nil {
					t.Errorf("%s(%q) = %T; want an error", name, c.in, st)
				}
				continue
			}
			d, ok := st.(*publish.Dir)
			if err != nil || !ok || d.Root() != c.wantDir {
				t.Errorf("%s(%q) = %#v, %v; want a directory store at %s", name, c.in, st, err, c.wantDir)
			}
		}
	}
}

// TestOpenLazyMakesNoRequest: with nothing listening at the endpoint,
// Open fails (it checks the bucket) and OpenLazy returns the store, whose
// first read then fails as an outage, not as a missing object.
func TestOpenLazyMakesNoRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a port known to be free: connections are refused
	t.Setenv("AWS_ACCESS_KEY_ID", "k")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secretsecret")
	url := "s3://bucket/prod?endpoint=" + addr + "&secure=false&retries=1"
	ctx := context.Background()
	if st, err := Open(ctx, url); err == nil {
		t.Fatalf("Open(%s) = %v with nothing listening; want an error", url, st)
	}
	st, err := OpenLazy(url)
	if err != nil {
		t.Fatalf("OpenLazy(%s): %v", url, err)
	}
	if s, ok := st.(*s3store.Store); !ok || s.Config().Prefix != "prod" || s.Config().Endpoint != addr {
		t.Fatalf("OpenLazy = %#v; want an S3 store at %s with prefix prod", st, addr)
	}
	if _, err := st.Current(ctx); err == nil || publish.IsNotExist(err) {
		t.Errorf("Current with nothing listening = %v; want an error that is not fs.ErrNotExist", err)
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
