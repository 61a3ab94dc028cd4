// Package usfm parses USFM 3 into a small tree shaped like USX: a book is a
// list of block nodes (paragraphs, chapters, tables), and paragraphs hold
// inline nodes (text, verses, character styles, notes).
package usfm

import "fmt"

// Kind says what a Node is.
type Kind uint8

const (
	// Para is a block: a paragraph, poetry line, heading, title or
	// introduction paragraph. Marker is the USFM marker without its
	// backslash ("p", "q1", "s1", "ip", "mt1", "d", "b", "li1", "cl").
	// Children are inline nodes.
	Para Kind = iota + 1
	// Chapter is a \c marker, a block. Number is the \c number, Pub the \cp
	// published number and Alt the \ca alternate number, when present.
	Chapter
	// Verse is a \v marker, inline inside a Para (or a table cell). Number is
	// the \v number as written ("1", "15-16", "3a"), Pub the \vp published
	// number and Alt the \va alternate number.
	Verse
	// Text is a run of text. Whitespace is already normalised: line breaks
	// and runs of spaces are one space.
	Text
	// Char is a character style (\wj …\wj*, \w word|strong="H1"\w*, \+nd …).
	// Marker is the style without backslash or '+'; Attrs holds its
	// attributes (a lone default attribute under its default name, e.g.
	// "lemma" for \w). Children are inline nodes.
	Char
	// Note is a footnote or cross reference (\f, \fe, \ef, \x, \ex). Marker
	// is the note marker, Caller its caller ("+", "-", "a"). Children are
	// Char nodes with markers such as "fr", "ft", "fq", "xo", "xt", and Text.
	Note
	// Table is a block whose Children are Row nodes.
	Table
	// Row is a table row (\tr) whose Children are Cell nodes.
	Row
	// Cell is a table cell; Marker is "th1", "tc2", "tcr1", … and Children
	// are inline nodes.
	Cell
)

func (k Kind) String() string {
	switch k {
	case Para:
		return "para"
	case Chapter:
		return "chapter"
	case Verse:
		return "verse"
	case Text:
		return "text"
	case Char:
		return "char"
	case Note:
		return "note"
	case Table:
		return "table"
	case Row:
		return "row"
	case Cell:
		return "cell"
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Pos is a place in a source file: 1-based line and column (in bytes).
type Pos struct {
	Line, Col int
}

// Node is one element of the tree. Which fields are used depends on Kind.
type Node struct {
	Kind     Kind
	Marker   string
	Text     string // Text: the text
	Number   string // Chapter, Verse: the number as written
	Pub      string // Chapter: \cp; Verse: \vp
	Alt      string // Chapter: \ca; Verse: \va
	Caller   string // Note: the caller
	Attrs    map[string]string
	Children []*Node
	Pos      Pos
}

// Book is one parsed USFM file.
type Book struct {
	ID     string // the \id code, upper case, e.g. "GEN", "FRT"
	IDText string // free text after the code on the \id line
	// Headers holds the identification markers that are not part of the
	// text: "ide", "h", "toc1", "toc2", "toc3", "toca1"…, "usfm", "sts".
	// Titles (\mt1…) stay in Nodes as Para blocks.
	Headers map[string]string
	// Nodes are the blocks of the book in source order: introduction
	// paragraphs, titles and headings, chapters, paragraphs, tables.
	Nodes    []*Node
	Warnings []Diag
}

// Diag is a warning or error tied to a place in a source file. It prints
// as file:line:col: message.
type Diag struct {
	File string
	Pos  Pos
	Msg  string
	// Sev says what the problem means for publishing; a returned error is
	// always fatal whatever its Sev.
	Sev Severity
	// Class names a repair (Sev == Repaired) for reports that count repairs
	// by kind, such as "verse number glued to its text".
	Class string
}

// Severity ranks a diagnostic.
type Severity uint8

const (
	// Warning: the source is unusual but what is published is what it says
	// (an unknown character style, an unclosed note).
	Warning Severity = iota
	// Repaired: a known habit of real sources was read as its author meant
	// (\v 7And is verse 7 "And…"); counted by Class.
	Repaired
	// Damage: publishing the book would publish damaged structure (a
	// chapter number that is not a number, a verse lost into an unknown
	// marker). An import refuses such a book unless told to publish anyway.
	Damage
)

func (s Severity) String() string {
	switch s {
	case Repaired:
		return "repaired"
	case Damage:
		return "damage"
	}
	return "warning"
}

func (d Diag) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", d.File, d.Pos.Line, d.Pos.Col, d.Msg)
}
