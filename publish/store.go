// Package publish is the object contract between the build and the edge:
// the Store that holds published objects, the pack format that bundles many
// small representations into one object, and the build manifest that names
// every pack of one build. A build becomes visible by moving the store's
// current pointer, and only after every object it names is in place.
package publish

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// Store holds immutable objects under string keys, plus one small mutable
// pointer: the id of the current build.
//
// Keys are slash-separated, made of [A-Za-z0-9._-] segments. Backends
// translate their own "no such object" into fs.ErrNotExist.
type Store interface {
	// Put writes an object whole. Readers never see a partial object.
	Put(ctx context.Context, key string, data []byte) error
	// Get reads a whole object.
	Get(ctx context.Context, key string) ([]byte, error)
	// GetRange reads n bytes at off. Reading past the end is an error.
	GetRange(ctx context.Context, key string, off, n int64) ([]byte, error)
	// Stat reports an object's size.
	Stat(ctx context.Context, key string) (int64, error)
	// List returns the keys under prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes an object; deleting a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// Current returns the current build id, fs.ErrNotExist when there is
	// none yet.
	Current(ctx context.Context) (string, error)
	// SetCurrent moves the current pointer. It is atomic: readers see
	// the old id or the new one.
	SetCurrent(ctx context.Context, build string) error
}

// RangeReader is a Store that reads a range into the caller's buffer (a
// directory store), so that a reader of many short-lived ranges (an edge
// reading pack headers) need not allocate each.
type RangeReader interface {
	// ReadRange reads len(b) bytes at off into b. Reading past the end is
	// an error.
	ReadRange(ctx context.Context, key string, off int64, b []byte) error
}

// ReadRange reads len(b) bytes of key at off into b: in place from a
// RangeReader, else by GetRange and a copy.
func ReadRange(ctx context.Context, s Store, key string, off int64, b []byte) error {
	if rr, ok := s.(RangeReader); ok {
		return rr.ReadRange(ctx, key, off, b)
	}
	got, err := s.GetRange(ctx, key, off, int64(len(b)))
	if err != nil {
		return err
	}
	if len(got) != len(b) {
		return fmt.Errorf("get %s [%d,+%d): %d bytes", key, off, len(b), len(got))
	}
	copy(b, got)
	return nil
}

// Appender is a Store that reads a whole object into the caller's buffer
// (an S3 store), so that a reader of many short-lived objects (an edge
// copying packs onto its disk) can reuse one.
type Appender interface {
	// AppendGet appends the object's bytes to dst and returns the
	// extended slice, growing it when the object does not fit.
	AppendGet(ctx context.Context, key string, dst []byte) ([]byte, error)
}

// AppendGet appends the bytes of key to dst: in place from an Appender
// when they fit, else by Get and a copy.
func AppendGet(ctx context.Context, s Store, key string, dst []byte) ([]byte, error) {
	if a, ok := s.(Appender); ok {
		return a.AppendGet(ctx, key, dst)
	}
	got, err := s.Get(ctx, key)
	if err != nil {
		return dst, err
	}
	return append(dst, got...), nil
}

// ErrBadKey is returned for a key that is not well-formed.
var ErrBadKey = errors.New("publish: bad object key")

// keyByte marks the bytes a key's segment may hold besides '.'.
var keyByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
	}
	return t
}()

// CheckKey reports whether key is well-formed (see Store). A read of a
// pack from a directory store checks its key: a table says which bytes a
// segment may hold, where a switch of ranges mispredicted on a content
// address's hex digits and letters (0.3 us a key, 4 % of a miss).
func CheckKey(key string) error {
	if key == "" || len(key) > 512 || key[0] == '/' || key[len(key)-1] == '/' {
		return ErrBadKey
	}
	seg := 0
	for i := 0; i < len(key); i++ {
		c := key[i]
		if keyByte[c] {
			seg++
			continue
		}
		switch c {
		case '/':
			if seg == 0 {
				return ErrBadKey
			}
			seg = 0
			continue
		case '.':
			if seg == 0 && (i+1 == len(key) || key[i+1] == '.' || key[i+1] == '/') {
				return ErrBadKey // no "." or ".." segments
			}
		default:
			return ErrBadKey
		}
		seg++
	}
	return nil
}

// IsNotExist reports whether err means a missing object.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
