package versification

import (
	"slices"
	"strconv"

	"github.com/bibleplatform/platform/bible"
)

// Target is one Bible a passage is aligned across: its numbering, and its
// index (the verses it has, under its own ids).
type Target struct {
	Scheme *Scheme
	Books  Books
}

// Row is one line of an alignment: verses of the passage in the numbering
// it was asked in, and the passages of each Bible that hold their text.
type Row struct {
	// From is a verse of the passage, or a run of its verses when some
	// Bible has one verse holding the text of several of them (a title
	// counted as two verses by one numbering and as one by another).
	From bible.Ref
	// Cells has one entry per target, in order: the runs of the Bible's
	// own verses that hold the text of From, nil when it has none of them.
	Cells [][]bible.Ref
}

// Align lines r (a verse, a range or a chapter of from's numbering) up
// verse by verse across targets: for each verse of r, each Bible's verses
// that hold its text, through the original numbering as Map goes (eng MAL
// 4:1 is the Hebrew Bible's MAL 3:19). A verse of one Bible that holds
// several verses of r (org PSA 51:1-2, the title, is eng PSA 51:0) makes
// those verses one row, so that no Bible's verse is split between rows or
// answered twice; a verse of r that a Bible lacks (a title it prints as a
// heading, a verse it omits) is a nil cell of that Bible's, and the other
// Bibles' rows stay where they are. Every verse of r is in a row, even
// one no Bible has, so that the rows follow r's numbering without gaps.
// Errors are Map's.
func Align(from *Scheme, r bible.Ref, targets []Target) ([]Row, error) {
	local, err := from.expand(r)
	if err != nil {
		return nil, err
	}
	n := len(local)
	// held[t][i] is what target t has of local verse i.
	held := make([][][]position, len(targets))
	// joined[i] says that local verses i and i+1 are in one row.
	joined := make([]bool, n)
	var mapped []Verse
	for t, tg := range targets {
		have := bookVerses{books: tg.Books}
		held[t] = make([][]position, n)
		first := map[position]int{} // the first local verse a verse of the Bible holds
		for i, v := range local {
			mapped = appendMapped(mapped[:0], from, tg.Scheme, v)
			var ps []position
			for _, w := range mapped {
				ps = have.append(ps, w)
			}
			for _, p := range ps {
				if j, ok := first[p]; !ok {
					first[p] = i
				} else {
					for k := j; k < i; k++ {
						joined[k] = true
					}
				}
			}
			held[t][i] = ps
		}
	}
	var rows []Row
	for a := 0; a < n; {
		b := a
		for b < n-1 && joined[b] {
			b++
		}
		row := Row{From: runRef(local[a], local[b]), Cells: make([][]bible.Ref, len(targets))}
		for t, tg := range targets {
			var ps []position
			for i := a; i <= b; i++ {
				ps = append(ps, held[t][i]...)
			}
			if len(ps) > 0 {
				row.Cells[t] = positionRuns(tg.Books, ps)
			}
		}
		rows = append(rows, row)
		a = b + 1
	}
	return rows, nil
}

// appendMapped appends to out the verses of to's numbering that hold the
// text of from's verse v: v itself when the two are one numbering, else
// through the original numbering and its aliases (org S3Y 1:1 is DAG
// 3:24, so that a Bible with either book finds it).
func appendMapped(out []Verse, from, to *Scheme, v Verse) []Verse {
	if sameNumbering(from, to) {
		return append(out, v)
	}
	for _, o := range from.ToOrg(v) {
		out = to.fromOrgAppend(out, o)
		for _, a := range aliases()[o] {
			out = to.fromOrgAppend(out, a)
		}
	}
	return out
}

// runRef is the passage from a to b (a itself when they are one verse).
func runRef(a, b Verse) bible.Ref {
	r := bible.Ref{Book: a.Book, Chapter: strconv.Itoa(a.Chapter), Verse: a.id()}
	if a != b {
		r.EndChapter, r.EndVerse = strconv.Itoa(b.Chapter), b.id()
	}
	return r
}

// position is a verse of a Bible: its book, and its place in the book's
// chapters and verses.
type position struct {
	book           bible.BookID
	chapter, verse int
}

// bookVerses finds the verses a Bible has by number, reading each of its
// books' ids once.
type bookVerses struct {
	books Books
	byNum map[Verse][]numbered // by verse without its segment letter
	read  map[bible.BookID]bool
}

type numbered struct {
	seg byte
	at  position
}

// append appends to ps the Bible's verses numbered w: the verse itself,
// and for w without a segment letter every segment of it the Bible has
// (12a, 12b), for w with one the segment or the whole verse.
func (h *bookVerses) append(ps []position, w Verse) []position {
	if !h.read[w.Book] {
		h.index(w.Book)
	}
	for _, x := range h.byNum[w.base()] {
		if w.Seg == 0 || x.seg == 0 || x.seg == w.Seg {
			if !slices.Contains(ps, x.at) {
				ps = append(ps, x.at)
			}
		}
	}
	return ps
}

func (h *bookVerses) index(book bible.BookID) {
	if h.read == nil {
		h.read, h.byNum = map[bible.BookID]bool{}, map[Verse][]numbered{}
	}
	h.read[book] = true
	b := h.books.Book(book)
	if b == nil || b.ID != book {
		return
	}
	for c, ch := range b.Chapters {
		cn, err := chapterNumber(ch.ID)
		if err != nil {
			continue // not numbered: no scheme maps to it
		}
		for v, vs := range ch.Verses {
			n, seg, err := verseNumber(vs.ID)
			if err != nil {
				continue
			}
			at := position{book: book, chapter: c, verse: v}
			k := Verse{Book: book, Chapter: cn, Verse: n}
			h.byNum[k] = append(h.byNum[k], numbered{seg: seg, at: at})
			// A bridge (\v 15-16) is the Bible's verse for every number it
			// covers: 16 is found in it as 15 is.
			if vs.End == "" {
				continue
			}
			last, lseg, err := verseNumber(vs.End)
			if err != nil {
				continue
			}
			for m := n + 1; m <= last; m++ {
				k.Verse = m
				x := numbered{at: at}
				if m == last {
					x.seg = lseg
				}
				h.byNum[k] = append(h.byNum[k], x)
			}
		}
	}
}

// positionRuns sorts ps in the Bible's order and joins verses that follow
// each other in its index (within a chapter, or a chapter's last verse and
// the next one's first) into runs, with the Bible's own ids.
func positionRuns(books Books, ps []position) []bible.Ref {
	slices.SortFunc(ps, func(a, b position) int {
		if a.book != b.book {
			return compare(Verse{Book: a.book}, Verse{Book: b.book})
		}
		if a.chapter != b.chapter {
			return a.chapter - b.chapter
		}
		return a.verse - b.verse
	})
	ps = slices.Compact(ps)
	var out []bible.Ref
	var book *bible.Book
	start := 0
	for i := 1; i <= len(ps); i++ {
		if i < len(ps) && follows(books.Book(ps[i].book), ps[i-1], ps[i]) {
			continue
		}
		a, z := ps[start], ps[i-1]
		if book == nil || book.ID != a.book {
			book = books.Book(a.book)
		}
		// A run ending in a bridge ends at its last number: the bridge
		// 15-16 alone is SIR.11.15-16.
		out = append(out, bible.Span{Book: book, FirstChapter: a.chapter, FirstVerse: a.verse, LastChapter: z.chapter, LastVerse: z.verse}.Ref())
		start = i
	}
	return out
}

// follows reports whether b is the verse right after a in book.
func follows(book *bible.Book, a, b position) bool {
	if a.book != b.book {
		return false
	}
	if a.chapter == b.chapter {
		return b.verse == a.verse+1
	}
	return b.chapter == a.chapter+1 && b.verse == 0 && a.verse == len(book.Chapters[a.chapter].Verses)-1
}
