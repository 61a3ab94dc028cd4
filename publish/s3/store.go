// Package s3store is the publish.Store on S3 (AWS S3, MinIO or any
// S3-compatible service) through minio-go. It is the only package besides
// cmd/ that imports minio-go: S3 errors are translated here, at the adapter
// boundary, into the errors the rest of the platform understands
// (fs.ErrNotExist, fs.ErrPermission).
//
// Layout in the bucket mirrors the directory store: objects live under
// <prefix>/objects/<key> and the current build pointer is the small object
// <prefix>/CURRENT. A PUT in S3 replaces an object whole (readers see the
// old bytes or the new ones), so Put and SetCurrent are atomic without any
// locking of our own.
package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/bibleplatform/platform/publish"
)

// Config says where a store lives. ParseURL fills it from an s3:// URL.
type Config struct {
	Bucket   string
	Prefix   string // "" or a well-formed key, without slashes at either end
	Endpoint string // host[:port]; s3.amazonaws.com when empty
	Secure   bool   // https
	Region   string
	// PathStyle forces path-style requests (http://host/bucket/key), which
	// most self-hosted S3 services need when they have no wildcard DNS.
	// minio-go already picks path style for IP endpoints and non-AWS hosts.
	PathStyle bool
	// Retries is how many times minio-go tries a request; 0 means 3
	// (defaultRetries). Kept low because callers that want persistence (the
	// uploader) retry with their own backoff, and the edge would rather
	// serve from its cache than wait out ten attempts against a store that
	// is down.
	Retries int
}

// defaultRetries is Config.Retries when it is zero.
const defaultRetries = 3

// ParseURL parses s3://bucket[/prefix][?endpoint=host:port&secure=false&
// region=…&lookup=path&retries=N].
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("s3 store url %q: %w", raw, err)
	}
	if u.Scheme != "s3" {
		return Config{}, fmt.Errorf("s3 store url %q: scheme must be s3", raw)
	}
	if u.User != nil || u.Fragment != "" {
		// Credentials in a URL end up in shell history and logs; they come
		// from the environment instead.
		return Config{}, fmt.Errorf("s3 store url %q: credentials and fragments are not accepted in the url (use AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)", raw)
	}
	c := Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), Secure: true}
	if c.Bucket == "" {
		return Config{}, fmt.Errorf("s3 store url %q: no bucket", raw)
	}
	if c.Prefix != "" {
		if err := publish.CheckKey(c.Prefix); err != nil {
			return Config{}, fmt.Errorf("s3 store url %q: prefix: %w", raw, err)
		}
	}
	q := u.Query()
	for k, v := range q {
		if len(v) != 1 {
			return Config{}, fmt.Errorf("s3 store url %q: %s given %d times", raw, k, len(v))
		}
		switch val := v[0]; k {
		case "endpoint":
			c.Endpoint = val
		case "region":
			c.Region = val
		case "secure":
			b, err := strconv.ParseBool(val)
			if err != nil {
				return Config{}, fmt.Errorf("s3 store url %q: secure=%q: want true or false", raw, val)
			}
			c.Secure = b
		case "lookup":
			switch val {
			case "path":
				c.PathStyle = true
			case "auto", "":
			default:
				return Config{}, fmt.Errorf("s3 store url %q: lookup=%q: want path or auto", raw, val)
			}
		case "retries":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > 20 {
				return Config{}, fmt.Errorf("s3 store url %q: retries=%q: want 1 to 20", raw, val)
			}
			c.Retries = n
		default:
			// A misspelt option silently ignored would point a publish at
			// the wrong place; refuse it.
			return Config{}, fmt.Errorf("s3 store url %q: unknown option %q", raw, k)
		}
	}
	return c, nil
}

// String is the URL ParseURL reads back into c (credentials are never part
// of it).
func (c Config) String() string {
	u := url.URL{Scheme: "s3", Host: c.Bucket, Path: "/" + c.Prefix}
	q := url.Values{}
	if c.Endpoint != "" {
		q.Set("endpoint", c.Endpoint)
	}
	if !c.Secure {
		q.Set("secure", "false")
	}
	if c.Region != "" {
		q.Set("region", c.Region)
	}
	if c.PathStyle {
		q.Set("lookup", "path")
	}
	if c.Retries != 0 {
		q.Set("retries", strconv.Itoa(c.Retries))
	}
	u.RawQuery = q.Encode()
	if c.Prefix == "" {
		u.Path = ""
	}
	return u.String()
}

// credentialChain is the chain the store signs with, first that has a key
// wins: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN),
// MINIO_ROOT_USER / MINIO_ROOT_PASSWORD (or MINIO_ACCESS_KEY /
// MINIO_SECRET_KEY), the shared AWS credentials file, then an EC2/ECS
// instance role.
func credentialChain() *credentials.Credentials {
	return credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.EnvMinio{},
		&credentials.FileAWSCredentials{},
		&credentials.IAM{},
	})
}

// Store is a publish.Store in an S3 bucket.
type Store struct {
	c *minio.Client
	// core reads objects: its GetObject hands back the response body,
	// where the Client's wraps it in an Object that serves every Read
	// through a goroutine of its own and channels, which costs a store
	// read more CPU than the request itself.
	core   minio.Core
	cfg    Config
	prefix string // cfg.Prefix + "/", or ""
}

var _ publish.Store = (*Store)(nil)

// New returns a store for cfg without contacting the service, so that a
// process can start (and serve from its caches) while S3 is unreachable.
func New(cfg Config, creds *credentials.Credentials) (*Store, error) {
	if cfg.Endpoint == "" {
		cfg.Endpoint = "s3.amazonaws.com"
	}
	if cfg.Retries == 0 {
		cfg.Retries = defaultRetries
	}
	if creds == nil {
		creds = credentialChain()
	}
	opts := &minio.Options{
		Creds:      creds,
		Secure:     cfg.Secure,
		Region:     cfg.Region,
		MaxRetries: cfg.Retries,
	}
	if cfg.PathStyle {
		opts.BucketLookup = minio.BucketLookupPath
	}
	c, err := minio.New(cfg.Endpoint, opts)
	if err != nil {
		return nil, fmt.Errorf("s3 store %s: %w", cfg, err)
	}
	s := &Store{c: c, core: minio.Core{Client: c}, cfg: cfg}
	if cfg.Prefix != "" {
		s.prefix = cfg.Prefix + "/"
	}
	return s, nil
}

// NewURL parses an s3:// URL and returns a store signing with the
// environment's credentials (as New with nil), without contacting the
// service.
func NewURL(rawURL string) (*Store, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return New(cfg, nil)
}

// EnsureBucket creates the bucket if it does not exist (as OpenDir creates
// its directory).
func (s *Store) EnsureBucket(ctx context.Context) error {
	ok, err := s.c.BucketExists(ctx, s.cfg.Bucket)
	if err != nil {
		return fmt.Errorf("s3 store %s: check bucket: %w", s.cfg, translate(err))
	}
	if ok {
		return nil
	}
	err = s.c.MakeBucket(ctx, s.cfg.Bucket, minio.MakeBucketOptions{Region: s.cfg.Region})
	if err != nil {
		// Another publisher may have created it between the two calls.
		if code := minio.ToErrorResponse(err).Code; code == minio.BucketAlreadyOwnedByYou {
			return nil
		}
		return fmt.Errorf("s3 store %s: create bucket: %w", s.cfg, translate(err))
	}
	return nil
}

// Config is the configuration the store was made with.
func (s *Store) Config() Config { return s.cfg }

// String names the store for logs.
func (s *Store) String() string { return s.cfg.String() }

func (s *Store) object(key string) (string, error) {
	if err := publish.CheckKey(key); err != nil {
		return "", fmt.Errorf("%w: %q", err, key)
	}
	return s.prefix + "objects/" + key, nil
}

func (s *Store) currentName() string { return s.prefix + "CURRENT" }

// Put uploads data in one request for objects up to minio-go's part size
// (and as a multipart upload beyond, which S3 also makes visible only when
// complete).
func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	name, err := s.object(key)
	if err != nil {
		return err
	}
	return s.put(ctx, key, name, data)
}

func (s *Store) put(ctx context.Context, key, name string, data []byte) error {
	_, err := s.c.PutObject(ctx, s.cfg.Bucket, name, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: "application/octet-stream", SendContentMd5: true})
	if err != nil {
		return &fs.PathError{Op: "put", Path: key, Err: translate(err)}
	}
	return nil
}

// PutIfAbsent writes key with If-None-Match: *, which S3 (since 2024) and
// MinIO apply atomically: of two such PUTs of one key, one gets 412
// Precondition Failed, returned as fs.ErrExist.
func (s *Store) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	name, err := s.object(key)
	if err != nil {
		return err
	}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream", SendContentMd5: true}
	opts.SetMatchETagExcept("*")
	_, err = s.c.PutObject(ctx, s.cfg.Bucket, name, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		if minio.ToErrorResponse(err).Code == minio.PreconditionFailed {
			return &fs.PathError{Op: "put if absent", Path: key, Err: fs.ErrExist}
		}
		return &fs.PathError{Op: "put if absent", Path: key, Err: translate(err)}
	}
	return nil
}

var _ publish.Conditional = (*Store)(nil)

// Get reads a whole object.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	name, err := s.object(key)
	if err != nil {
		return nil, err
	}
	return s.get(ctx, key, name)
}

func (s *Store) get(ctx context.Context, key, name string) ([]byte, error) {
	return s.appendGet(ctx, key, name, nil)
}

// AppendGet appends the object's bytes to dst (publish.Appender), in place
// when they fit in its spare capacity.
func (s *Store) AppendGet(ctx context.Context, key string, dst []byte) ([]byte, error) {
	name, err := s.object(key)
	if err != nil {
		return dst, err
	}
	return s.appendGet(ctx, key, name, dst)
}

func (s *Store) appendGet(ctx context.Context, key, name string, dst []byte) ([]byte, error) {
	body, info, _, err := s.core.GetObject(ctx, s.cfg.Bucket, name, minio.GetObjectOptions{})
	if err != nil {
		return dst, &fs.PathError{Op: "get", Path: key, Err: translate(err)}
	}
	defer body.Close()
	b := dst
	if info.Size >= 0 {
		// Content-Length sizes the buffer once, where io.ReadAll would
		// grow it by doubling (and copying) up to the object's size.
		b = slices.Grow(dst, int(info.Size))[:len(dst)+int(info.Size)]
		if _, err = io.ReadFull(body, b[len(dst):]); err == nil {
			err = atEOF(body)
		}
	} else {
		var rest []byte
		if rest, err = io.ReadAll(body); err == nil {
			b = append(dst, rest...)
		}
	}
	if err != nil {
		return dst, &fs.PathError{Op: "get", Path: key, Err: translate(err)}
	}
	return b, nil
}

// atEOF reports an error unless body has nothing left. Reading up to the
// end also lets net/http keep the connection: a body closed before its
// end costs the next request a new one.
func atEOF(body io.Reader) error {
	var one [1]byte
	n, err := body.Read(one[:])
	switch {
	case n > 0:
		return errLongBody
	case err == io.EOF:
		return nil
	case err == nil:
		// A Read may return 0, nil; one more decides.
		if n, err = body.Read(one[:]); n > 0 {
			return errLongBody
		} else if err == io.EOF {
			return nil
		}
	}
	return err
}

var errLongBody = errors.New("s3 store: the answer is longer than its Content-Length or range")

// GetRange reads n bytes at off with one ranged GET. S3 answers a range
// that runs past the end with the bytes it has, so a short answer is
// turned into the error the Store contract promises.
func (s *Store) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("get %s: negative range", key)
	}
	buf := make([]byte, n)
	if err := s.ReadRange(ctx, key, off, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// ReadRange reads len(b) bytes of key at off into b (publish.RangeReader),
// without a buffer of its own.
func (s *Store) ReadRange(ctx context.Context, key string, off int64, b []byte) error {
	name, err := s.object(key)
	if err != nil {
		return err
	}
	n := int64(len(b))
	if off < 0 {
		return fmt.Errorf("get %s: negative range", key)
	}
	if n == 0 {
		// HTTP cannot express an empty range; check the object and the
		// offset instead, so that missing keys and bad offsets still fail.
		size, err := s.Stat(ctx, key)
		if err != nil {
			return err
		}
		if off > size {
			return fmt.Errorf("get %s [%d,+0): past the end: %w", key, off, io.ErrUnexpectedEOF)
		}
		return nil
	}
	var opts minio.GetObjectOptions
	if err := opts.SetRange(off, off+n-1); err != nil {
		return fmt.Errorf("get %s: %w", key, err)
	}
	body, _, _, err := s.core.GetObject(ctx, s.cfg.Bucket, name, opts)
	if err != nil {
		if minio.ToErrorResponse(err).Code == minio.InvalidRange {
			return fmt.Errorf("get %s [%d,+%d): past the end: %w", key, off, n, io.ErrUnexpectedEOF)
		}
		return &fs.PathError{Op: "get", Path: key, Err: translate(err)}
	}
	defer body.Close()
	got, err := io.ReadFull(body, b)
	if err == nil {
		err = atEOF(body)
	}
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return fmt.Errorf("get %s [%d,+%d): past the end (got %d bytes): %w", key, off, n, got, io.ErrUnexpectedEOF)
	case err != nil:
		return &fs.PathError{Op: "get", Path: key, Err: translate(err)}
	}
	return nil
}

// Stat reports an object's size with a HEAD request.
func (s *Store) Stat(ctx context.Context, key string) (int64, error) {
	name, err := s.object(key)
	if err != nil {
		return 0, err
	}
	info, err := s.c.StatObject(ctx, s.cfg.Bucket, name, minio.StatObjectOptions{})
	if err != nil {
		return 0, &fs.PathError{Op: "stat", Path: key, Err: translate(err)}
	}
	return info.Size, nil
}

// List returns the keys under prefix, sorted. S3 lists keys in UTF-8 binary
// order, which for our ASCII keys is the order sort.Strings gives.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	base := s.prefix + "objects/"
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops minio-go's listing goroutine if we return early
	var keys []string
	for info := range s.c.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: base + prefix, Recursive: true}) {
		if info.Err != nil {
			return nil, fmt.Errorf("list %q: %w", prefix, translate(info.Err))
		}
		k := strings.TrimPrefix(info.Key, base)
		if publish.CheckKey(k) != nil {
			continue // written by something else; not an object of ours
		}
		keys = append(keys, k)
	}
	return keys, ctx.Err()
}

// Delete removes an object; S3 answers 204 for a missing key too.
func (s *Store) Delete(ctx context.Context, key string) error {
	name, err := s.object(key)
	if err != nil {
		return err
	}
	if err := s.c.RemoveObject(ctx, s.cfg.Bucket, name, minio.RemoveObjectOptions{}); err != nil {
		if err := translate(err); !errors.Is(err, fs.ErrNotExist) {
			return &fs.PathError{Op: "delete", Path: key, Err: err}
		}
	}
	return nil
}

// Current returns the id in <prefix>/CURRENT.
func (s *Store) Current(ctx context.Context) (string, error) {
	b, err := s.get(ctx, "CURRENT", s.currentName())
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if err := checkBuild(id); err != nil {
		return "", fmt.Errorf("s3 store %s: CURRENT holds %w", s.cfg, err)
	}
	return id, nil
}

// SetCurrent replaces <prefix>/CURRENT with one PUT, which S3 applies
// atomically: a reader gets the old id or the new one.
func (s *Store) SetCurrent(ctx context.Context, build string) error {
	if err := checkBuild(build); err != nil {
		return err
	}
	return s.put(ctx, "CURRENT", s.currentName(), []byte(build+"\n"))
}

func checkBuild(id string) error {
	if publish.CheckKey(id) != nil || strings.Contains(id, "/") {
		return fmt.Errorf("%w: build id %q", publish.ErrBadKey, id)
	}
	return nil
}

// translate maps S3 error codes onto the errors callers test for with
// errors.Is. The original stays in the chain for its message and for
// minio.ToErrorResponse.
func translate(err error) error {
	if err == nil {
		return nil
	}
	r := minio.ToErrorResponse(err)
	switch r.Code {
	case minio.NoSuchKey, "NotFound":
		return &codeError{err: err, is: fs.ErrNotExist}
	case minio.AccessDenied, minio.InvalidAccessKeyID, minio.SignatureDoesNotMatch, minio.AllAccessDisabled:
		return &codeError{err: err, is: fs.ErrPermission}
	case minio.NoSuchBucket:
		// Not fs.ErrNotExist: a missing bucket is a misconfiguration, and
		// must not read as "no current build yet".
		return &codeError{err: err, is: ErrNoBucket}
	}
	return err
}

// ErrNoBucket reports that the configured bucket does not exist.
var ErrNoBucket = errors.New("s3 store: no such bucket")

type codeError struct {
	err error
	is  error
}

func (e *codeError) Error() string {
	r := minio.ToErrorResponse(e.err)
	if r.Code != "" {
		return r.Code + ": " + e.err.Error()
	}
	return e.err.Error()
}
func (e *codeError) Unwrap() []error { return []error{e.is, e.err} }
