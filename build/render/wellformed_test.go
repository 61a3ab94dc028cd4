package render

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// scanHTML walks the markup this package produces: <div> and <span>
// elements whose attributes are quoted, text where & < > appear only as
// entities. It calls text for each run of text (entities decoded) and
// start/end for tags, and fails on anything else, crossed or unbalanced
// tags included. It is stricter than an HTML parser and much faster than
// encoding/xml, which matters across three whole Bibles.
func scanHTML(s string, start func(name, class string), end func(), text func(string)) error {
	var stack []string
	roots := 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			j := strings.IndexByte(s[i:], '>')
			if j < 0 {
				return fmt.Errorf("unterminated tag at %d", i)
			}
			tag := s[i+1 : i+j]
			i += j + 1
			if strings.ContainsAny(tag, "<&") {
				return fmt.Errorf("bad tag <%s>", tag)
			}
			if name, ok := strings.CutPrefix(tag, "/"); ok {
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return fmt.Errorf("</%s> closes %v", name, stack)
				}
				stack = stack[:len(stack)-1]
				end()
				continue
			}
			name, attrs, _ := strings.Cut(tag, " ")
			if name != "div" && name != "span" {
				return fmt.Errorf("unexpected element <%s>", name)
			}
			class := ""
			for attrs != "" {
				k, rest, ok := strings.Cut(attrs, `="`)
				if !ok || k == "" || strings.ContainsAny(k, ` "`) {
					return fmt.Errorf("bad attributes in <%s>", tag)
				}
				v, rest, ok := strings.Cut(rest, `"`)
				if !ok {
					return fmt.Errorf("unterminated attribute in <%s>", tag)
				}
				if k == "class" {
					class = v
				}
				attrs = strings.TrimPrefix(rest, " ")
			}
			if len(stack) == 0 {
				roots++
			}
			stack = append(stack, name)
			start(name, class)
		case '>':
			return fmt.Errorf("raw '>' in text at %d", i)
		default:
			j := strings.IndexAny(s[i:], "<>")
			if j < 0 {
				j = len(s) - i
			}
			raw := s[i : i+j]
			i += j
			if len(stack) == 0 {
				return fmt.Errorf("text outside the root element: %q", raw)
			}
			t, err := unescape(raw)
			if err != nil {
				return err
			}
			text(t)
		}
	}
	if len(stack) != 0 {
		return fmt.Errorf("unclosed %v", stack)
	}
	if roots != 1 {
		return fmt.Errorf("%d root elements, want 1", roots)
	}
	return nil
}

var entities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`)

func unescape(s string) (string, error) {
	if !strings.Contains(s, "&") {
		return s, nil
	}
	t := entities.Replace(s)
	if strings.Count(t, "&") != strings.Count(s, "&amp;") {
		return "", fmt.Errorf("bare & or unknown entity in %q", s)
	}
	return t, nil
}

// checkHTML reports whether s is one well-formed element (DESIGN.md: any
// verse range is valid, balanced HTML on its own).
func checkHTML(s string) error {
	return scanHTML(s, func(string, string) {}, func() {}, func(string) {})
}

// visibleText is the text a reader sees in an HTML fragment minus verse
// labels and notes: what the Text of the same segment must be.
// numberClasses are the spans of verse and chapter numbers: the label,
// a published label, alternate verse and chapter numbers.
var numberClasses = map[string]bool{"yv-vlbl": true, "yv-vlbl vp": true, "va": true, "vp": true, "ca": true}

func visibleText(fragment string) (string, error) {
	var b strings.Builder
	var hide []bool // per open element: is its text hidden?
	hidden := func() bool { return len(hide) > 0 && hide[len(hide)-1] }
	err := scanHTML("<div>"+fragment+"</div>",
		func(_, class string) {
			hide = append(hide, hidden() || numberClasses[class] || strings.HasPrefix(class, "yv-n "))
		},
		func() { hide = hide[:len(hide)-1] },
		func(t string) {
			if !hidden() {
				b.WriteString(t)
			}
		})
	return b.String(), err
}

// dropNotes removes the note spans from a Notes fragment.
func dropNotes(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, `<span class="yv-n `)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		depth, j := 0, i
		for {
			o := strings.Index(s[j:], "<span")
			c := strings.Index(s[j:], "</span>")
			if c < 0 {
				return b.String() + "!unbalanced"
			}
			if o >= 0 && o < c {
				depth++
				j += o + 5
				continue
			}
			depth--
			j += c + 7
			if depth == 0 {
				break
			}
		}
		s = s[j:]
	}
}

var emptySpan = regexp.MustCompile(`<span class="[^"]*"></span>`)

func dropEmptySpans(s string) string {
	for {
		t := emptySpan.ReplaceAllString(s, "")
		if t == s {
			return s
		}
		s = t
	}
}

// noteTexts returns the text of each \ft in a Notes fragment.
func noteTexts(s string) []string {
	var out []string
	for {
		i := strings.Index(s, `<span class="ft">`)
		if i < 0 {
			return out
		}
		s = s[i+len(`<span class="ft">`):]
		j := strings.Index(s, "<")
		if j < 0 {
			return out
		}
		out = append(out, s[:j])
		s = s[j:]
	}
}

func checkSegments(where string, segs []bible.Segment) []string {
	var errs []string
	for i, s := range segs {
		for _, frag := range []string{s.HTML, s.Notes} {
			if err := checkHTML("<div>" + frag + "</div>"); err != nil {
				errs = append(errs, fmt.Sprintf("%s segment %d: %v in %s", where, i, err, frag))
			}
		}
		if strings.Contains(s.HTML, "yv-n") {
			errs = append(errs, fmt.Sprintf("%s segment %d: a note in HTML: %s", where, i, s.HTML))
		}
		// A style whose only content is a note is left out of HTML, so
		// compare without empty spans.
		if got := dropEmptySpans(dropNotes(s.Notes)); got != dropEmptySpans(s.HTML) {
			errs = append(errs, fmt.Sprintf("%s segment %d: Notes without notes\n%s\nis not HTML\n%s", where, i, got, s.HTML))
		}
		if vis, err := visibleText(s.HTML); err == nil && vis != s.Text {
			errs = append(errs, fmt.Sprintf("%s segment %d: Text %q, but HTML shows %q", where, i, s.Text, vis))
		}
	}
	return errs
}

var (
	allCombos = [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}}
	// Headings and notes only ever add whole balanced segments or spans, so
	// runs are checked with none and with both.
	edgeCombos = [][2]bool{{false, false}, {true, true}}
)

func checkRun(where string, segs []bible.Segment) []string {
	return checkRunWith(where, segs, allCombos)
}

func checkRunWith(where string, segs []bible.Segment, combos [][2]bool) []string {
	var errs []string
	for _, c := range combos {
		h := bible.ComposeHTML(segs, c[0], c[1])
		if err := checkHTML(h); err != nil {
			errs = append(errs, fmt.Sprintf("%s headings=%v notes=%v: %v\n%s", where, c[0], c[1], err, h))
		}
	}
	return errs
}

// TestComposeWellFormed composes every verse, every chapter and runs of
// verses (within and across chapters) of three real Bibles and checks the
// HTML is well formed and the text free of notes.
func TestComposeWellFormed(t *testing.T) {
	for _, tc := range []struct{ name, lang string }{
		{"eng-web", "en"}, {"eng-bsb", "en"}, {"hbo-uhb", "hbo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			books := renderBible(t, tc.name, tc.lang)
			var errs []string
			verses, leaks := 0, 0
			for _, b := range books {
				errs = append(errs, checkSegments(string(b.Index.ID)+" intro", b.Intro)...)
				if b.Intro != nil {
					errs = append(errs, checkRun(string(b.Index.ID)+" intro", b.Intro)...)
				}
				var prev []bible.Segment // the end of the previous chapter
				for ci, ch := range b.Chapters {
					cid := b.Index.Chapters[ci].PassageID
					var all []bible.Segment
					for vi, v := range ch.Verses {
						pid := b.Index.Chapters[ci].Verses[vi].PassageID
						verses++
						if len(v) == 0 {
							errs = append(errs, pid+": no segments")
						}
						errs = append(errs, checkSegments(pid, v)...)
						errs = append(errs, checkRun(pid, v)...)
						all = append(all, v...)
					}
					errs = append(errs, checkRun(cid, all)...)
					for _, n := range []int{2, 7} {
						for start := 0; start+n <= len(ch.Verses); start += 3 {
							var run []bible.Segment
							for _, v := range ch.Verses[start : start+n] {
								run = append(run, v...)
							}
							errs = append(errs, checkRunWith(fmt.Sprintf("%s run %d+%d", cid, start, n), run, edgeCombos)...)
						}
					}
					if prev != nil && len(ch.Verses) > 0 {
						run := append(append([]bible.Segment(nil), prev...), ch.Verses[0]...)
						errs = append(errs, checkRun(cid+" across chapters", run)...)
					}
					if len(ch.Verses) > 0 {
						prev = ch.Verses[len(ch.Verses)-1]
					}
					text := bible.ComposeText(all)
					for _, s := range all {
						for _, ft := range noteTexts(s.Notes) {
							if len(ft) >= 40 && strings.Contains(text, strings.TrimSpace(ft)) {
								leaks++
								errs = append(errs, fmt.Sprintf("%s: footnote text %q in the text", cid, ft))
							}
						}
					}
					if strings.Contains(text, "<") {
						errs = append(errs, cid+": markup in the text")
					}
				}
			}
			for i, e := range errs {
				if i == 20 {
					t.Errorf("… %d problems in all", len(errs))
					break
				}
				t.Error(e)
			}
			t.Logf("%d books, %d verses checked", len(books), verses)
		})
	}
}

func TestCheckersCanFail(t *testing.T) {
	for _, bad := range []string{
		`<div><span>a</div></span>`, `<div>a & b</div>`, `<div><span>a</div>`, `<div></div><div></div>`, `<div><b>x</b></div>`,
		`<div>a > b</div>`, `<div class="a>b</div>`, `x<div></div>`, `<div>&nbsp;</div>`,
	} {
		if checkHTML(bad) == nil {
			t.Errorf("checkHTML(%q) = nil, want an error", bad)
		}
	}
	seg := bible.Segment{HTML: "a", Notes: `a<span class="yv-n f"><span class="ft">n</span></span>`, Text: "a n"}
	if len(checkSegments("x", []bible.Segment{seg})) == 0 {
		t.Error("note text in Text not reported")
	}
	if err := checkHTML(`<div class="p"><span class="yv-v" v="1"></span>a &amp; &lt;b&gt;</div>`); err != nil {
		t.Errorf("checkHTML refuses good markup: %v", err)
	}
	if err := checkHTML(`<div class="p"><span class="yv-v" v="1"></span>a &amp; &lt;b&gt; "q"</div>`); err != nil {
		t.Errorf("checkHTML refuses good markup: %v", err)
	}
	if got := dropNotes(`a<span class="yv-n f"><span class="ft">n</span></span> b`); got != "a b" {
		t.Errorf("dropNotes = %q", got)
	}
}
