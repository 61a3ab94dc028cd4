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
func Open(ctx context.Context, s string) (publish.Store, error) {
	switch {
	case s == "":
		return nil, fmt.Errorf("open store: no location given")
	case strings.HasPrefix(s, "s3://"):
		st, err := s3store.Open(ctx, s)
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
