package main

import (
	"bufio"
	"fmt"
	"hash/maphash"
	"log"
	"math/bits"
	"os"
	"sync"
	"time"
)

// bounded is the floor with a bound on the bodies it holds in memory
// (-answers-bound): every answer's place in the file of answers is known
// (an index held aside, as an edge holds its Bibles' indexes), but only
// as many bodies as the bound allows are held, each from its second
// request within a while; any other request reads its body with one
// pread from the file (in the page cache), as a store read that needs
// no header, no second read and no composition would. What it makes of
// the scale mix bounds what any server of those answers within the same
// memory can make of it.
type bounded struct {
	f  *os.File          // the file of answers, read by offset
	at map[string]uint64 // key (answerKey): file offset<<24 | length

	mu   sync.Mutex
	held map[string]int32 // key: its slot
	// slots, swept by a clock hand: a slot used since the hand passed is
	// passed over once (the second chance of CLOCK, an LRU's cheap kin).
	slots     []slot
	free      []int32
	hand      int
	used, max int64
	seen      doorkeeper
	// hits and misses: bodies served from memory and read from the file.
	hits, misses, admitted uint64
	bufs                   sync.Pool
}

type slot struct {
	key  string
	body []byte
	ref  bool
	cost int64
}

// slotCost is what a held body costs besides its bytes: its slot, its
// key's map entry and the key's bytes (added per key).
const slotCost = 96

// doorkeeper remembers the hashes of the keys asked lately: a fixed table
// cleared when half full, so that "asked before" means within about its
// size of distinct keys.
type doorkeeper struct {
	seed  maphash.Seed
	table []uint64
	n     int
}

// newDoorkeeper remembers about size keys (a table of size rounded up to a
// power of two, cleared when half full); 0 remembers none, and every key
// counts as seen.
func newDoorkeeper(size int) doorkeeper {
	if size <= 0 {
		return doorkeeper{}
	}
	return doorkeeper{seed: maphash.MakeSeed(), table: make([]uint64, 1<<bits.Len(uint(2*size-1)))}
}

// seen reports whether key was asked lately, and remembers it.
func (d *doorkeeper) seen(key []byte) bool {
	if len(d.table) == 0 {
		return true
	}
	h := maphash.Bytes(d.seed, key) | 1
	mask := uint64(len(d.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch d.table[i] {
		case h:
			return true
		case 0:
			if d.n >= len(d.table)/2 {
				clear(d.table)
				d.n = 0
				i = h & mask
			}
			d.table[i] = h
			d.n++
			return false
		}
	}
}

// loadBounded indexes the file of answers path (loadAnswers' format) and
// keeps it open for reads.
func loadBounded(path string, maxBytes int64, doorkeeperSize int) (_ *bounded, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	b := &bounded{f: f, at: make(map[string]uint64), held: make(map[string]int32), max: maxBytes,
		seen: newDoorkeeper(doorkeeperSize)}
	err = records(f, path, func(r *bufio.Reader, key []byte, m uint64, off int64) error {
		if m >= 1<<24 || off >= 1<<40 {
			return fmt.Errorf("%s: a body of %d bytes at %d, more than the bounded floor addresses", path, m, off)
		}
		b.at[string(key)] = uint64(off)<<24 | m
		_, err := r.Discard(int(m))
		return noEOF(err)
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// find is the body of target in coding, nil when there is none: held in
// memory, or read into a buffer lent (not nil) until giveBack.
func (b *bounded) find(kb []byte, target []byte, coding byte) (body []byte, lent *[]byte, err error) {
	k := answerKey(kb[:0], target, coding)
	b.mu.Lock()
	if i, ok := b.held[string(k)]; ok {
		s := &b.slots[i]
		s.ref = true
		b.hits++
		b.mu.Unlock()
		return s.body, nil, nil
	}
	b.misses++
	admit := b.seen.seen(k)
	b.mu.Unlock()
	v, ok := b.at[string(k)]
	if !ok {
		return nil, nil, nil
	}
	off, n := int64(v>>24), int(v&(1<<24-1))
	var buf []byte
	if admit {
		buf = make([]byte, n)
	} else {
		bp, _ := b.bufs.Get().(*[]byte)
		if bp == nil || cap(*bp) < n {
			x := make([]byte, max(n, 64<<10))
			bp = &x
		}
		lent, buf = bp, (*bp)[:n]
	}
	if _, err := b.f.ReadAt(buf, off); err != nil {
		b.giveBack(lent)
		return nil, nil, fmt.Errorf("read %d bytes at %d of the answers: %w", n, off, err)
	}
	if admit {
		b.add(string(k), buf)
	}
	return buf, lent, nil
}

// giveBack takes back a buffer find lent (nil: none).
func (b *bounded) giveBack(lent *[]byte) {
	if lent != nil {
		b.bufs.Put(lent)
	}
}

// add holds body under key, evicting by the clock until it fits.
func (b *bounded) add(key string, body []byte) {
	cost := int64(cap(body)) + int64(len(key)) + slotCost
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.held[key]; ok || cost > b.max {
		return
	}
	for b.used+cost > b.max {
		b.evictOne()
	}
	var i int32
	if n := len(b.free); n > 0 {
		i, b.free = b.free[n-1], b.free[:n-1]
	} else {
		b.slots = append(b.slots, slot{})
		i = int32(len(b.slots) - 1)
	}
	b.slots[i] = slot{key: key, body: body, cost: cost}
	b.held[key] = i
	b.used += cost
	b.admitted++
}

func (b *bounded) evictOne() {
	for {
		if b.hand >= len(b.slots) {
			b.hand = 0
		}
		s := &b.slots[b.hand]
		i := int32(b.hand)
		b.hand++
		if s.body == nil {
			continue
		}
		if s.ref {
			s.ref = false
			continue
		}
		delete(b.held, s.key)
		b.used -= s.cost
		*s = slot{}
		b.free = append(b.free, i)
		return
	}
}

// report logs what the bound held and served every 10 seconds.
func (b *bounded) report() {
	for range time.Tick(10 * time.Second) {
		b.mu.Lock()
		h, m, a, u := b.hits, b.misses, b.admitted, b.used
		b.mu.Unlock()
		log.Printf("ceiling: bounded hits=%d misses=%d admitted=%d held_mb=%d", h, m, a, u>>20)
	}
}
