package site

import (
	"unsafe"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/publish"
)

// A Bible's decoded index is kept for the build's life, and the garbage
// collector marks everything it points to on every cycle: 50 Bibles make
// 1.5 million verses. With one P the collector's mark worker takes the
// processor in slices that grow with the mark phase (10–20 ms in a phase
// of a second), and every connection waits behind them: the scale mix's
// tail (docs/edge.md, "The scale mix's tail"). So the index is kept in
// the form that costs the collector least: each verse holds only what the
// edge reads of it (its id, and its bridge's end), all the verses of a
// Bible are one array, and a verse or chapter id that is a number (nearly
// all of them) points into verseNumbers, a constant outside the heap,
// which the collector passes over without marking anything.

// maxVerseNumber is the largest verse number held as a constant (the
// longest chapter, Psalm 119, has 176 verses).
const maxVerseNumber = 200

// verseNumbers is "1" to "200" written one after another (chapter
// numbers, up to 150, are among them).
const verseNumbers = "" +
	"1234567891011121314151617181920212223242526272829303132333435363" +
	"7383940414243444546474849505152535455565758596061626364656667686" +
	"9707172737475767778798081828384858687888990919293949596979899100" +
	"1011021031041051061071081091101111121131141151161171181191201211" +
	"2212312412512612712812913013113213313413513613713813914014114214" +
	"3144145146147148149150151152153154155156157158159160161162163164" +
	"1651661671681691701711721731741751761771781791801811821831841851" +
	"86187188189190191192193194195196197198199200"

// verseNumber[n] is n as a string, a part of verseNumbers.
var verseNumber = func() (t [maxVerseNumber + 1]string) {
	at := 0
	for n := 1; n <= maxVerseNumber; n++ {
		w := 1
		for m := n; m >= 10; m /= 10 {
			w++
		}
		t[n] = verseNumbers[at : at+w]
		at += w
	}
	return t
}()

// DecodeIndex decodes a Bible's index entry into the form the edge keeps
// (see above): what the routes read of it (books, chapters' ids and
// titles, each verse's id) is as decoded, numbered ids and titles pointing
// into verseNumbers; the passage ids of chapters and verses and the
// verses' titles, which the index route serves from the entry's bytes and
// no route reads from the decoded index, are left out.
func DecodeIndex(body []byte) (*bible.Index, error) {
	x := new(bible.Index)
	if err := publish.DecodeEntry(publish.NameIndex, body, x); err != nil {
		return nil, err
	}
	n := 0
	for i := range x.Books {
		for j := range x.Books[i].Chapters {
			n += len(x.Books[i].Chapters[j].Verses)
		}
	}
	verses := make([]bible.Verse, 0, n)
	for i := range x.Books {
		for j := range x.Books[i].Chapters {
			c := &x.Books[i].Chapters[j]
			c.ID, c.Title, c.PassageID = keptID(c.ID), keptID(c.Title), ""
			from := len(verses)
			for k := range c.Verses {
				verses = append(verses, bible.Verse{ID: keptID(c.Verses[k].ID), End: c.Verses[k].End})
			}
			c.Verses = verses[from:len(verses):len(verses)]
		}
	}
	return x, nil
}

// keptID is a verse's or chapter's id (or a chapter's title) as the index
// keeps it: a number from verseNumber, anything else (a segment, 15a;
// PS2's 1_1) as decoded.
func keptID(id string) string {
	if id == "" || len(id) > 3 || id[0] == '0' {
		return id
	}
	n := 0
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return id
		}
		n = n*10 + int(id[i]-'0')
	}
	if n > maxVerseNumber {
		return id
	}
	return verseNumber[n]
}

// onHeap reports whether s's bytes are on the heap: not a part of
// verseNumbers.
func onHeap(s string) bool {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	base := uintptr(unsafe.Pointer(unsafe.StringData(verseNumbers)))
	return p < base || p >= base+uintptr(len(verseNumbers))
}

// IndexSize is what an index of DecodeIndex holds on the heap: its
// slices, its verses' array and every string the decoder allocated, each
// rounded to its size class.
func IndexSize(x *bible.Index) int64 {
	// Strings under 16 bytes (chapter ids, passage ids' numbers) share
	// the runtime's 16-byte tiny blocks: they take about their length.
	str := func(s string) int64 {
		if !onHeap(s) {
			return 0
		}
		if n := len(s); n < 16 {
			return int64(n)
		}
		return cache.AllocSize(len(s))
	}
	n := cache.AllocSize(int64(unsafe.Sizeof(*x))) + str(x.TextDirection) +
		cache.AllocSize(int64(cap(x.Books))*int64(unsafe.Sizeof(bible.Book{})))
	verses := 0
	for i := range x.Books {
		b := &x.Books[i]
		n += str(string(b.ID)) + str(b.Title) + str(b.FullTitle) + str(b.Abbreviation) + str(string(b.Canon)) +
			cache.AllocSize(int64(cap(b.Chapters))*int64(unsafe.Sizeof(bible.Chapter{})))
		if in := b.Intro; in != nil {
			n += cache.AllocSize(int64(unsafe.Sizeof(*in))) + str(in.ID) + str(in.PassageID) + str(in.Title)
		}
		for j := range b.Chapters {
			c := &b.Chapters[j]
			n += str(c.ID) + str(c.PassageID) + str(c.Title)
			verses += len(c.Verses)
			for k := range c.Verses {
				v := &c.Verses[k]
				n += str(v.ID) + str(v.End)
			}
		}
	}
	if verses > 0 {
		n += cache.AllocSize(int64(verses) * int64(unsafe.Sizeof(bible.Verse{})))
	}
	return n
}
