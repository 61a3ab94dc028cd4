package s3store_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/bibleplatform/platform/publish"
	s3store "github.com/bibleplatform/platform/publish/s3"
	"github.com/bibleplatform/platform/publish/s3/s3test"
	"github.com/bibleplatform/platform/publish/storetest"
)

func TestConformance(t *testing.T) {
	srv := s3test.Shared(t)
	for _, prefix := range []string{"", "site/prod"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) publish.Store { return srv.Store(t, prefix) })
		})
	}
}

func TestParseURL(t *testing.T) {
	for _, c := range []struct {
		in   string
		want s3store.Config
	}{
		{"s3://bucket", s3store.Config{Bucket: "bucket", Secure: true}},
		{"s3://bucket/", s3store.Config{Bucket: "bucket", Secure: true}},
		{"s3://bucket/a/b", s3store.Config{Bucket: "bucket", Prefix: "a/b", Secure: true}},
		{"s3://b/p?endpoint=127.0.0.1:9000&secure=false&region=us-east-1",
			s3store.Config{Bucket: "b", Prefix: "p", Endpoint: "127.0.0.1:9000", Region: "us-east-1"}},
		{"s3://b?lookup=path&retries=5", s3store.Config{Bucket: "b", Secure: true, PathStyle: true, Retries: 5}},
	} {
		got, err := s3store.ParseURL(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
			continue
		}
		back, err := s3store.ParseURL(got.String())
		if err != nil || back != got {
			t.Errorf("ParseURL(%q).String() = %q, which parses to %+v, %v", c.in, got.String(), back, err)
		}
	}
	for _, in := range []string{
		"", "/srv/store", "http://b/p", "s3://", "s3:///p",
		"s3://key:secret@b/p",        // credentials come from the environment
		"s3://b/a/../b",              // not a well-formed prefix
		"s3://b?secure=maybe",        // not a bool
		"s3://b?endpont=x",           // misspelt option
		"s3://b?region=a&region=b",   // ambiguous
		"s3://b?retries=0",           // out of range
		"s3://b?lookup=virtual-host", // unknown lookup
	} {
		if got, err := s3store.ParseURL(in); err == nil {
			t.Errorf("ParseURL(%q) = %+v; want an error", in, got)
		}
	}
}

// TestLayout pins where objects and the pointer live in the bucket, which
// operators (lifecycle rules, CDN origins, backups) depend on, and that
// foreign objects under the prefix do not show up as keys.
func TestLayout(t *testing.T) {
	srv := s3test.Shared(t)
	ctx := context.Background()
	bucket := srv.NewBucket(t)
	cfg, err := s3store.ParseURL(srv.URL(bucket, "prod"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := s3store.New(cfg, srv.Creds())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "packs/abc", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCurrent(ctx, "b1"); err != nil {
		t.Fatal(err)
	}
	c, err := minio.New(srv.Endpoint, &minio.Options{Creds: srv.Creds()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, bucket, "prod/objects/bad key", strings.NewReader("y"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		got = append(got, o.Key)
	}
	if want := "prod/CURRENT prod/objects/bad key prod/objects/packs/abc"; strings.Join(got, " ") != want {
		t.Errorf("bucket holds %q; want %q", got, want)
	}
	keys, err := s.List(ctx, "")
	if err != nil || strings.Join(keys, " ") != "packs/abc" {
		t.Errorf("List = %q, %v; want [packs/abc]", keys, err)
	}
}

// TestErrors checks the translation at the adapter boundary: callers test
// errors with errors.Is, never with S3 codes.
func TestErrors(t *testing.T) {
	srv := s3test.Shared(t)
	ctx := context.Background()
	open := func(t *testing.T, bucket, key, secret string) *s3store.Store {
		cfg, err := s3store.ParseURL(srv.URL(bucket, ""))
		if err != nil {
			t.Fatal(err)
		}
		s, err := s3store.New(cfg, credentials.NewStaticV4(key, secret, ""))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	bucket := srv.NewBucket(t)
	for _, c := range []struct {
		name    string
		store   *s3store.Store
		want    error
		notWant error
	}{
		{"wrong secret", open(t, bucket, srv.AccessKey, "not-the-secret"), fs.ErrPermission, fs.ErrNotExist},
		{"unknown key id", open(t, bucket, "nobody", "whatever-secret"), fs.ErrPermission, fs.ErrNotExist},
		// A missing bucket must not read as "no current build yet".
		{"missing bucket", open(t, "no-such-bucket-here", srv.AccessKey, srv.SecretKey), s3store.ErrNoBucket, fs.ErrNotExist},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.store.Current(ctx); !errors.Is(err, c.want) || errors.Is(err, c.notWant) {
				t.Errorf("Current: %v; want %v", err, c.want)
			}
			if _, err := c.store.Get(ctx, "k"); !errors.Is(err, c.want) || errors.Is(err, c.notWant) {
				t.Errorf("Get: %v; want %v", err, c.want)
			}
			if err := c.store.Put(ctx, "k", []byte("x")); !errors.Is(err, c.want) {
				t.Errorf("Put: %v; want %v", err, c.want)
			}
		})
	}
}

// TestEnsureBucketCreatesBucket checks NewURL and EnsureBucket against the
// environment's credential chain, as the publish and edge binaries use
// them.
func TestEnsureBucketCreatesBucket(t *testing.T) {
	srv := s3test.Shared(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	ctx := context.Background()
	bucket := srv.NewBucket(t) + "-open" // NewBucket's cleanup does not cover it
	s, err := open(ctx, srv.URL(bucket, "p"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, _ := minio.New(srv.Endpoint, &minio.Options{Creds: srv.Creds()})
		c.RemoveBucketWithOptions(context.Background(), bucket, minio.RemoveBucketOptions{ForceDelete: true})
	})
	if _, err := s.Current(ctx); !publish.IsNotExist(err) {
		t.Fatalf("Current on a new bucket: %v; want fs.ErrNotExist", err)
	}
	if err := s.SetCurrent(ctx, "b1"); err != nil {
		t.Fatal(err)
	}
	// Opening again finds the bucket and the pointer.
	s2, err := open(ctx, srv.URL(bucket, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s2.Current(ctx); err != nil || got != "b1" {
		t.Errorf("Current = %q, %v; want b1", got, err)
	}
}

// open is what the binaries do with an s3:// URL (cmd/internal/storeurl).
func open(ctx context.Context, rawURL string) (*s3store.Store, error) {
	s, err := s3store.NewURL(rawURL)
	if err != nil {
		return nil, err
	}
	return s, s.EnsureBucket(ctx)
}

// TestGetRangePastTheEnd: S3 answers a range that runs past the end with
// the bytes it has, and one that starts past the end with 416; both must be
// the Store's "past the end" error, never a short read or "no such key".
func TestGetRangePastTheEnd(t *testing.T) {
	srv := s3test.Shared(t)
	ctx := context.Background()
	s := srv.Store(t, "")
	if err := s.Put(ctx, "r", []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ off, n int64 }{{9, 2}, {10, 1}, {20, 1}, {20, 0}, {-1, 1}, {0, -1}} {
		got, err := s.GetRange(ctx, "r", c.off, c.n)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("GetRange(%d, %d) = %q, %v; want a past-the-end error", c.off, c.n, got, err)
		}
		if c.off >= 0 && c.n >= 0 && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("GetRange(%d, %d): %v; want io.ErrUnexpectedEOF, as the directory store", c.off, c.n, err)
		}
	}
	if got, err := s.GetRange(ctx, "r", 10, 0); err != nil || len(got) != 0 {
		t.Errorf("GetRange(10, 0) = %q, %v; want empty", got, err)
	}
}
