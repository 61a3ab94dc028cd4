package edge

import (
	"crypto/sha256"
	"encoding/base64"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/dev"
	"github.com/bibleplatform/platform/internal/chromiumtest"
)

// TestReaderInChromium opens the reader page in headless Chromium against
// an edge serving the published fixtures, as a person would: John 3 of
// Bible 9001 and Genesis 1 of the right-to-left fixture Bible 9003. It
// checks what the passage stylesheet promises (verse numbers set apart from
// the words, notes as markers, RTL laid out right to left), the chapter
// navigation and the search box, and saves screenshots in the test's
// artifact directory (go test -artifacts; READER_SCREENSHOTS=dir also
// keeps them there).
func TestReaderInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/publish and starts Chromium")
	}
	srv, keys := fixtureEdge(t, nil)
	srv.dev = dev.New(srv.log, keys.AppKey) // as make run starts the edge
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &fasthttp.Server{Handler: srv.Handler}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Shutdown() })
	base := "http://" + ln.Addr().String()

	shots := t.ArtifactDir()
	if d := os.Getenv("READER_SCREENSHOTS"); d != "" {
		shots = d
	}
	b := chromiumtest.Start(t)
	b.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 900, "height": 1100, "deviceScaleFactor": 1, "mobile": false})

	open := func(bibleChapter string) {
		t.Helper()
		b.Navigate(base + "/#/" + bibleChapter)
		b.WaitEval(`document.body.dataset.state === "ready" && document.body.dataset.passage === ` + chromiumtest.JSString(bibleChapter))
	}

	// --- John 3 (9001, left to right) ---
	open("9001/JHN.3")
	var page struct {
		Dir, Reference           string
		Labels, Separated        int
		Notes, HiddenNoteText    int
		Markers, Listed          int
		Headings, WordsOfJesus   int
		PoetryOrParagraphClasses []string
		LabelSmaller             bool
	}
	b.Eval(`(() => {
		const a = document.getElementById("passage");
		const r = { Dir: getComputedStyle(a).direction, Reference: document.getElementById("reference").textContent };
		// A verse number is set apart when there is visible space between it
		// and the first letter after it (or the words start on another line).
		const labels = [...a.querySelectorAll(".yv-vlbl")];
		r.Labels = labels.length;
		r.Separated = 0;
		r.LabelSmaller = labels.length > 0;
		for (const l of labels) {
			const w = document.createTreeWalker(a, NodeFilter.SHOW_TEXT);
			w.currentNode = l.lastChild;
			let n = w.nextNode();
			while (n && !n.textContent.trim()) n = w.nextNode();
			if (!n) continue;
			const i = n.textContent.search(/\S/);
			const rg = document.createRange();
			rg.setStart(n, i); rg.setEnd(n, i + 1);
			const next = rg.getBoundingClientRect(), lab = l.getBoundingClientRect();
			const ltr = getComputedStyle(a).direction === "ltr";
			const gap = ltr ? next.left - lab.right : lab.left - next.right;
			if (gap >= 2 || next.top > lab.bottom) r.Separated++;
			const parentSize = parseFloat(getComputedStyle(l.parentElement).fontSize);
			if (!(parseFloat(getComputedStyle(l).fontSize) < parentSize)) r.LabelSmaller = false;
		}
		const notes = [...a.querySelectorAll(".yv-n")];
		r.Notes = notes.length;
		r.HiddenNoteText = notes.filter((n) => [...n.children].every((c) => getComputedStyle(c).display === "none")).length;
		r.Markers = notes.filter((n) => n.dataset.marker && getComputedStyle(n, "::before").content.includes(n.dataset.marker)).length;
		r.Listed = document.querySelectorAll("#notes li").length;
		r.Headings = a.querySelectorAll(".yv-h").length;
		r.WordsOfJesus = [...a.querySelectorAll(".wj")].filter((w) => getComputedStyle(w).color !== getComputedStyle(a).color).length;
		r.PoetryOrParagraphClasses = [...new Set([...a.querySelectorAll("div > div[class]")].map((d) => d.className))];
		return r;
	})()`, &page)
	t.Logf("JHN 3: %+v", page)
	if page.Dir != "ltr" || !strings.HasPrefix(page.Reference, "John 3") {
		t.Errorf("direction %q, reference %q; want ltr and John 3", page.Dir, page.Reference)
	}
	if page.Labels == 0 || page.Separated != page.Labels || !page.LabelSmaller {
		t.Errorf("%d of %d verse numbers set apart from the next word (smaller: %v)", page.Separated, page.Labels, page.LabelSmaller)
	}
	if page.Notes == 0 || page.HiddenNoteText != page.Notes || page.Markers != page.Notes || page.Listed != page.Notes {
		t.Errorf("notes: %d in the text, %d with their text hidden, %d shown as markers, %d listed below", page.Notes, page.HiddenNoteText, page.Markers, page.Listed)
	}
	if page.Headings == 0 || page.WordsOfJesus == 0 {
		t.Errorf("%d headings, %d words-of-Jesus spans styled", page.Headings, page.WordsOfJesus)
	}
	b.Screenshot(filepath.Join(shots, "reader-9001-JHN.3.png"), true)

	// Previous chapter, then back with next.
	b.Eval(`document.getElementById("prev").click()`, nil)
	b.WaitEval(`document.body.dataset.state === "ready" && document.body.dataset.passage === "9001/JHN.2"`)
	b.Eval(`document.getElementById("next").click()`, nil)
	b.WaitEval(`document.body.dataset.state === "ready" && document.body.dataset.passage === "9001/JHN.3"`)

	// The search box: verse search answers, and John 3:16 ("loved") is
	// among the verses listed with its text.
	b.Eval(`(() => { document.getElementById("query").value = "love"; document.getElementById("search").requestSubmit(); })()`, nil)
	b.WaitEval(`["done", "error"].includes(document.body.dataset.search)`)
	var search struct {
		State, Status string
		Links         []string
	}
	b.Eval(`({ State: document.body.dataset.search, Status: document.getElementById("status").textContent,
		Links: [...document.querySelectorAll("#results li a")].map((a) => a.getAttribute("href")) })`, &search)
	t.Logf("search: %+v", search)
	if search.State != "done" || !slices.Contains(search.Links, "#/9001/JHN.3") {
		t.Errorf("search for love: state %q, status %q, links %v; want done with a link to #/9001/JHN.3", search.State, search.Status, search.Links)
	}
	b.Screenshot(filepath.Join(shots, "reader-9001-search.png"), false)

	// --- Genesis 1 (9003, right to left) ---
	open("9003/GEN.1")
	var rtl struct {
		Attr, Direction, Align string
		LabelRightOfText       bool
	}
	b.Eval(`(() => {
		const a = document.getElementById("passage");
		const l = a.querySelector(".yv-vlbl");
		const p = l.parentElement.getBoundingClientRect(), lr = l.getBoundingClientRect();
		return { Attr: a.getAttribute("dir"), Direction: getComputedStyle(a).direction,
			Align: getComputedStyle(l.parentElement).textAlign,
			LabelRightOfText: lr.left > p.left + p.width / 2 };
	})()`, &rtl)
	t.Logf("GEN 1 (RTL): %+v", rtl)
	if rtl.Attr != "rtl" || rtl.Direction != "rtl" {
		t.Errorf(`RTL Bible: dir=%q, direction %q; want "rtl"`, rtl.Attr, rtl.Direction)
	}
	if !rtl.LabelRightOfText {
		t.Error("RTL Bible: the first verse number is not at the right of its line")
	}
	b.Screenshot(filepath.Join(shots, "reader-9003-GEN.1.png"), true)
	t.Logf("screenshots in %s", shots)
}

// The reader page runs only its own script, allowed by the hash its tag
// carries, and cannot be framed.
func TestReaderPageCSP(t *testing.T) {
	e := newTestEdge(t, nil)
	resp, page := e.do(t, "GET", "/")
	if resp.StatusCode != 200 {
		t.Fatalf("GET / = %d", resp.StatusCode)
	}
	js, err := os.ReadFile(filepath.Join("internal", "dev", "web", "reader.js"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(js)
	hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src " + hash + ";", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-") {
		t.Errorf("Content-Security-Policy %q allows unsafe sources", csp)
	}
	if got := resp.Header.Get("X-Frame-Options"); got != "DENY" {
		t.Errorf("X-Frame-Options = %q, want DENY", got)
	}
	if !strings.Contains(string(page), `integrity="`+strings.Trim(hash, "'")+`"`) {
		t.Errorf("the script tag does not carry the hash the policy allows:\n%s", page)
	}
	if strings.Contains(string(page), "{{") {
		t.Errorf("the page has a placeholder left:\n%s", page)
	}
	// A 304 carries them too: browsers apply the cached page's headers
	// updated by the 304's.
	resp, _ = e.do(t, "GET", "/", "If-None-Match: "+resp.Header.Get("ETag"))
	if resp.StatusCode != 304 || resp.Header.Get("Content-Security-Policy") != csp {
		t.Errorf("revalidated: %d with policy %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
}
