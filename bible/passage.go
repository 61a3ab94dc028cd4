package bible

import "strings"

// Segment is the part of one verse (or of an introduction) that lies in one
// source paragraph. Rendering keeps a verse as a list of segments so that any
// run of verses can be put back together as balanced HTML: consecutive
// segments with the same Para number share one <div>.
type Segment struct {
	Para    int    // sequence number of the source paragraph within its book
	Class   string // the paragraph's class: its USFM marker ("p", "q1"), or e.g. "s1 yv-h" for a heading
	Heading bool   // a heading, shown only with include_headings
	HTML    string // inner HTML, footnotes and cross references left out
	Notes   string // inner HTML with footnotes and cross references
	Text    string // plain text: no markup, no notes
}

// ComposeHTML renders segments as one passage: an outer <div> holding one
// <div class="…"> per paragraph (DESIGN.md's markup). Headings are kept only
// with headings, notes only with notes.
func ComposeHTML(segs []Segment, headings, notes bool) string {
	var b strings.Builder
	b.WriteString("<div>")
	open, para := false, 0
	for i := range segs {
		s := &segs[i]
		if s.Heading && !headings {
			continue
		}
		if !open || s.Para != para {
			if open {
				b.WriteString("</div>")
			}
			b.WriteString(`<div class="`)
			b.WriteString(s.Class)
			b.WriteString(`">`)
			open, para = true, s.Para
		}
		if notes {
			b.WriteString(s.Notes)
		} else {
			b.WriteString(s.HTML)
		}
	}
	if open {
		b.WriteString("</div>")
	}
	b.WriteString("</div>")
	return b.String()
}

// ComposeText renders segments as plain text: no headings, no notes, one
// line per paragraph.
func ComposeText(segs []Segment) string {
	var b strings.Builder
	open, para := false, 0
	for i := range segs {
		s := &segs[i]
		if s.Heading {
			continue
		}
		if open && s.Para != para {
			trimLineEnd(&b)
			b.WriteByte('\n')
		}
		open, para = true, s.Para
		if b.Len() == 0 || strings.HasSuffix(b.String(), "\n") {
			b.WriteString(strings.TrimLeft(s.Text, " "))
		} else {
			b.WriteString(s.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

func trimLineEnd(b *strings.Builder) {
	s := b.String()
	t := strings.TrimRight(s, " ")
	if len(t) != len(s) {
		b.Reset()
		b.WriteString(t)
	}
}
