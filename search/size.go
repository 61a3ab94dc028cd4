package search

import "unsafe"

// Size estimates the bytes the index holds on the heap once loaded: what
// a cache of indexes counts against its bound. It adds up the arrays,
// strings and maps the index and its load-time structures own (not the
// analyzer and resolver, which are small); TestSize holds it to the heap
// a load really takes.
func (x *Index) Size() int64 {
	seen := arrays{}
	n := int64(unsafe.Sizeof(*x))
	n += stringsSize(seen, x.verse) + stringsSize(seen, x.text) + stringsSize(seen, x.words)
	n += size(seen, x.lens) + size(seen, x.norm) + size(seen, x.count) + size(seen, x.df) + size(seen, x.stem)
	n += size(seen, x.post)
	for _, p := range x.post {
		n += int64(cap(p))
	}
	n += size(seen, x.groups)
	for _, g := range x.groups {
		n += size(seen, g)
	}
	n += size(seen, x.byLen)
	for _, g := range x.byLen {
		n += size(seen, g)
	}
	n += size(seen, x.runes) + size(seen, x.runeAt) + size(seen, x.hist) + size(seen, x.mask)
	n += size(seen, x.dels.at) + size(seen, x.dels.words)
	n += mapSize(x.verseAt) + mapSize(x.chapterAt) + mapSize(x.stemAt) + mapSize(x.stop)
	for k := range x.verseAt {
		n += int64(len(k))
	}
	for k := range x.chapterAt {
		n += int64(len(k))
	}
	n += mapSize(x.frequent)
	for _, h := range x.frequent {
		n += h.size(seen)
	}
	n += mapSize(x.hot)
	for _, c := range x.hot {
		n += int64(unsafe.Sizeof(*c)) + size(seen, c.alts) + size(seen, c.syn) + c.own.size(seen) +
			size(seen, c.ch.doc) + size(seen, c.ch.tf) + size(seen, c.ch.all) + c.ch.uall.size(seen) +
			size(seen, c.head) + size(seen, c.blocks.bits) + size(seen, c.blocks.rank) + size(seen, c.blocks.bmax)
	}
	n += mapSize(x.freqPos)
	for _, p := range x.freqPos {
		n += size(seen, p.start) + size(seen, p.pos)
	}
	n += size(seen, x.skips)
	for _, s := range x.skips {
		n += size(seen, s)
	}
	b := &x.bigrams
	n += size(seen, b.common) + mapSize(b.span) + size(seen, b.doc) + size(seen, b.tf) + mapSize(b.head)
	for _, h := range b.head {
		n += size(seen, h)
	}
	n += mapSize(x.prefixHeads)
	for k, h := range x.prefixHeads {
		n += int64(len(k)) + size(seen, h.head)
	}
	n += mapSize(x.synAt)
	for k, ws := range x.synAt {
		n += int64(len(k)) + size(seen, ws)
	}
	return n
}

func (h hits) size(seen arrays) int64 { return size(seen, h.doc) + size(seen, h.tf) }

// sliceSize is the bytes of s's backing array.
func sliceSize[E any](s []E) int64 {
	var e E
	return int64(cap(s)) * int64(unsafe.Sizeof(e))
}

// arrays counts backing arrays once each: the load-time structures share
// lists (a hot clause of one word holds that word's frequent hits).
type arrays map[unsafe.Pointer]bool

// size is sliceSize of s the first time its array is seen, else 0.
func size[E any](seen arrays, s []E) int64 {
	p := unsafe.Pointer(unsafe.SliceData(s))
	if cap(s) == 0 || seen[p] {
		return 0
	}
	seen[p] = true
	return sliceSize(s)
}

// stringsSize is the bytes of ss's backing array and of its strings,
// each rounded up to its allocation's size class (8 bytes on average).
func stringsSize(seen arrays, ss []string) int64 {
	n := size(seen, ss)
	for _, s := range ss {
		n += int64(len(s)) + 8
	}
	return n
}

// mapSize estimates a map's tables: a slot per entry for its key, its
// value and a control byte, in tables that grow by doubling and so are
// 5/8 full on average (measured on the indexes' maps), plus the header.
func mapSize[K comparable, V any](m map[K]V) int64 {
	var k K
	var v V
	return 48 + int64(len(m))*(int64(unsafe.Sizeof(k))+int64(unsafe.Sizeof(v))+1)*8/5
}
