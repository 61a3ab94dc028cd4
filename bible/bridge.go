package bible

import "fmt"

// Bridges is where the bridges of a Bible (or of a book) end: the passage
// id of each bridge's verse (SIR.11.15) and the last number it covers
// ("16"). The API's index has no place for it (its Verse object is id,
// passage_id and title), so a build writes it as an internal entry beside
// the index, and a reader of the index applies it with SetBridges.
type Bridges map[string]string

// Bridges lists b's bridges, nil when it has none.
func (b *Book) Bridges() Bridges {
	var out Bridges
	for _, c := range b.Chapters {
		for _, v := range c.Verses {
			if v.End != "" {
				if out == nil {
					out = Bridges{}
				}
				out[string(b.ID)+"."+c.ID+"."+v.ID] = v.End
			}
		}
	}
	return out
}

// Bridges lists the bridges of every book of x, nil when it has none.
func (x *Index) Bridges() Bridges {
	var out Bridges
	for i := range x.Books {
		for k, v := range x.Books[i].Bridges() {
			if out == nil {
				out = Bridges{}
			}
			out[k] = v
		}
	}
	return out
}

// SetBridges records the bridges of br in x's verses. A bridge of a verse
// x does not have, or one that ends before it starts, is an error: the
// two entries were not written together.
func (x *Index) SetBridges(br Bridges) error {
	return setBridges(br, func(id BookID) *Book { return x.Book(id) }, "in the index")
}

// SetBridges records br's bridges in b's verses, with the errors of
// Index.SetBridges; a bridge of another book is one.
func (b *Book) SetBridges(br Bridges) error {
	return setBridges(br, func(id BookID) *Book {
		if id != b.ID {
			return nil
		}
		return b
	}, "here")
}

// setBridges records each bridge of br in the book find finds for it;
// where names the books find knows, for errors.
func setBridges(br Bridges, find func(BookID) *Book, where string) error {
	for id, end := range br {
		r, err := ParseRef(id)
		if err != nil || r.Kind() != KindVerse {
			return fmt.Errorf("bridge %q: not a verse id", id)
		}
		b := find(r.Book)
		if b == nil {
			return fmt.Errorf("bridge %s: no book %s %s", id, r.Book, where)
		}
		if err := b.setBridge(r, end); err != nil {
			return err
		}
	}
	return nil
}

func (b *Book) setBridge(r Ref, end string) error {
	c := b.Chapter(r.Chapter)
	if c == nil {
		return fmt.Errorf("bridge %s: no chapter %s in the index", r, r.Chapter)
	}
	i := c.VerseIndex(r.Verse)
	if i < 0 {
		return fmt.Errorf("bridge %s: no such verse in the index", r)
	}
	if !ValidBridge(r.Verse, end) {
		return fmt.Errorf("bridge %s-%s: not a bridge of numbered verses", r, end)
	}
	c.Verses[i].End = end
	return nil
}

// Bridge is the bridge verse's position in c that covers verse id (16 of
// \v 15-16), or -1 when no bridge does. A bridge's first number is its
// own id, which VerseIndex finds.
func (c *Chapter) Bridge(id string) int {
	k, ok := verseKey(id, false)
	if !ok {
		return -1
	}
	for i := range c.Verses {
		v := &c.Verses[i]
		if v.End == "" {
			continue
		}
		first, ok1 := verseKey(v.ID, false)
		last, ok2 := verseKey(v.End, true)
		if ok1 && ok2 && !k.less(first) && !last.less(k) {
			return i
		}
	}
	return -1
}

// ValidBridge reports whether first-end is a bridge the index records:
// two numbered verse ids (digits and an optional segment letter), end
// after first (15-16, 3a-4, 3a-3b).
func ValidBridge(first, end string) bool {
	a, ok1 := verseKey(first, false)
	b, ok2 := verseKey(end, false)
	return ok1 && ok2 && a.less(b)
}

// LastID is the id of the verse's last number: its End for a bridge, its
// id otherwise.
func (v *Verse) LastID() string {
	if v.End != "" {
		return v.End
	}
	return v.ID
}

// numKey orders numbered verse ids: a number and a segment letter (15,
// 15a). A whole verse as a bridge's end sorts after its segments.
type numKey struct {
	n   int
	seg int
}

func (a numKey) less(b numKey) bool { return a.n < b.n || a.n == b.n && a.seg < b.seg }

// verseKey reads a verse id of digits and an optional segment letter; end
// says that a whole verse stands for its last segment.
func verseKey(id string, end bool) (numKey, bool) {
	var k numKey
	if n := len(id); n > 1 && id[n-1] >= 'a' && id[n-1] <= 'z' {
		k.seg, id = int(id[n-1]), id[:n-1]
	} else if end {
		k.seg = 'z' + 1
	}
	if id == "" || len(id) > 4 {
		return k, false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return k, false
		}
		k.n = k.n*10 + int(id[i]-'0')
	}
	return k, true
}
