package render

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

// checkBook composes every verse and every chapter of rb and returns the
// problems found.
func checkBook(where string, rb *Book) []string {
	errs := checkSegments(where+" intro", rb.Intro)
	if rb.Intro != nil {
		errs = append(errs, checkRun(where+" intro", rb.Intro)...)
	}
	if (rb.Intro == nil) != (rb.Index.Intro == nil) {
		errs = append(errs, where+": intro segments and index intro disagree")
	}
	if len(rb.Chapters) != len(rb.Index.Chapters) {
		errs = append(errs, where+": chapters and index disagree")
		return errs
	}
	for ci, c := range rb.Chapters {
		if len(c.Verses) != len(rb.Index.Chapters[ci].Verses) {
			errs = append(errs, where+": verses and index disagree")
			continue
		}
		var all []bible.Segment
		for _, v := range c.Verses {
			errs = append(errs, checkSegments(where, v)...)
			errs = append(errs, checkRun(where, v)...)
			all = append(all, v...)
		}
		errs = append(errs, checkRun(where, all)...)
	}
	return errs
}

// TestTestVectors renders every valid test vector of the USFM technical
// committee (tables, milestones, ruby, figures, introductions, odd
// spacing …) and checks the result.
func TestTestVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedDir(t), "bibles", "usfm-tests", "tcdocs", "tests", "*", "*", "origin.usfm"))
	if err != nil {
		t.Fatal(err)
	}
	rendered := 0
	for _, f := range files {
		meta, err := os.ReadFile(filepath.Join(filepath.Dir(f), "metadata.xml"))
		if err != nil || !strings.Contains(string(meta), "<validated>pass") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(f))
		b, err := usfm.Parse(name, src)
		if err != nil {
			continue // the parser's own tests judge its errors
		}
		rb, err := Render(b, Options{File: name})
		if errors.Is(err, ErrPeripheral) || errors.Is(err, ErrNoChapters) {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		rendered++
		for _, e := range checkBook(name, rb) {
			t.Error(e)
		}
	}
	if rendered < 100 {
		t.Errorf("rendered %d test vectors, want at least 100", rendered)
	}
}

// FuzzRender checks that whatever the parser accepts renders to balanced
// HTML whose visible text is the segment's Text.
func FuzzRender(f *testing.F) {
	for _, tc := range goldenCases {
		f.Add(tc.src)
	}
	f.Add("\\id GEN\n\\c 1\n\\p \\wj a \\v 1 b \\+nd c \\v 2 d\\+nd*\\wj*\n\\tr \\tc1 \\v 3 e \\tc2 f\n")
	f.Add("\\id JOL\n\\c 2\n\\p \\v 1 a \\v 2 \\va 3:1\\va* b\n\\c 3\n\\ca 4\\ca*\n\\d \\va 1\\va* t\n\\p \\v 1 \\va 4:2\\va* c \\va 3\\va* d\n\\ca 5\\ca*\n\\tr \\tc1 \\v 2 \\va 1\\va* e\n")
	f.Add("\\id PSA\n\\c 1\n\\s1 H\n\\q1 \\wj a\\f + \\ft n\\* b\n\\q2 c \\v 2 d\n\\c 2\n\\p T \\v 1 e\n")
	f.Fuzz(func(t *testing.T, src string) {
		b, err := usfm.Parse("fuzz.usfm", []byte(src))
		if err != nil {
			return
		}
		for _, alt := range []bool{false, true} {
			rb, err := Render(b, Options{Alternate: alt})
			if err != nil {
				continue
			}
			for _, e := range checkBook("fuzz", rb) {
				t.Errorf("alternate numbering %v: %s", alt, e)
			}
		}
	})
}
