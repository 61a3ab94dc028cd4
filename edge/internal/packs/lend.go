package packs

import (
	"context"
	"slices"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// Entries lent: an entry read by range that the memory tier does not take
// in yet answers its one request from a buffer lent for it (Borrow).

// Loan is an entry read by range for one request and not held (Borrow):
// its resource, in a buffer that the next such read reuses (lentEntries).
type Loan struct {
	res represent.Resource
	buf []byte
}

// lentCoding keeps of entry e's codings only the one request req
// negotiates (represent.Negotiate). A lent entry answers one request, and
// its read copies its bytes from the page cache, lines no processor cache
// holds: an entry's codings are about three times the one sent (identity
// alone is about half). The request's answer then chooses among what was
// read as it would among them all. Not for a request that names tags in
// If-None-Match: it may hold another coding, which keeps it a 304
// (represent.Serve); nor with no request.
func lentCoding(e *publish.Entry, req *fasthttp.RequestHeader) {
	if req == nil || len(e.Reps) < 2 || len(req.Peek(fasthttp.HeaderIfNoneMatch)) > 0 {
		return
	}
	at := func(c int) int { // where coding c is in e.Reps, -1 when absent
		return slices.IndexFunc(e.Reps, func(r publish.Rep) bool { return r.Encoding == represent.CodingNames[c] })
	}
	k := at(represent.Negotiate(req, func(c int) bool { return at(c) >= 0 }))
	if k >= 0 { // absent: the coding chosen when none is acceptable; read all
		e.Reps = e.Reps[k : k+1]
	}
}

// lentEntries are lent entries given back, with their buffers.
var lentEntries sync.Pool // *Loan

// A lent entry's buffer is at least lentMin (a verse's codings take a
// few hundred bytes, a chapter's a few KiB), so that it serves the next
// whatever its size; one of more than lentMax is not kept.
const (
	lentMin = 16 << 10
	lentMax = 64 << 10
)

// lendEntry reads entry e of the pack whose header is v, n bytes in the
// ranges groups, into a lent entry.
//
// The memory tier takes an entry in from its second read within a while
// (entrySeen): over a large catalogue most entries missed are first
// sightings, asked once in a long while (Zipf), and each held on its
// first read pushed out one that was asked again, and was garbage for the
// collector soon after. An entry lent is read from the disk (its pack's
// header was: scratchHeader) or the store again if it is asked again
// soon; the tier then holds it.
func (p *Packs) lendEntry(ctx context.Context, v *View, e *publish.Entry, groups []span, n int64, whole []byte) (*Loan, error) {
	l, _ := lentEntries.Get().(*Loan)
	if l == nil {
		l = new(Loan)
	}
	l.res = represent.Resource{}
	if int64(cap(l.buf)) < n {
		l.buf = make([]byte, 0, max(n, lentMin))
	}
	if err := p.readEntry(v, e, groups, whole, l.buf[:0], &l.res); err != nil {
		p.GiveBack(l)
		return nil, err
	}
	p.fetchedFrom(v.partial)
	return l, nil
}

// GiveBack takes back an entry lent (Borrow) once nothing reads it; nil
// is no loan.
func (p *Packs) GiveBack(l *Loan) {
	if l == nil {
		return
	}
	l.res = represent.Resource{}
	if cap(l.buf) > lentMax {
		l.buf = nil
	}
	lentEntries.Put(l)
}
