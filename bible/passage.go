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

// blank reports a segment without any content: a paragraph break such as
// USFM's \b.
func (s *Segment) blank() bool { return s.HTML == "" && s.Notes == "" }

// ComposeHTML renders segments as one passage: an outer <div> holding one
// <div class="…"> per paragraph (DESIGN.md's markup). Headings are kept only
// with headings, notes only with notes.
//
// Blank paragraphs (\b) at the start or end of the passage are dropped: they
// separate paragraphs, and there is nothing to separate at an edge. Spaces
// at the end of a paragraph are dropped too (the source's space between
// verses is kept inside a paragraph).
func ComposeHTML(segs []Segment, headings, notes bool) string {
	first, last, size := -1, -1, 0
	for i := range segs {
		s := &segs[i]
		if s.Heading && !headings || s.blank() {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		size += len(s.Notes) + len(s.Class) + 20
	}
	b := make([]byte, 0, size+11)
	b = append(b, "<div>"...)
	open, para := false, 0
	for i := first; first >= 0 && i <= last; i++ {
		s := &segs[i]
		if s.Heading && !headings {
			continue
		}
		if !open || s.Para != para {
			if open {
				b = closeDiv(b)
			}
			b = append(b, `<div class="`...)
			b = appendAttr(b, s.Class)
			b = append(b, `">`...)
			open, para = true, s.Para
		}
		if notes {
			b = append(b, s.Notes...)
		} else {
			b = append(b, s.HTML...)
		}
	}
	if open {
		b = closeDiv(b)
	}
	b = append(b, "</div>"...)
	return string(b)
}

func closeDiv(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return append(b, "</div>"...)
}

func appendAttr(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b = append(b, "&amp;"...)
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '"':
			b = append(b, "&quot;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// ComposeText renders segments as plain text: no headings, no notes, one
// line per paragraph, each line trimmed, and paragraphs without text left
// out (so a \b stanza break makes no empty line).
func ComposeText(segs []Segment) string {
	var b, line strings.Builder
	flush := func() {
		if t := strings.TrimSpace(line.String()); t != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t)
		}
		line.Reset()
	}
	open, para := false, 0
	for i := range segs {
		s := &segs[i]
		if s.Heading {
			continue
		}
		if open && s.Para != para {
			flush()
		}
		open, para = true, s.Para
		line.WriteString(s.Text)
	}
	flush()
	return b.String()
}
