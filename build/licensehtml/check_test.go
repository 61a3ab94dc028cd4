package licensehtml

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// accepted are licence texts Check allows.
var accepted = []string{
	``,
	`Plain text, a &lt; b and c > d, AT&T.`,
	`<p>Hello &amp; <a href="https://example.org/x?a=1&amp;b=2" title="The site">the site</a>.</p>`,
	`<p><a href="HTTPS://EXAMPLE.ORG/">shouting</a> <a href="http://example.org">plain</a> <a href="mailto:rights@example.org?subject=Licence%20question">write</a></p>`,
	`<A HREF="https://example.org">upper case tags</A>`,
	`<p>one<br>two<br/>three</p><hr>`,
	"<ul>\n  <li>one</li>\n  <li>two <ol><li>nested</li></ol></li>\n</ul>",
	`<h1>T</h1><h2>T</h2><h3>T</h3><h4>T</h4><h5>T</h5><h6>T</h6>`,
	`<blockquote><p><em>e</em> <strong>s</strong> <b>b</b> <i>i</i> <u>u</u> <small>s</small> H<sub>2</sub>O x<sup>2</sup> <span>s</span></p></blockquote>`,
	`<div><div><p>nested divs</p></div></div>`,
	"<table>\n<caption>Uses</caption>\n<thead><tr><th>Use</th><th>Allowed</th></tr></thead>\n<tbody><tr><td>Print</td><td><p>Yes</p><table><tr><td>inner</td></tr></table></td></tr></tbody>\n<tfoot><tr><td>end</td></tr></tfoot>\n</table>",
	`<p dir="rtl" lang="ar">نص الترخيص</p><p lang="en-GB" dir="auto">colour</p>`,
	`<p>&lt;script&gt;alert(1)&lt;/script&gt; is shown, not run</p>`,
	`<p>&ldquo;quoted&rdquo; &mdash; &#8212; &#x2014;</p>`,
	`<a>a link without href</a>`,
	`<a href="https&#58;//example.org&#x2F;">a URL written with character references</a>`,
	"\ufeff<p>a byte order mark, and U+FFFD \ufffd itself</p>",
}

// refused are licence texts Check refuses, with what the error says.
var refused = []struct{ in, want string }{
	{`<script>alert(1)</script>`, "line 1 col 1: the element <script>"},
	{`<p onclick="alert(1)">x</p>`, "the attribute onclick of <p>"},
	{`<p ONCLICK=alert(1)>x</p>`, "the attribute onclick of <p>"},
	{`<p style="display:none">x</p>`, "the attribute style of <p>"},
	{`<p class="x">x</p>`, "the attribute class of <p>"},
	{`<p title="x">x</p>`, "the attribute title of <p> (<p> may have dir, lang)"},
	{`<a href="javascript:alert(1)">x</a>`, `href of <a>: "javascript:alert(1)" is not an absolute URL of https:, http:, mailto:`},
	{`<a href="JaVaScRiPt:alert(1)">x</a>`, `"JaVaScRiPt:alert(1)" is not an absolute URL`},
	{`<a href="&#106;avascript:alert(1)">x</a>`, `"javascript:alert(1)" is not an absolute URL`},
	{`<a href="&#x6A;avascript&colon;alert(1)">x</a>`, `"javascript:alert(1)" is not an absolute URL`},
	{`<a href="&#0000106&#0000097vascript:alert(1)">x</a>`, `"javascript:alert(1)" is not an absolute URL`},
	{`<a href="java&#9;script:alert(1)">x</a>`, `"java\tscript:alert(1)" has a space or control character at byte 4`},
	{"<a href=\"java\tscript:alert(1)\">x</a>", `has a space or control character at byte 4`},
	{"<a href=\"java\nscript:alert(1)\">x</a>", `has a space or control character at byte 4`},
	{`<a href="java&#13;script:alert(1)">x</a>`, `has a space or control character at byte 4`},
	{`<a href="  javascript:alert(1)">x</a>`, `"  javascript:alert(1)" has a space or control character at byte 0`},
	{`<a href=" https://example.org">x</a>`, `has a space or control character at byte 0`},
	{`<a href="&#1;https://example.org">x</a>`, `has a space or control character at byte 0`},
	{`<a href="https://exa mple.org">x</a>`, `has a space or control character at byte 11`},
	{"<a href=\"\u00a0javascript:alert(1)\">x</a>", `"\u00a0javascript:alert(1)" is not an absolute URL`},
	{`<a href="&nbsp;https://example.org">x</a>`, `"\u00a0https://example.org" is not an absolute URL`},
	{`<a href="jav&#x61;script&#x3A;alert(1)">x</a>`, `"javascript:alert(1)" is not an absolute URL`},
	{`<a href="vbscript:msgbox(1)">x</a>`, `is not an absolute URL`},
	{`<a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">x</a>`, `"data:text/html,<script>alert(1)</script>" is not an absolute URL`},
	{`<a href="/developers/orgs">x</a>`, `"/developers/orgs" is not an absolute URL`},
	{`<a href="//evil.example/">x</a>`, `is not an absolute URL`},
	{`<a href="#top">x</a>`, `is not an absolute URL`},
	{`<a href="">x</a>`, `"" is not an absolute URL`},
	{`<a href="https:evil.example">x</a>`, `"https:evil.example" has no host (write https://host/…)`},
	{`<a href="https:///evil.example">x</a>`, `has no host`},
	{`<a href="https:\\evil.example">x</a>`, `has no host`},
	{`<a href="mailto:">x</a>`, `"mailto:" has no address`},
	{`<a href="https://example.org/%zz">x</a>`, `is not a URL`},
	{`<a href="https://example.org" href="javascript:alert(1)">x</a>`, `a second href on <a> (parsers disagree on which one counts)`},
	{`<a href="https://example.org" HREF=https://example.org>x</a>`, `a second href on <a>`},
	{`<a href="https://example.org"/href='https://example.org'>x</a>`, `a second href on <a>`},
	{`<p dir=ltr lang=en dir = rtl>x</p>`, `a second dir on <p>`},
	{`<a href="https://example.org" target="_blank">x</a>`, `the attribute target of <a>`},
	{`<a xlink:href="javascript:alert(1)">x</a>`, `the attribute xlink:href of <a>`},
	{`<iframe src="https://evil.example"></iframe>`, `the element <iframe>`},
	{`<form action="https://evil.example"><input name="key"><button>Go</button></form>`, `the element <form>`},
	{`<meta http-equiv="refresh" content="0;url=https://evil.example">`, `the element <meta>`},
	{`<style>form{display:none}</style>`, `the element <style>`},
	{`<img src="x" onerror="alert(1)">`, `the element <img>`},
	{`<base href="https://evil.example/">`, `the element <base>`},
	{`<svg><script>alert(1)</script></svg>`, `line 1 col 1: the element <svg>; line 1 col 6: the element <script>`},
	{`<math><mi>x</mi></math>`, `the element <math>`},
	{`<textarea><p>x</p></textarea>`, `the element <textarea>`},
	{`<plaintext><p>x</p>`, `the element <plaintext>`},
	{`<noscript><p>x</p></noscript>`, `the element <noscript>`},
	{`<!-- <script>alert(1)</script> -->`, `the comment "<!-- <script>alert(1)</script> -->"`},
	{`<!-- harmless -->`, `the comment`},
	{`<!--><script>alert(1)</script>-->`, `the comment "<!-->"`},
	{`<![CDATA[<script>alert(1)</script>]]>`, `the CDATA section`},
	{`<!DOCTYPE html><p>x</p>`, `the doctype "<!DOCTYPE html>"`},
	{`<?xml version="1.0"?><p>x</p>`, `the markup declaration "<?xml version=\"1.0\"?>"`},
	{`</ p>`, `the markup declaration`},
	{`a < b`, `line 1 col 3: a bare < (write &lt;)`},
	{`a </`, `line 1 col 3: a bare <`},
	{`x<A`, `line 1 col 2: "<A", cut off at the end (a tag ends with >)`},
	{`<a href="https://example.org`, `"<a href=\"https://example.org", cut off at the end`},
	{`<b>unclosed`, `line 1 col 1: <b> is not closed`},
	{`<p>x</p`, `<p> is not closed`},
	{`<a href="https://example.org">swallows the page`, `<a> is not closed`},
	{`<p><b>x</p></b>`, `</p> where <b> (opened at line 1 col 4) is to be closed first`},
	{`</div>`, `</div> closes nothing`},
	{`<p/>`, `<p/> (only br and hr close themselves`},
	{`<p>x</br></p>`, `</br> (br has no end tag`},
	{`<p><div>x</div></p>`, `<div> inside <p> (opened at line 1 col 1), which holds text only`},
	{`<h2><h3>x</h3></h2>`, `<h3> inside <h2>`},
	{`<b><p>x</p></b>`, `<p> inside <b>`},
	{`<a href="https://a.example"><span><a href="https://b.example">x</a></span></a>`, `a link inside the link opened at line 1 col 1`},
	{`<table><caption><div><table><tr><td>x</td></tr></table></div></caption></table>`, `a table inside the caption opened at line 1 col 8`},
	{`<li>x</li>`, `<li> outside <ul> or <ol>`},
	{`<td>x</td>`, `<td> outside <tr>`},
	{`<ul>text<li>x</li></ul>`, `text straight inside <ul> (put it in <li>)`},
	{`<ul><p>x</p></ul>`, `<p> straight inside <ul> (put it in <li>)`},
	{`<table><tr><td>x</td></tr>text</table>`, `text straight inside <table>`},
	{`<table><tr><td>x</td></tr>&nbsp;</table>`, `text straight inside <table>`},
	{`<p dir="up">x</p>`, `dir of <p>: "up" is not ltr, rtl or auto`},
	{`<p lang="not a tag">x</p>`, `lang of <p>: "not a tag" is not a BCP 47 language tag`},
	{"<p>a\x00b</p>", `line 1 col 5: the control character U+0000`},
	{"<p>a\x1bb</p>", `the control character U+001B`},
	{"<p>\xffb</p>", `line 1 col 4: a byte that is not UTF-8`},
	{"<p>ok</p>\n<p>ünïcode <script>x</script></p>", `line 2 col 12: the element <script>`},
}

func TestCheck(t *testing.T) {
	for _, in := range accepted {
		if err := Check(in); err != nil {
			t.Errorf("Check(%q) = %v, want nil", in, err)
		}
	}
	for _, tc := range refused {
		err := Check(tc.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("Check(%q)\n got %q\nwant it to contain %q", tc.in, got, tc.want)
		}
	}
}

// TestCheckNamesAllowed: an element refused ends the error with the list
// of elements a licence may use, once.
func TestCheckNamesAllowed(t *testing.T) {
	got := Check(`<script></script><style></style></form>`).Error()
	want := "not allowed in a licence's HTML: line 1 col 1: the element <script>; " +
		"line 1 col 18: the element <style>; line 1 col 33: the end tag </form> " +
		"(a licence may use the elements a, b, blockquote, br, caption, div, em, h1, h2, h3, h4, h5, h6, hr, i, li, ol, p, small, span, strong, sub, sup, table, tbody, td, tfoot, th, thead, tr, u, ul)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestCheckCapsProblems: a text that is not HTML at all gives an error of
// bounded length.
func TestCheckCapsProblems(t *testing.T) {
	got := Check(strings.Repeat("<x>", 100)).Error()
	if !strings.Contains(got, "; and 80 more") || len(got) > 2000 {
		t.Errorf("got %d bytes: %s", len(got), got)
	}
}

// TestFixtureLicences: the example content's licences pass.
func TestFixtureLicences(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "content", "licenses", "*.html"))
	if len(files) == 0 {
		t.Fatal("no licence text in fixtures/content/licenses")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(string(b)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestDocumentedElements: docs/import.md lists the elements Check allows.
func TestDocumentedElements(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "import.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "- Elements: " + allowedNames() + "\n"
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/import.md has no line %q", want)
	}
}
