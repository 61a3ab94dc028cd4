package render

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/internal/repotest"
)

var usfmjsReport = flag.Bool("usfmjs.report", false, "print every verse where the renderer and usfm-js disagree")

// usfmjsVersion pins usfm-js, the independent USFM parser the published
// verse texts are compared with (npm; its one dependency, lodash.clonedeep,
// has had no release since 4.5.0).
const usfmjsVersion = "3.4.3"

// usfmjsModules returns the node_modules folder holding usfm-js,
// installing it into .cache on first use. It needs node and npm; it
// fails, never skips, without them.
func usfmjsModules(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repotest.Root(t), ".cache", "usfm-js-"+usfmjsVersion)
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "usfm-js", "package.json")); err == nil {
		return modules
	}
	if out, err := exec.Command("npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", dir,
		"usfm-js@"+usfmjsVersion).CombinedOutput(); err != nil {
		t.Fatalf("install usfm-js: %v: %s", err, out)
	}
	return modules
}

// usfmjsBook is one file's verse texts as usfm-js reads them (see
// testdata/usfmjs/verses.js): chapter → verse key ("1", "2-3", "front") →
// text.
type usfmjsBook struct {
	File     string                       `json:"file"`
	Chapters map[string]map[string]string `json:"chapters"`
}

// usfmjsVerses runs usfm-js over files and returns its verse texts by file
// base name.
func usfmjsVerses(t *testing.T, files []string) map[string]usfmjsBook {
	t.Helper()
	script := filepath.Join("testdata", "usfmjs", "verses.js")
	cmd := exec.Command("node", append([]string{script, usfmjsModules(t)}, files...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("run usfm-js: %v", err)
	}
	books := map[string]usfmjsBook{}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var b usfmjsBook
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			t.Fatalf("usfm-js output: %v", err)
		}
		books[b.File] = b
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("usfm-js: %v", err)
	}
	return books
}

// agreement counts the verses of one Bible compared with usfm-js.
type agreement struct {
	agree, total int
	// front counts our implied verses 1 compared with the text usfm-js
	// keeps before the chapter's first verse.
	front int
	// diffs maps each verse that disagrees ("EST.2.21") to both texts.
	diffs map[string]string
}

func (a agreement) percent() float64 { return 100 * float64(a.agree) / float64(max(a.total, 1)) }

// usfmjsKnown lists, per Bible, the only verses allowed to disagree, as
// measured, each with its class; docs/import.md explains every class.
// Any other verse that disagrees fails the test, and so does a listed
// verse that agrees (the list and the page must then be updated).
var usfmjsKnown = map[string]map[string]string{
	"eng-kjv1611": {
		"NUM.10.21": "note inside a character style",
		"1CH.24.23": "note inside a character style",
		"2CH.3.3":   "note inside a character style",
		"JOB.30.1":  "note inside a character style",
		"EST.2.21":  `bare \* closing a note`,
		"1SA.13.7":  "verse number glued to its text",
		"JOB.39.20": "a capitalised word after a stray backslash",
	},
	"spa-rv1909": {
		"2CO.13.14": "empty verse at the end of the file",
	},
}

// TestUsfmJS compares the text of every verse we publish for the five
// shared Bibles with the text usfm-js, an independent USFM parser, gives
// the same verse (testdata/usfmjs/verses.js says how its JSON is read).
// Both sides have whitespace runs made one space and are trimmed: usfm-js
// keeps the source's line layout (the spaces at line ends, the line break
// before each marker) and we publish one space within a paragraph and a
// line break between paragraphs; no other difference is forgiven.
//
// A verse counts once whichever side has it; one missing on either side
// disagrees. A verse 1 we publish for text before a chapter's first verse
// above 1 (ImpliedVerse1) is compared with the text usfm-js keeps before
// that verse ("front"), by the same rules.
//
// make test prints its lines; -args -usfmjs.report prints every verse
// that disagrees with both texts.
func TestUsfmJS(t *testing.T) {
	if testing.Short() {
		t.Skip("parses five whole Bibles with usfm-js")
	}
	var lines []string
	for _, name := range []string{"eng-web", "eng-bsb", "eng-kjv1611", "spa-rv1909", "hbo-uhb"} {
		a := compareWithUsfmJS(t, name)
		lines = append(lines, fmt.Sprintf("usfm-js agreement: %-11s %d/%d verses agree (%.2f%%; %d implied verses 1 compared with usfm-js's chapter front)",
			name, a.agree, a.total, math.Floor(100*a.percent())/100, a.front))
		known := usfmjsKnown[name]
		for _, ref := range slices.Sorted(maps.Keys(a.diffs)) {
			if *usfmjsReport {
				fmt.Printf("%s %s (%s)\n%s\n", name, ref, known[ref], a.diffs[ref])
			}
			if _, ok := known[ref]; !ok {
				t.Errorf("%s %s disagrees with usfm-js:\n%s", name, ref, a.diffs[ref])
			}
		}
		for ref, class := range known {
			if _, ok := a.diffs[ref]; !ok {
				t.Errorf("%s %s (%s) agrees with usfm-js now: take it out of usfmjsKnown and docs/import.md", name, ref, class)
			}
		}
	}
	for _, l := range lines {
		fmt.Println(l)
	}
}

func compareWithUsfmJS(t *testing.T, name string) agreement {
	dir := filepath.Join(sharedDir(t), "bibles", name)
	files, err := filepath.Glob(filepath.Join(dir, "*.[uU][sS][fF][mM].gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no USFM files in %s", dir)
	}
	sort.Strings(files)
	theirs := usfmjsVerses(t, files)
	a := agreement{diffs: map[string]string{}}
	for _, f := range files {
		src, err := repotest.ReadGzip(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := usfm.Parse(filepath.Base(f), src)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := Render(b, Options{File: filepath.Base(f)})
		if errors.Is(err, ErrPeripheral) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		js, ok := theirs[filepath.Base(f)]
		if !ok {
			t.Fatalf("usfm-js gave nothing for %s", f)
		}
		compareBook(rb, js, &a)
	}
	return a
}

// compareBook adds the verses of one book to a.
func compareBook(rb *Book, js usfmjsBook, a *agreement) {
	for ci, c := range rb.Index.Chapters {
		num, _, _ := strings.Cut(c.ID, "_") // "1_1": chapter 1 published as 151
		jc := map[string]string{}
		for k, v := range js.Chapters[num] {
			if k != "front" {
				k = verseID(k) // "2-3" → "2"
			}
			jc[k] = v
		}
		seen := map[string]bool{}
		for vi, v := range c.Verses {
			seen[v.ID] = true
			ours := collapse(bible.ComposeText(rb.Chapters[ci].Verses[vi]))
			want, ok := jc[v.ID]
			if !ok && v.ID == "1" {
				if want, ok = jc["front"]; ok {
					a.front++
				}
			}
			a.total++
			ref := c.PassageID + "." + v.ID
			switch want = collapse(want); {
			case !ok:
				a.diffs[ref] = fmt.Sprintf("  ours    %q\n  usfm-js has no such verse", ours)
			case ours != want:
				a.diffs[ref] = fmt.Sprintf("  ours    %q\n  usfm-js %q", ours, want)
			default:
				a.agree++
			}
		}
		var missing []string
		for k := range jc {
			if k != "front" && !seen[k] {
				missing = append(missing, k)
			}
		}
		sort.Strings(missing)
		for _, k := range missing {
			a.total++
			a.diffs[c.PassageID+"."+k] = fmt.Sprintf("  we publish no such verse\n  usfm-js %q", collapse(jc[k]))
		}
	}
	// Chapters usfm-js has and we do not.
	ours := map[string]bool{}
	for _, c := range rb.Index.Chapters {
		num, _, _ := strings.Cut(c.ID, "_")
		ours[num] = true
	}
	for num, vs := range js.Chapters {
		if ours[num] {
			continue
		}
		for k, text := range vs {
			if k != "front" {
				a.total++
				a.diffs[string(rb.Index.ID)+"."+num+"."+k] = fmt.Sprintf("  we publish no such chapter\n  usfm-js %q", collapse(text))
			}
		}
	}
}

// collapse turns runs of whitespace into one space and trims.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}), " ")
}
