package licensehtml

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The allowlist as the fuzz test knows it, written out again so that a
// mistake in check.go's tables is not taken for the truth.
var (
	fuzzElements = strings.Fields("p br hr div span blockquote h1 h2 h3 h4 h5 h6 ul ol li em strong b i u small sub sup " +
		"table caption thead tbody tfoot tr th td a")
	fuzzSchemes = []string{"http", "https", "mailto"}
)

func fuzzAttrAllowed(el, key string) bool {
	return key == "dir" || key == "lang" || el == "a" && (key == "href" || key == "title")
}

// FuzzCheck: Check never panics, and whatever it accepts, read again as a
// browser reads it, holds nothing but the allowlist and stays inside the
// element it is put in.
func FuzzCheck(f *testing.F) {
	for _, s := range accepted {
		f.Add(s)
	}
	for _, tc := range refused {
		f.Add(tc.in)
	}
	fixtures, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "content", "licenses", "*.html"))
	for _, p := range fixtures {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		namesAsTokenizer(t, s)
		if Check(s) != nil {
			return
		}
		tokensAllowed(t, s)
		treeAllowed(t, s)
	})
}

// namesAsTokenizer: attrNames reads every start tag's attribute names as
// the tokenizer does, but for the repeated ones the tokenizer drops. (The
// tokenizer makes a NUL U+FFFD; Check refuses a NUL before it tokenizes.)
func namesAsTokenizer(t *testing.T, s string) {
	if strings.Contains(s, "\x00") {
		return
	}
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			raw := string(z.Raw())
			var got, want []string
			for _, n := range attrNames(raw) {
				if !slices.Contains(got, n) {
					got = append(got, n)
				}
			}
			for _, a := range z.Token().Attr {
				want = append(want, a.Key)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("attrNames(%q) = %q, the tokenizer's %q", raw, got, want)
			}
		}
	}
}

// tokensAllowed re-tokenizes s and fails on any token outside the
// allowlist.
func tokensAllowed(t *testing.T, s string) {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.CommentToken, html.DoctypeToken:
			t.Fatalf("accepted %q with %q", s, z.Raw())
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			if !slices.Contains(fuzzElements, tok.Data) {
				t.Fatalf("accepted %q with <%s>", s, tok.Data)
			}
			for _, a := range tok.Attr {
				if !fuzzAttrAllowed(tok.Data, a.Key) {
					t.Fatalf("accepted %q with %s on <%s>", s, a.Key, tok.Data)
				}
				if a.Key == "href" {
					hrefAllowed(t, s, a.Val)
				}
			}
		}
	}
}

// hrefAllowed: a browser strips leading and trailing C0 controls and
// spaces and removes tabs and newlines anywhere before it reads a URL's
// scheme (WHATWG URL, basic URL parser); what is left must be absolute and
// of an allowed scheme.
func hrefAllowed(t *testing.T, s, href string) {
	clean := strings.Trim(href, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	clean = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(clean)
	u, err := url.Parse(clean)
	if err != nil || !slices.Contains(fuzzSchemes, strings.ToLower(u.Scheme)) || clean != href {
		t.Fatalf("accepted %q with href %q", s, href)
	}
}

// treeAllowed parses s inside a page shaped like the portal's licence page
// and checks the tree a browser would build: only allowed elements and
// attributes under the licence's element, and the page's own element after
// it still a sibling, not swallowed.
func treeAllowed(t *testing.T, s string) {
	page := `<!DOCTYPE html><html><head><title>Licences</title></head><body><div class="licence"><div id="text">` +
		s + `</div><form id="after"><button>Agree</button></form></div></body></html>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	text, after := byID(doc, "text"), byID(doc, "after")
	if text == nil || after == nil || text.Parent != after.Parent || text.Parent.Parent.Data != "body" {
		t.Fatalf("accepted %q, which moves the page around it", s)
	}
	if got, want := outline(text), tokenOutline(s); got != want {
		t.Fatalf("accepted %q, which a browser reads as\n%s\nnot as written\n%s", s, got, want)
	}
	for n := range text.Descendants() {
		switch n.Type {
		case html.TextNode:
		case html.ElementNode:
			if !slices.Contains(fuzzElements, n.Data) || n.Namespace != "" {
				t.Fatalf("accepted %q, which makes <%s %s>", s, n.Namespace, n.Data)
			}
			for _, a := range n.Attr {
				if !fuzzAttrAllowed(n.Data, a.Key) || a.Namespace != "" {
					t.Fatalf("accepted %q, which makes %s on <%s>", s, a.Key, n.Data)
				}
				if a.Key == "href" {
					hrefAllowed(t, s, a.Val)
				}
			}
		default:
			t.Fatalf("accepted %q, which makes a node of type %v", s, n.Type)
		}
	}
}

func byID(n *html.Node, id string) *html.Node {
	for d := range n.Descendants() {
		for _, a := range d.Attr {
			if a.Key == "id" && a.Val == id && d.Type == html.ElementNode {
				return d
			}
		}
	}
	return nil
}

// outline writes the tree under n as tags and text, without the tbody a
// parser adds to a table that has none (and so without any tbody).
func outline(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := range n.ChildNodes() {
			switch {
			case c.Type == html.TextNode:
				b.WriteString(c.Data)
			case c.Data == "tbody":
				walk(c)
			default:
				b.WriteString(tagOutline(c.Data, c.Attr))
				walk(c)
				if c.Data != "br" && c.Data != "hr" {
					b.WriteString("</" + c.Data + ">")
				}
			}
		}
	}
	walk(n)
	return b.String()
}

// tokenOutline writes the tokens of s as outline writes a tree: what the
// author wrote, to compare with what a parser built.
func tokenOutline(s string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.Write(z.Text()) // unescaped, newlines as a parser has them
		case html.StartTagToken, html.SelfClosingTagToken:
			if tok := z.Token(); tok.Data != "tbody" {
				b.WriteString(tagOutline(tok.Data, tok.Attr))
			}
		case html.EndTagToken:
			if tok := z.Token(); tok.Data != "tbody" {
				b.WriteString("</" + tok.Data + ">")
			}
		}
	}
}

func tagOutline(name string, attrs []html.Attribute) string {
	var b strings.Builder
	b.WriteString("<" + name)
	for _, a := range attrs {
		b.WriteString(" " + a.Key + "=" + strconv.Quote(a.Val))
	}
	return b.String() + ">"
}
