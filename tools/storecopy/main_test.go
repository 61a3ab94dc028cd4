package main

import (
	"context"
	"slices"
	"testing"

	"github.com/bibleplatform/platform/publish"
	s3store "github.com/bibleplatform/platform/publish/s3"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// TestCopy copies a directory store to a real MinIO: every object and the
// current build arrive; a second copy of the same build writes nothing; a
// copy of a new build uploads only what the bucket lacks.
func TestCopy(t *testing.T) {
	srv := s3test.Shared(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	ctx := context.Background()
	dir := t.TempDir()
	src, err := publish.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	put := func(key, body string) {
		t.Helper()
		if err := src.Put(ctx, key, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	put("packs/aa", "first pack")
	put("packs/bb", "second pack")
	put("builds/b1.json", "{}")
	put(publish.LeaseKey, "{}") // the source's own, never copied
	if err := src.SetCurrent(ctx, "b1"); err != nil {
		t.Fatal(err)
	}
	url := srv.URL(srv.NewBucket(t), "copy")

	check := func(build string, keys ...string) {
		t.Helper()
		s, err := s3store.NewURL(url)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.Current(ctx); err != nil || got != build {
			t.Fatalf("current build = %q, %v; want %q", got, err, build)
		}
		got, err := s.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, keys) {
			t.Fatalf("objects = %v, want %v", got, keys)
		}
		for _, k := range keys {
			want, _ := src.Get(ctx, k)
			b, err := s.Get(ctx, k)
			if err != nil || string(b) != string(want) {
				t.Fatalf("%s = %q, %v; want %q", k, b, err, want)
			}
		}
	}
	for _, tc := range []struct {
		name          string
		prepare       func()
		build         string
		keys          []string
		uploaded, had int
	}{
		{"first copy", func() {}, "b1", []string{"builds/b1.json", "packs/aa", "packs/bb"}, 3, 0},
		{"same build again", func() {}, "b1", []string{"builds/b1.json", "packs/aa", "packs/bb"}, 0, 0},
		{"a new build", func() {
			put("packs/cc", "third pack")
			put("builds/b2.json", "{}")
			if err := src.SetCurrent(ctx, "b2"); err != nil {
				t.Fatal(err)
			}
		}, "b2", []string{"builds/b1.json", "builds/b2.json", "packs/aa", "packs/bb", "packs/cc"}, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.prepare()
			rep, err := run(ctx, dir, url, 4)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Uploaded != tc.uploaded || rep.skipped != tc.had {
				t.Errorf("uploaded %d, skipped %d; want %d, %d", rep.Uploaded, rep.skipped, tc.uploaded, tc.had)
			}
			check(tc.build, tc.keys...)
		})
	}
}
