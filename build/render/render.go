// Package render turns a parsed USFM book into what the API publishes: the
// book's entry in the Bible index (chapters, verses, intro) and, for every
// verse and for the introduction, a list of bible.Segment from which any
// passage can be composed (bible.ComposeHTML, bible.ComposeText).
//
// Decisions this package takes, beyond DESIGN.md's markup:
//
//   - Ownership. Every piece of the book belongs to exactly one verse (or to
//     the introduction). Text that continues a paragraph or starts a new one
//     without a \v belongs to the verse in progress. Headings, blank lines
//     (\b) and anything between \c and the chapter's first \v wait for the
//     next verse, so a verse passage shown with headings starts with the
//     headings above it and a chapter shows them all. Something waiting when
//     a paragraph continues the verse in progress goes to that verse (a
//     heading or \b in the middle of a verse stays in place). What is still
//     waiting at the end of the book goes to its last verse.
//   - Text before a chapter's first \v (paragraph text, not headings) is
//     verse 1 when that first \v is above 1: the source left out the
//     marker (the BSB's psalms without a superscription). The verse is
//     added to the index, its label starts its first paragraph, and the
//     repair is counted (ImpliedVerse1). When the first \v is 1 (or
//     below), that text is no verse's: it is the chapter's title, shown
//     like a \d as a heading (class "d yv-h") above verse 1 and never in a
//     verse's text (ChapterTitle; WEB SIR 51). Text in a chapter with no
//     verse at all is damage.
//   - A heading is a paragraph whose marker is a heading marker (\s1-4, \ms,
//     \mr, \r, \sr, \sp, \d, \qa, \qd, \cl, \lit, \mte, \sd; in an
//     introduction \imt, \is, \iot, \imte) and that holds no verse. A \d
//     that holds a verse (Hebrew-style superscription numbered as verse 1)
//     is an ordinary paragraph with class "d". Introduction markers met
//     after the first \c (the KJV 1611's \iex chapter summaries) are
//     headings too: they are not verse text.
//   - \mt titles and a \cl before the first \c (a label for every chapter)
//     are not rendered; \mt feeds the book's title when \toc/\h are missing.
//   - \w (and \+w) render their text only; milestones (\qt-s, \k-e …)
//     render their content only.
//   - Alternate and published numbers show in the HTML and are never
//     text: a verse's \va follows its label as <span class="va">, a \vp
//     is the label, with class "yv-vlbl vp", and a \ca (after \c, or
//     where the other numbering's chapter starts) shows as <span
//     class="ca"> after the label of the next verse. A \va without a
//     verse (a psalm title counted as verses elsewhere) is a va span where
//     it stands.
//   - Footnotes (\f, \fe, \ef) render as "yv-n f", cross references (\x,
//     \ex) as "yv-n x": the two classes clients know. Callers are dropped.
//   - Tables: each row (\tr) is its own paragraph with class "tr", and each
//     cell a <span class="tc1"> (th1, tcr2 … : the cell's marker). A verse
//     may start inside a cell; the cell span is closed and reopened around
//     the boundary like any character style. Cells are separated, in HTML
//     and in text, by one space.
//   - A verse range \v 15-16 (a bridge) is one verse, id and title "15",
//     End "16" (which the API's index has no field for: the build keeps
//     it beside, bible.Bridges); its label shows "15-16". \vp replaces the label only. A verse number repeated
//     in a chapter merges into the first verse of that number, and a verse
//     number lower than one before it in the chapter stays where it is;
//     both are damage (usfm.Damage), which an import refuses. The merged
//     text keeps its own label. A malformed number keeps its
//     leading letters and digits ("\v 14..." in the BSB is verse 14, with a
//     warning); one with none is an error.
//   - Spaces: the space after a paragraph or verse marker is dropped, and a
//     space that would double the one before it; a verse keeps its trailing
//     space (it separates it from the next verse in the paragraph), and
//     bible.ComposeHTML trims spaces before a paragraph's </div>.
//   - Caps (bible.MaxChapters, bible.MaxVerses, bible.MaxVerseBytes): a
//     book beyond them is an error naming the place where it went beyond.
//   - A character style open at a verse boundary is closed at the end of
//     one segment and reopened after the next verse's label; styles open
//     lazily, so no empty span is left at a boundary.
package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

// ErrPeripheral is returned (wrapped) for a book that is not one of the
// canonical books (FRT, GLO, BAK …): it is no part of a Bible's books.
var ErrPeripheral = errors.New("not a canonical book")

// ErrNoChapters is returned (wrapped) for a book without any \c.
var ErrNoChapters = errors.New("book has no chapters")

// Book is a rendered book.
type Book struct {
	// Index is the book's entry in the Bible index. Index.Intro is nil when
	// the book has no introduction.
	Index bible.Book
	// Intro holds the introduction's segments; nil when there is none.
	Intro []bible.Segment
	// Chapters is parallel to Index.Chapters.
	Chapters []Chapter
	// Warnings are problems that did not stop rendering.
	Warnings []usfm.Diag
}

// Chapter is a rendered chapter.
type Chapter struct {
	// Verses is parallel to the index chapter's Verses: the segments of
	// each verse, in source order.
	Verses [][]bible.Segment
}

// Options tune rendering.
type Options struct {
	// Language is the BCP 47 tag of the Bible, used for words the source
	// does not give, such as the title of an untitled introduction.
	Language string
	// File names the source in warnings and errors.
	File string
	// Alternate publishes the book in the numbering of its \va and \ca
	// markers instead of its \c and \v (see alternate); the \c and \v
	// numbers then show as the alternate ones.
	Alternate bool
}

// Render renders one parsed book. A peripheral book yields an error that
// wraps ErrPeripheral.
func Render(b *usfm.Book, opt Options) (*Book, error) {
	id := bible.BookID(b.ID)
	if !id.Canonical() {
		return nil, fmt.Errorf("render %s: %w", b.ID, ErrPeripheral)
	}
	r := &renderer{opt: opt, id: id, out: &Book{}, chap: -1, verse: -1, lastChap: -1, lastNum: -1, sizeOwn: owner{kind: toPending}}
	if opt.Alternate {
		alt, warns, err := alternate(b, opt.File)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", b.ID, err)
		}
		b = alt
		r.out.Warnings = warns
	}
	r.out.Index = bible.Book{
		ID:    id,
		Canon: id.Canon(),
	}
	if err := r.blocks(b.Nodes); err != nil {
		return nil, fmt.Errorf("render %s: %w", b.ID, err)
	}
	if len(r.out.Chapters) == 0 {
		return nil, fmt.Errorf("render %s: %w", b.ID, ErrNoChapters)
	}
	r.finishChapter()
	if r.tooBig != nil {
		return nil, fmt.Errorf("render %s: %w", b.ID, r.errorf(r.tooBig, "a verse renders to more than %d bytes", bible.MaxVerseBytes))
	}
	if len(r.pending) > 0 {
		// Headings after the book's last verse: keep them with that verse.
		if r.lastChap >= 0 {
			vs := r.out.Chapters[r.lastChap].Verses
			vs[len(vs)-1] = append(vs[len(vs)-1], r.pending...)
		}
		r.pending = nil
	}
	r.titles(b)
	if len(r.out.Intro) > 0 {
		title := r.introTitle
		if title == "" {
			title = IntroductionWord(opt.Language)
		}
		r.out.Index.Intro = &bible.Intro{
			ID:        bible.IntroChapter,
			PassageID: string(id) + "." + bible.IntroChapter,
			Title:     title,
		}
	} else {
		r.out.Intro = nil
	}
	return r.out, nil
}

// titles fills title, full_title and abbreviation from \toc2, \toc1, \toc3,
// falling back to \h and then to the \mt titles (the main \mt for title and
// abbreviation, all \mt lines joined for full_title).
func (r *renderer) titles(b *usfm.Book) {
	h := strings.TrimSpace(b.Headers["h"])
	mainMT := r.mainTitle
	if mainMT == "" && len(r.mts) > 0 {
		mainMT = r.mts[0]
	}
	first := func(ss ...string) string {
		for _, s := range ss {
			if s = strings.TrimSpace(s); s != "" {
				return s
			}
		}
		return ""
	}
	r.out.Index.Title = first(b.Headers["toc2"], h, mainMT)
	r.out.Index.FullTitle = first(b.Headers["toc1"], h, strings.Join(r.mts, " "))
	r.out.Index.Abbreviation = first(b.Headers["toc3"], h, mainMT)
}

// introWords is the localized title of an introduction that has no \imt or
// \is of its own, by ISO 639 language.
var introWords = map[string]string{
	"en":  "Introduction",
	"es":  "Introducción",
	"fr":  "Introduction",
	"pt":  "Introdução",
	"it":  "Introduzione",
	"de":  "Einleitung",
	"nl":  "Inleiding",
	"he":  "מבוא",
	"hbo": "מבוא",
}

// IntroductionWord returns the word "Introduction" in the language of the
// BCP 47 tag lang (its primary subtag decides), falling back to English.
func IntroductionWord(lang string) string {
	base, _, _ := strings.Cut(lang, "-")
	base, _, _ = strings.Cut(base, "_")
	switch base = strings.ToLower(base); base {
	case "iw":
		base = "he"
	case "spa":
		base = "es"
	case "eng":
		base = "en"
	}
	if w, ok := introWords[base]; ok {
		return w
	}
	return introWords["en"]
}
