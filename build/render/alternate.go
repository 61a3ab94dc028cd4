package render

import (
	"fmt"
	"strings"

	"github.com/bibleplatform/platform/build/usfm"
)

// alternate returns b renumbered in its alternate numbers: the numbering
// the source gives in \va and \ca besides its \c and \v (the UHB's
// Hebrew numbering beside its English one). The tree is a copy; b is not
// changed.
//
//   - A verse with \va N is verse N, with \va C:N verse N of chapter C; a
//     verse without \va keeps its number in the alternate chapter it is
//     in. Its own number becomes its alternate number ("C:V" when its
//     chapter differs), shown as the source's \va was.
//   - The alternate chapter is the \ca after a \c, else the chapter of
//     the first verse's \va C:N, else the \c's number; a \ca after the
//     chapter's verses began starts that chapter from the next verse on
//     (and wins over the chapter of that verse's \va: the UHB's 2KI 11:21
//     says 11:1 after \ca 12). A chapter starts where its first verse is:
//     the paragraph holding it is split there when the verse is not its
//     first content. A \c whose alternate chapter is the one in progress
//     starts none (the UHB's MAL 4 continues Hebrew chapter 3).
//   - A \va with no verse (a psalm title, verses 1–2 of Hebrew Psalm 51;
//     the second half of a verse, Hebrew 1KI 22:44) is a verse where it
//     stands.
//   - A verse whose alternate number is not beyond the one in progress
//     continues it (its own number shows inside it): English PSA 13:5–6
//     are Hebrew 13:6, and ISA 64:1 is Hebrew 63:19b. So does a verse
//     without \va whose next verse takes its number (NEH 7:68, which the
//     Hebrew does not have: 7:69 is Hebrew 7:68).
//
// A chapter change inside a character style or a table cell cannot be
// placed and is an error.
func alternate(b *usfm.Book, file string) (*usfm.Book, []usfm.Diag, error) {
	a := &alternator{file: file, at: map[*usfm.Node]altVerse{}}
	a.plan(b.Nodes)
	out := *b
	out.Nodes = nil
	for _, n := range b.Nodes {
		switch n.Kind {
		case usfm.Chapter:
			a.orig = n.Number
			if c := a.chapterOf[n]; c != a.out {
				a.emitChapter(&out, n, c)
			}
		case usfm.Para:
			if err := a.para(&out, n); err != nil {
				return nil, nil, err
			}
		default:
			c, err := a.nested(n)
			if err != nil {
				return nil, nil, err
			}
			out.Nodes = append(out.Nodes, c)
		}
	}
	return &out, a.warns, nil
}

// altVerse is what a verse (or a \va without one) becomes.
type altVerse struct {
	chap, num string
	alt       string // the source's own number, shown as the alternate
	cont      bool   // it continues the verse in progress
}

type alternator struct {
	file      string
	at        map[*usfm.Node]altVerse
	chapterOf map[*usfm.Node]string
	warns     []usfm.Diag
	orig      string // the source chapter in progress (\c)
	out       string // the chapter of the output in progress
}

// plan decides every verse's number, in source order.
func (a *alternator) plan(nodes []*usfm.Node) {
	var items []*usfm.Node // chapters, verses, \va and \ca in source order
	var walk func([]*usfm.Node)
	walk = func(ns []*usfm.Node) {
		for _, n := range ns {
			switch {
			case n.Kind == usfm.Chapter, n.Kind == usfm.Verse,
				n.Kind == usfm.Char && (n.Marker == "va" || n.Marker == "ca"):
				items = append(items, n)
			case n.Kind != usfm.Note:
				walk(n.Children)
			}
		}
	}
	walk(nodes)
	a.chapterOf = map[*usfm.Node]string{}
	var orig, chap, lastChap string
	last := -1
	caPending := false
	for i, n := range items {
		switch {
		case n.Kind == usfm.Chapter:
			orig, chap, caPending = n.Number, n.Alt, false
			if chap == "" && i+1 < len(items) && items[i+1].Kind == usfm.Verse {
				chap, _, _ = cutChapter(items[i+1].Alt)
			}
			if chap == "" {
				chap = n.Number
			}
			a.chapterOf[n] = chap
			continue
		case n.Kind == usfm.Char && n.Marker == "ca":
			chap, caPending = childText(n), true
			continue
		}
		v := altVerse{num: n.Number}
		given := n.Alt
		if n.Kind == usfm.Char {
			given = childText(n)
		}
		if given != "" {
			c, num, ok := cutChapter(given)
			switch {
			case ok && caPending && c != chap:
				a.warns = append(a.warns, usfm.Diag{File: a.file, Pos: n.Pos, Sev: usfm.Repaired, Class: AltChapterRepaired,
					Msg: fmt.Sprintf(`\va %s after \ca %s: read as %s:%s`, given, chap, chap, num)})
			case ok:
				chap = c
			}
			v.num = num
		} else if i+1 < len(items) && items[i+1].Kind == usfm.Verse && items[i+1].Alt != "" {
			// A verse the next one's \va renumbers onto.
			c, num, ok := cutChapter(items[i+1].Alt)
			if (!ok || c == chap) && leadingInt(num) >= 0 && leadingInt(num) <= leadingInt(n.Number) {
				v.cont = last >= 0 && lastChap == chap
			}
		}
		caPending = false
		v.chap = chap
		if n.Kind == usfm.Verse {
			v.alt = n.Number
			if orig != chap {
				v.alt = orig + ":" + n.Number
			} else if v.num == n.Number {
				v.alt = ""
			}
		}
		if k := leadingInt(v.num); lastChap == chap && k >= 0 && k <= last {
			v.cont = true
		}
		if !v.cont {
			lastChap, last = chap, leadingInt(v.num)
		}
		a.at[n] = v
	}
}

// AltChapterRepaired counts \va chapters read as the \ca before them.
const AltChapterRepaired = "alternate verse's chapter read as the \\ca before it"

// cutChapter splits "C:N" into C and N; "N" is no chapter.
func cutChapter(s string) (chap, num string, ok bool) {
	if c, n, found := strings.Cut(s, ":"); found {
		return c, n, true
	}
	return "", s, false
}

func (a *alternator) emitChapter(out *usfm.Book, at *usfm.Node, num string) {
	c := &usfm.Node{Kind: usfm.Chapter, Number: num, Pos: at.Pos}
	if num != a.orig {
		c.Alt = a.orig
	}
	out.Nodes = append(out.Nodes, c)
	a.out = num
}

// para copies a paragraph, renumbering its verses and starting a chapter
// before a verse that begins one.
func (a *alternator) para(out *usfm.Book, n *usfm.Node) error {
	cur := copyNode(n)
	cur.Children = nil
	for _, c := range n.Children {
		switch {
		case c.Kind == usfm.Char && c.Marker == "ca":
			continue
		case c.Kind == usfm.Verse || c.Kind == usfm.Char && c.Marker == "va":
			v := a.at[c]
			if !v.cont && v.chap != a.out {
				if hasContent(cur.Children) {
					out.Nodes = append(out.Nodes, cur)
					cur = copyNode(n)
					cur.Children = nil
				}
				a.emitChapter(out, c, v.chap)
			}
			cur.Children = append(cur.Children, a.verse(c, v))
			continue
		}
		nc, err := a.nested(c)
		if err != nil {
			return err
		}
		cur.Children = append(cur.Children, nc)
	}
	out.Nodes = append(out.Nodes, cur)
	return nil
}

// verse is the node a verse (or a \va without one) becomes.
func (a *alternator) verse(n *usfm.Node, v altVerse) *usfm.Node {
	if v.cont {
		// Shown where it stands, as a \va without a verse is.
		label := v.alt
		if label == "" {
			label = n.Number
		}
		num := &usfm.Node{Kind: usfm.Char, Marker: "va", Pos: n.Pos}
		if n.Kind == usfm.Char {
			return copyNode(n)
		}
		num.Children = []*usfm.Node{{Kind: usfm.Text, Text: label, Pos: n.Pos}}
		return num
	}
	c := copyNode(n)
	if n.Kind == usfm.Char {
		c = &usfm.Node{Kind: usfm.Verse, Pos: n.Pos}
	}
	c.Number, c.Alt = v.num, v.alt
	return c
}

// nested copies a node inside which no chapter may start, renumbering its
// verses.
func (a *alternator) nested(n *usfm.Node) (*usfm.Node, error) {
	c := copyNode(n)
	c.Children = nil
	for _, ch := range n.Children {
		switch {
		case ch.Kind == usfm.Char && ch.Marker == "ca":
			continue
		case ch.Kind == usfm.Verse || ch.Kind == usfm.Char && ch.Marker == "va":
			v := a.at[ch]
			if !v.cont && v.chap != a.out {
				return nil, usfm.Diag{File: a.file, Pos: ch.Pos, Msg: fmt.Sprintf("alternate chapter %s starts inside a %s: it cannot be published in the alternate numbering", v.chap, n.Kind)}
			}
			c.Children = append(c.Children, a.verse(ch, v))
			continue
		}
		nc, err := a.nested(ch)
		if err != nil {
			return nil, err
		}
		c.Children = append(c.Children, nc)
	}
	return c, nil
}

func copyNode(n *usfm.Node) *usfm.Node {
	c := *n
	return &c
}

// hasContent reports whether nodes hold anything but spaces.
func hasContent(nodes []*usfm.Node) bool {
	for _, n := range nodes {
		if n.Kind != usfm.Text || strings.TrimSpace(n.Text) != "" {
			return true
		}
	}
	return false
}
