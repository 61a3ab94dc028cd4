// Package storeurl opens the publish.Store a --store flag names: a
// directory path for the local store, or an s3:// URL. It lives in cmd/
// because it is wiring: it is the one place that picks an adapter.
package storeurl

import (
	"context"
	"fmt"
	"strings"

	"github.com/bibleplatform/platform/publish"
	s3store "github.com/bibleplatform/platform/publish/s3"
)

// Open opens the store s names:
//
//	s3://bucket[/prefix][?endpoint=host:port&secure=false&region=…]
//	                     S3 or MinIO; credentials from AWS_ACCESS_KEY_ID /
//	                     AWS_SECRET_ACCESS_KEY (or MINIO_ROOT_USER /
//	                     MINIO_ROOT_PASSWORD), the AWS credentials file, or
//	                     an instance role
//	file:///path, path   a local directory (created if needed)
//
// An S3 bucket is checked, and created if missing, before Open returns:
// a publisher wants to fail at once on a wrong endpoint or key.
func Open(ctx context.Context, s string) (publish.Store, error) {
	return open(s, func(st *s3store.Store) error { return st.EnsureBucket(ctx) })
}

// OpenLazy opens the store s names (as Open reads it) without a request
// to S3: the bucket is neither checked nor created, and the first read
// is the first contact. An edge opens its store this way so that it
// starts, and serves from its disk cache, while S3 is unreachable; its
// readiness reports whether the store answers.
func OpenLazy(s string) (publish.Store, error) {
	return open(s, nil)
}

// open parses s once for both; check, when set, runs against an S3 store
// before it is returned.
func open(s string, check func(*s3store.Store) error) (publish.Store, error) {
	switch {
	case s == "":
		return nil, fmt.Errorf("open store: no location given")
	case strings.HasPrefix(s, "s3://"):
		st, err := s3store.NewURL(s)
		if err == nil && check != nil {
			err = check(st)
		}
		if err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
		return st, nil
	case strings.HasPrefix(s, "file://"):
		return publish.OpenDir(strings.TrimPrefix(s, "file://"))
	case strings.Contains(s, "://"):
		// A typo such as s4:// must not become a directory named "s4:".
		return nil, fmt.Errorf("open store %q: unknown scheme (want a directory path or s3://)", s)
	}
	return publish.OpenDir(s)
}
