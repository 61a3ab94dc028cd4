package authz

import (
	"crypto/sha256"
	"maps"
	"sync"
	"sync/atomic"
)

// verifiedKeys remembers, for one access table, the App Keys that have
// already been found in it, so that a request with a known key looks its
// app up by the key as sent instead of hashing it with SHA-256 first (the
// largest fixed cost of authorisation on the hot path).
//
//   - Keys stay stored hashed: the snapshot, the access cache file and the
//     database hold SHA-256 hashes only. This cache is process memory, as
//     the request buffers the keys arrive in are.
//   - Only a key that verified is remembered. An unknown key is hashed on
//     every request and never takes a slot, so a flood of made-up keys
//     cannot grow the cache or push real keys out.
//   - It is bounded (maxVerifiedKeys); past the bound a key is verified by
//     its hash every time.
//   - It belongs to one access table and goes with it: a snapshot that
//     revokes a key or archives an app starts with an empty cache, so the
//     change takes effect on the same request as without the cache.
//
// The shards are immutable maps replaced whole (copy on write) when a key
// is added: a lookup is one atomic load and one map read, with no lock
// and no shared write, so edges on many cores do not contend on it. Keys
// are added once per key per snapshot, so the copies are rare.
type verifiedKeys struct {
	n      atomic.Int32 // keys remembered, all shards
	shards [verifiedShards]keyShard
}

type keyShard struct {
	m  atomic.Pointer[map[string]*App]
	mu sync.Mutex // serialises writers of this shard
}

const (
	verifiedShards  = 64
	maxVerifiedKeys = 1 << 16
)

// shard picks a key's shard by its last byte: App Keys are random, and a
// caller choosing keys to pile them on one shard can only slow its own
// lookups, since unknown keys are never added.
func (v *verifiedKeys) shard(key []byte) *keyShard {
	return &v.shards[key[len(key)-1]%verifiedShards]
}

// lookup returns the app of key (not empty), hashing it only when it has
// not been seen with this table. It does not allocate on a hit.
func (t *Table) Lookup(key []byte) *App {
	sh := t.verified.shard(key)
	if m := sh.m.Load(); m != nil {
		if app, ok := (*m)[string(key)]; ok {
			return app
		}
	}
	app := t.byKey[sha256.Sum256(key)]
	if app != nil && t.verified.n.Load() < maxVerifiedKeys {
		sh.add(string(key), app, &t.verified.n)
	}
	return app
}

func (sh *keyShard) add(key string, app *App, n *atomic.Int32) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var next map[string]*App
	if old := sh.m.Load(); old != nil {
		if _, ok := (*old)[key]; ok {
			return // added by another request meanwhile
		}
		next = make(map[string]*App, len(*old)+1)
		maps.Copy(next, *old)
	} else {
		next = make(map[string]*App, 1)
	}
	next[key] = app
	sh.m.Store(&next)
	n.Add(1)
}
