package publish

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"syscall"
	"time"
)

// One store has one writer at a time. A writer (a build, a rollback, a
// gc that deletes) holds the store's lease: the object LeaseKey, created
// only if absent, so that two processes, on one machine or on two
// machines writing one bucket, cannot both hold it. The lease lives in
// the store itself because nothing else is shared by everyone who
// writes it.

// LeaseKey is the lease's object.
const LeaseKey = "lease/writer.json"

// Conditional is a Store that can create an object only if it is absent,
// atomically: of two concurrent PutIfAbsent of one key, exactly one
// succeeds. The directory store links a whole file into place; S3 sends
// If-None-Match: *.
type Conditional interface {
	// PutIfAbsent writes key unless it exists, and then returns an error
	// that wraps fs.ErrExist.
	PutIfAbsent(ctx context.Context, key string, data []byte) error
}

// LeaseInfo is what the lease object says of its holder.
type LeaseInfo struct {
	Op    string    `json:"op"`   // build, rollback, gc
	User  string    `json:"user"` // who ran it
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	// Token tells this holding from any other, so that a writer never
	// releases or trusts a lease someone broke and took since.
	Token string `json:"token"`
}

func (i LeaseInfo) String() string {
	return fmt.Sprintf("%s by %s on %s (pid %d) since %s", i.Op, i.User, i.Host, i.PID, i.Since.Format(time.RFC3339))
}

// Lease is a held lease.
type Lease struct {
	s    Store
	info LeaseInfo
}

// HeldError is AcquireLease's error when someone else holds the lease.
type HeldError struct {
	Holder LeaseInfo
	// Stale is set when the holder ran on this host and its process is
	// gone: the lease was left by a writer that was killed.
	Stale bool
}

func (e *HeldError) Error() string {
	msg := "the store has another writer: " + e.Holder.String()
	if e.Stale {
		return msg + "; that process is no longer running on this host, so the lease is stale: " +
			"break it with `publish lease --break " + e.Holder.Token + "` (same --store)"
	}
	return msg + "; wait for it to finish, or, if it is gone (killed, its machine down), " +
		"break the lease with `publish lease --break " + e.Holder.Token + "` (same --store)"
}

// Is makes errors.Is(err, fs.ErrExist) true of a held lease.
func (e *HeldError) Is(target error) bool { return target == fs.ErrExist }

// AcquireLease takes the store's lease for op, or returns a *HeldError
// naming the holder.
func AcquireLease(ctx context.Context, s Store, op string) (*Lease, error) {
	c, ok := s.(Conditional)
	if !ok {
		return nil, fmt.Errorf("lease: the store (%T) cannot create an object only if absent, so it cannot hold a writer's lease", s)
	}
	tok := make([]byte, 12)
	rand.Read(tok)
	info := LeaseInfo{Op: op, User: userName(), Host: hostName(), PID: os.Getpid(), Since: time.Now().UTC().Truncate(time.Second), Token: hex.EncodeToString(tok)}
	data, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	err = c.PutIfAbsent(ctx, LeaseKey, data)
	if errors.Is(err, fs.ErrExist) {
		holder, rerr := ReadLease(ctx, s)
		if rerr != nil {
			return nil, fmt.Errorf("lease: held, and its holder cannot be read: %w", rerr)
		}
		return nil, &HeldError{Holder: *holder, Stale: gone(*holder)}
	}
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	l := &Lease{s: s, info: info}
	// A backend that ignored the condition would have let a second writer
	// overwrite the lease; reading it back catches most such races, and
	// Check before every switch catches the rest.
	if err := l.Check(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// Info is what the lease says of its holder.
func (l *Lease) Info() LeaseInfo { return l.info }

// Check returns an error unless the store's lease is still this one: a
// writer calls it before it moves the current pointer, so that a writer
// whose lease was broken never switches.
func (l *Lease) Check(ctx context.Context) error {
	now, err := ReadLease(ctx, l.s)
	switch {
	case IsNotExist(err):
		return errors.New("lease: this writer's lease was broken; nothing more is written")
	case err != nil:
		return fmt.Errorf("lease: %w", err)
	case now.Token != l.info.Token:
		return fmt.Errorf("lease: this writer's lease was broken and is now held by %s; nothing more is written", now)
	}
	return nil
}

// Release gives the lease up, if it is still this one.
func (l *Lease) Release(ctx context.Context) error {
	if err := l.Check(ctx); err != nil {
		return err
	}
	return l.s.Delete(ctx, LeaseKey)
}

// Guard returns s with SetCurrent checking the lease first.
func (l *Lease) Guard(s Store) Store { return guarded{s, l} }

type guarded struct {
	Store
	l *Lease
}

func (g guarded) SetCurrent(ctx context.Context, build string) error {
	if err := g.l.Check(ctx); err != nil {
		return err
	}
	return g.Store.SetCurrent(ctx, build)
}

// ReadLease returns the lease's holder; fs.ErrNotExist when nobody holds
// it.
func ReadLease(ctx context.Context, s Store) (*LeaseInfo, error) {
	data, err := s.Get(ctx, LeaseKey)
	if err != nil {
		return nil, err
	}
	var info LeaseInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("lease %s: %w", LeaseKey, err)
	}
	return &info, nil
}

// BreakLease removes the lease whose token is token: the way out when its
// holder is gone. The token makes sure the lease broken is the one the
// operator was shown, not one a new writer has taken since.
func BreakLease(ctx context.Context, s Store, token string) (*LeaseInfo, error) {
	info, err := ReadLease(ctx, s)
	if IsNotExist(err) {
		return nil, errors.New("lease: nobody holds the store's lease")
	}
	if err != nil {
		return nil, err
	}
	if info.Token != token {
		return nil, fmt.Errorf("lease: the lease is now %s (token %s), not the one named; nothing was broken", info, info.Token)
	}
	return info, s.Delete(ctx, LeaseKey)
}

// gone reports whether the holder ran on this host and its process no
// longer exists.
func gone(h LeaseInfo) bool {
	if h.Host != hostName() || h.PID <= 0 {
		return false
	}
	return errors.Is(syscall.Kill(h.PID, 0), syscall.ESRCH)
}

func hostName() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}

func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return fmt.Sprint(os.Getuid())
}
