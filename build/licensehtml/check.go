// Package licensehtml checks a licence's text, HTML written by people,
// against what a licence needs: text structure and links. The text is
// published as the licence's html field, which apps display, and the
// developer portal shows it as it is, so whatever is not on the allowlist
// is refused (never removed: the author's text is stored as written or not
// at all), with the line and column of each thing refused.
package licensehtml

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/language"
)

// elements are the elements a licence may use, and the attributes each
// may carry besides the global ones (globalAttrs).
var elements = map[string][]string{
	"p": nil, "br": nil, "hr": nil, "div": nil, "span": nil, "blockquote": nil,
	"h1": nil, "h2": nil, "h3": nil, "h4": nil, "h5": nil, "h6": nil,
	"ul": nil, "ol": nil, "li": nil,
	"em": nil, "strong": nil, "b": nil, "i": nil, "u": nil, "small": nil, "sub": nil, "sup": nil,
	"table": nil, "caption": nil, "thead": nil, "tbody": nil, "tfoot": nil, "tr": nil, "th": nil, "td": nil,
	"a": {"href", "title"},
}

// globalAttrs are the attributes every element may carry: the text's
// direction and language, which a licence in a right-to-left language or
// in two languages needs.
var globalAttrs = []string{"dir", "lang"}

// schemes are the schemes of a link's href. A relative URL is refused:
// apps resolve it against a base nobody chose (a file, an app's own
// origin), and the portal against its own pages.
var schemes = []string{"https", "http", "mailto"}

// void elements have no end tag.
var void = map[string]bool{"br": true, "hr": true}

// phrasing elements hold text, never a block: a block inside them (or
// inside p or a heading) is moved out by an HTML parser, so the page
// would not show what the author wrote.
var phrasing = map[string]bool{
	"a": true, "em": true, "strong": true, "b": true, "i": true, "u": true, "small": true,
	"sub": true, "sup": true, "span": true, "br": true,
}

// textOnly are the elements whose content is phrasing only.
var textOnly = map[string]bool{"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true}

// parents says where the parts of lists and tables may stand; children,
// what lists and tables may hold directly (anything else, text included,
// is moved elsewhere by a parser).
var (
	parents = map[string][]string{
		"li": {"ul", "ol"}, "caption": {"table"}, "thead": {"table"}, "tbody": {"table"}, "tfoot": {"table"},
		"tr": {"table", "thead", "tbody", "tfoot"}, "th": {"tr"}, "td": {"tr"},
	}
	children = map[string][]string{
		"ul": {"li"}, "ol": {"li"}, "table": {"caption", "thead", "tbody", "tfoot", "tr"},
		"thead": {"tr"}, "tbody": {"tr"}, "tfoot": {"tr"}, "tr": {"th", "td"},
	}
)

// Problem is one thing of a text that is not allowed.
type Problem struct {
	Line, Col int // 1-based; Col counts characters
	What      string
}

func (p Problem) String() string { return fmt.Sprintf("line %d col %d: %s", p.Line, p.Col, p.What) }

// Error lists every Problem of a text.
type Error struct {
	Problems []Problem
	// elementRefused: the error ends with the elements a licence may use.
	elementRefused bool
}

// maxShown is how many problems Error names; a text that is not HTML at
// all would otherwise make an error as long as itself.
const maxShown = 20

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("not allowed in a licence's HTML: ")
	for i, p := range e.Problems {
		if i == maxShown {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-maxShown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	if e.elementRefused {
		b.WriteString(" (a licence may use the elements " + allowedNames() + ")")
	}
	return b.String()
}

// open is an element the text opened and has not closed yet.
type open struct {
	name      string
	line, col int
}

// checker walks a text's tokens, keeping the elements open and the
// position of the token it is at.
type checker struct {
	text           string
	problems       []Problem
	elementRefused bool
	refused        map[string]bool // elements refused, whose end tags go unsaid
	stack          []open
	line, col      int // of the current token
}

// Check checks text, a licence's HTML, and returns an *Error naming
// everything not allowed, or nil. Allowed are the elements of elements
// with their attributes and globalAttrs, links to absolute URLs of
// schemes, character references, and nothing else: no comment, no
// doctype, no CDATA. Every element but br and hr is closed explicitly, in
// order, and holds only what a parser leaves where it is written (no block
// in a paragraph, no link in a link, list items in lists, table parts in
// tables), so the text cannot reach the page around it.
func Check(text string) error {
	c := &checker{text: text, line: 1, col: 1}
	if c.characters() {
		c.tokens()
	}
	if len(c.problems) > 0 {
		return &Error{Problems: c.problems, elementRefused: c.elementRefused}
	}
	return nil
}

// characters refuses bytes that are not UTF-8 and control characters
// other than white space; it reports whether the text is tokenizable
// without them changing how it reads.
func (c *checker) characters() bool {
	for i, r := range c.text {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(c.text[i:], "\uFFFD"):
			c.addAt(i, "a byte that is not UTF-8")
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f', r == 0x7f:
			c.addAt(i, fmt.Sprintf("the control character %U", r))
		default:
			continue
		}
		return false
	}
	return true
}

func (c *checker) tokens() {
	z := html.NewTokenizer(strings.NewReader(c.text))
	for {
		tt := z.Next()
		raw := string(z.Raw())
		switch tt {
		case html.ErrorToken:
			if !errors.Is(z.Err(), io.EOF) {
				c.add(z.Err().Error())
			} else if raw != "" {
				// A tag cut off at the end would go on into the markup
				// that follows the text where it is shown.
				c.add(fmt.Sprintf("%s, cut off at the end (a tag ends with >)", quote(raw)))
			}
			for _, o := range slices.Backward(c.stack) {
				c.problems = append(c.problems, Problem{o.line, o.col, fmt.Sprintf("<%s> is not closed", o.name)})
			}
			return
		case html.TextToken:
			c.checkText(raw)
		case html.StartTagToken, html.SelfClosingTagToken:
			c.startTag(z.Token(), raw, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			c.endTag(z.Token().Data)
		case html.CommentToken:
			c.add(fmt.Sprintf("%s %s (comments, CDATA and <!…> or <?…> are not allowed: parsers disagree on where they end)", declKind(raw), quote(raw)))
		case html.DoctypeToken:
			c.add(fmt.Sprintf("the doctype %s", quote(raw)))
		}
		c.advance(raw)
	}
}

// advance moves the position past raw.
func (c *checker) advance(raw string) {
	if i := strings.LastIndexByte(raw, '\n'); i >= 0 {
		c.line += strings.Count(raw, "\n")
		c.col = utf8.RuneCountInString(raw[i+1:]) + 1
		return
	}
	c.col += utf8.RuneCountInString(raw)
}

func declKind(raw string) string {
	switch {
	case strings.HasPrefix(raw, "<!--"):
		return "the comment"
	case strings.HasPrefix(raw, "<![CDATA["):
		return "the CDATA section"
	default:
		return "the markup declaration"
	}
}

// checkText refuses a bare < and text where a parser would move it:
// straight inside a list or a table.
func (c *checker) checkText(raw string) {
	// A < that starts no tag is text to an HTML parser, but at the end of
	// the text ("</") it would join the markup that follows where the text
	// is shown, and other parsers read it otherwise.
	if i := strings.IndexByte(raw, '<'); i >= 0 {
		line, col := c.line, c.col
		c.advance(raw[:i])
		c.add("a bare < (write &lt;)")
		c.line, c.col = line, col
	}
	if len(c.stack) == 0 || strings.TrimLeft(raw, " \t\n\r\f") == "" {
		return
	}
	if top := c.stack[len(c.stack)-1].name; children[top] != nil {
		c.add(fmt.Sprintf("text straight inside <%s> (put it in <%s>)", top, children[top][0]))
	}
}

func (c *checker) startTag(t html.Token, raw string, selfClosing bool) {
	attrs, ok := elements[t.Data]
	if !ok {
		c.add(fmt.Sprintf("the element <%s>", t.Data))
		c.elementRefused = true
		if c.refused == nil {
			c.refused = map[string]bool{}
		}
		c.refused[t.Data] = true
		return
	}
	// t.Attr holds the first attribute of each name, as HTML parsers keep
	// it (WHATWG 13.2.5.33); other parsers (an app's) may keep the last,
	// which nothing would have checked.
	if names := attrNames(raw); len(names) != len(t.Attr) {
		for i, n := range names {
			if slices.Contains(names[:i], n) {
				c.add(fmt.Sprintf("a second %s on <%s> (parsers disagree on which one counts)", n, t.Data))
				break
			}
		}
	}
	for _, a := range t.Attr {
		if a.Namespace != "" || !slices.Contains(attrs, a.Key) && !slices.Contains(globalAttrs, a.Key) {
			c.add(fmt.Sprintf("the attribute %s of <%s> (%s)", a.Key, t.Data, allowedAttrs(t.Data)))
		} else if err := checkValue(a.Key, a.Val); err != nil {
			c.add(fmt.Sprintf("%s of <%s>: %v", a.Key, t.Data, err))
		}
	}
	if selfClosing && !void[t.Data] {
		c.add(fmt.Sprintf("<%s/> (only br and hr close themselves; write <%s></%s>)", t.Data, t.Data, t.Data))
		return
	}
	c.placed(t.Data)
	if !void[t.Data] {
		c.stack = append(c.stack, open{t.Data, c.line, c.col})
	}
}

// attrNames are the names of the attributes of the start tag raw, in
// order, each as often as it is written, read as the tokenizer reads them
// (WHATWG 13.2.5.32 to 13.2.5.38) but without dropping a repeated name.
func attrNames(raw string) []string {
	space := func(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' }
	i := 1
	for i < len(raw) && !space(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	skip := func() {
		for i < len(raw) && space(raw[i]) {
			i++
		}
	}
	var names []string
	for skip(); i < len(raw) && raw[i] != '>'; skip() {
		start := i
		for ; i < len(raw); i++ {
			// A name may start with =; after that, = ends it.
			if c := raw[i]; space(c) || c == '/' || c == '>' || c == '=' && i > start {
				break
			}
		}
		if i > start {
			names = append(names, asciiLower(raw[start:i]))
		}
		skip()
		switch {
		case i < len(raw) && raw[i] == '/':
			i++
		case i < len(raw) && raw[i] == '=':
			i++
			skip()
			if i == len(raw) {
				break
			}
			switch q := raw[i]; q {
			case '>':
			case '"', '\'':
				if j := strings.IndexByte(raw[i+1:], q); j >= 0 {
					i += j + 2
				} else {
					i = len(raw)
				}
			default:
				for i < len(raw) && !space(raw[i]) && raw[i] != '>' {
					i++
				}
			}
		}
	}
	return names
}

// asciiLower lowers ASCII letters only, as the tokenizer does.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// placed refuses an element where a parser would not leave it.
func (c *checker) placed(name string) {
	parent := ""
	if len(c.stack) > 0 {
		parent = c.stack[len(c.stack)-1].name
	}
	if want := parents[name]; want != nil && !slices.Contains(want, parent) {
		c.add(fmt.Sprintf("<%s> outside <%s>", name, strings.Join(want, "> or <")))
		return
	}
	if want := children[parent]; want != nil && !slices.Contains(want, name) {
		c.add(fmt.Sprintf("<%s> straight inside <%s> (put it in <%s>)", name, parent, want[0]))
		return
	}
	for _, o := range slices.Backward(c.stack) {
		switch {
		case name == "a" && o.name == "a":
			c.add(fmt.Sprintf("a link inside the link opened at line %d col %d", o.line, o.col))
			return
		case !phrasing[name] && (phrasing[o.name] || textOnly[o.name]):
			c.add(fmt.Sprintf("<%s> inside <%s> (opened at line %d col %d), which holds text only", name, o.name, o.line, o.col))
			return
		case name == "table" && o.name == "caption":
			// A parser ends the caption and the table it captions there.
			c.add(fmt.Sprintf("a table inside the caption opened at line %d col %d", o.line, o.col))
			return
		case o.name == "td" || o.name == "th" || o.name == "caption":
			// A cell starts afresh: what is outside the table does not matter.
			return
		}
	}
}

func (c *checker) endTag(name string) {
	if _, ok := elements[name]; !ok {
		if c.refused[name] {
			return
		}
		c.add(fmt.Sprintf("the end tag </%s>", name))
		c.elementRefused = true
		return
	}
	if void[name] {
		c.add(fmt.Sprintf("</%s> (%s has no end tag; write <%s>)", name, name, name))
		return
	}
	if len(c.stack) == 0 {
		c.add(fmt.Sprintf("</%s> closes nothing", name))
		return
	}
	top := c.stack[len(c.stack)-1]
	if top.name != name {
		c.add(fmt.Sprintf("</%s> where <%s> (opened at line %d col %d) is to be closed first", name, top.name, top.line, top.col))
		// The element it closes, if open, is taken as closed, so that one
		// mistake is reported once.
		for i, o := range slices.Backward(c.stack) {
			if o.name == name {
				c.stack = c.stack[:i]
				break
			}
		}
		return
	}
	c.stack = c.stack[:len(c.stack)-1]
}

// checkValue checks an attribute's value, character references decoded
// (as a browser reads it).
func checkValue(key, val string) error {
	switch key {
	case "href":
		return checkHref(val)
	case "dir":
		if val != "ltr" && val != "rtl" && val != "auto" {
			return fmt.Errorf("%q is not ltr, rtl or auto", val)
		}
	case "lang":
		if _, err := language.Parse(val); err != nil {
			return fmt.Errorf("%q is not a BCP 47 language tag", val)
		}
	}
	return nil
}

// checkHref allows absolute URLs of schemes only. A browser drops tabs and
// newlines anywhere in a URL and spaces around it ("java\tscript:" is
// javascript:), so a URL with any is refused rather than guessed at.
func checkHref(u string) error {
	if i := strings.IndexFunc(u, func(r rune) bool { return r <= ' ' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("%q has a space or control character at byte %d (write a space as %%20)", u, i)
	}
	scheme, rest, ok := strings.Cut(u, ":")
	scheme = strings.ToLower(scheme)
	if !ok || !slices.Contains(schemes, scheme) {
		return fmt.Errorf("%q is not an absolute URL of %s", u, strings.Join(schemes, ":, ")+":")
	}
	parsed, err := url.Parse(u)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL", u)
	case scheme == "mailto" && rest == "":
		return fmt.Errorf("%q has no address", u)
	case scheme != "mailto" && (!strings.HasPrefix(rest, "//") || parsed.Host == ""):
		return fmt.Errorf("%q has no host (write %s://host/…)", u, scheme)
	}
	return nil
}

func allowedNames() string {
	names := make([]string, 0, len(elements))
	for n := range elements {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func allowedAttrs(el string) string {
	all := append(slices.Clone(elements[el]), globalAttrs...)
	return "<" + el + "> may have " + strings.Join(all, ", ")
}

func (c *checker) add(what string) {
	c.problems = append(c.problems, Problem{c.line, c.col, what})
}

func (c *checker) addAt(off int, what string) {
	line, col := position(c.text, off)
	c.problems = append(c.problems, Problem{line, col, what})
}

// position is the line and column (in characters) of byte off of text.
func position(text string, off int) (line, col int) {
	before := text[:off]
	start := strings.LastIndexByte(before, '\n') + 1
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[start:]) + 1
}

// quote shows raw markup in an error, shortened.
func quote(raw string) string {
	if r := []rune(raw); len(r) > 40 {
		raw = string(r[:40]) + "…"
	}
	return fmt.Sprintf("%q", raw)
}
