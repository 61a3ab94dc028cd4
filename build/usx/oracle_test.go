package usx

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/internal/repotest"
)

var oracleReport = flag.Bool("oracle.report", false, "print every verse where the USX and the USFM imports disagree")

// publishedVerses is what an import of one book publishes: the text of
// every verse, by "chapter:verse", in order. A book that cannot be
// published (an error, or a peripheral book) publishes nothing.
func publishedVerses(b *usfm.Book, err error, file string) (map[string]string, []string, error) {
	if err != nil {
		return nil, nil, err
	}
	rb, err := render.Render(b, render.Options{File: file})
	if errors.Is(err, render.ErrPeripheral) || errors.Is(err, render.ErrNoChapters) {
		return map[string]string{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	out := map[string]string{}
	var order []string
	for i, c := range rb.Index.Chapters {
		for k, v := range c.Verses {
			key := c.ID + ":" + v.ID
			out[key] = bible.ComposeText(rb.Chapters[i].Verses[k])
			order = append(order, key)
		}
	}
	return out, order, nil
}

// TestOracle imports, for every test vector of the USFM/USX technical
// committee whose origin.xml is a USX document, both origin.xml (with
// Parse) and origin.usfm (with usfm.Parse), renders both as a build would,
// and compares the published verses and their text. Every disagreement
// left is explained in docs/usx-oracle.md.
func TestOracle(t *testing.T) {
	root := repotest.Shared(t, "bibles", "usfm-tests", "tcdocs", "tests")
	var dirs []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "origin.xml" {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if len(dirs) < 200 {
		t.Fatalf("found only %d test vectors under %s", len(dirs), root)
	}
	sort.Strings(dirs)
	type diff struct{ test, key, got, want, why string }
	var (
		diffs                                  []diff
		agree, total, files, notUSX, noUSFMsrc int
	)
	for _, dir := range dirs {
		name, _ := filepath.Rel(root, dir)
		name = filepath.ToSlash(name)
		xmlSrc, err := os.ReadFile(filepath.Join(dir, "origin.xml"))
		if err != nil {
			t.Fatal(err)
		}
		usfmSrc, err := os.ReadFile(filepath.Join(dir, "origin.usfm"))
		if err != nil {
			noUSFMsrc++
			continue
		}
		if !bytes.Contains(xmlSrc, []byte("<usx")) {
			notUSX++
			continue
		}
		files++
		xb, xerr := Parse(name+"/origin.xml", xmlSrc)
		if xerr != nil {
			var d usfm.Diag
			if !errors.As(xerr, &d) {
				t.Errorf("%s: error %v is not a Diag", name, xerr)
			}
		}
		got, gotOrder, gerr := publishedVerses(xb, xerr, name+"/origin.xml")
		ub, uerr := usfm.Parse(name+"/origin.usfm", usfmSrc)
		want, order, werr := publishedVerses(ub, uerr, name+"/origin.usfm")
		if gerr != nil && werr != nil {
			continue // both refuse the book: they agree that nothing is published
		}
		for _, k := range gotOrder {
			if _, ok := want[k]; !ok {
				order = append(order, k)
			}
		}
		for _, k := range order {
			total++
			g, gok := got[k]
			w, wok := want[k]
			switch {
			case gerr != nil:
				diffs = append(diffs, diff{name, k, "", w, "USX refused: " + gerr.Error()})
			case werr != nil:
				diffs = append(diffs, diff{name, k, g, "", "USFM refused: " + werr.Error()})
			case !gok:
				diffs = append(diffs, diff{name, k, "", w, "verse missing from the USX import"})
			case !wok:
				diffs = append(diffs, diff{name, k, g, "", "verse only in the USX import"})
			case g != w:
				diffs = append(diffs, diff{name, k, g, w, "text differs"})
			default:
				agree++
			}
		}
	}
	if total == 0 {
		t.Fatal("no verses compared")
	}
	pct := 100 * float64(agree) / float64(total)
	fmt.Printf("usx oracle: %d/%d verses agree (%.1f%%) in %d files (%d without origin.usfm, %d not USX)\n", agree, total, pct, files, noUSFMsrc, notUSX)
	if *oracleReport {
		for _, d := range diffs {
			fmt.Printf("%s %s: %s\n    usx:  %q\n    usfm: %q\n", d.test, d.key, d.why, d.got, d.want)
		}
	}
	doc, err := os.ReadFile(filepath.Join(repotest.Root(t), "docs", "usx-oracle.md"))
	if err != nil {
		t.Errorf("reading the list of disagreements: %v", err)
	}
	for _, d := range diffs {
		if !bytes.Contains(doc, []byte("`"+d.test+"`")) {
			t.Errorf("%s %s (%s) is not explained in docs/usx-oracle.md", d.test, d.key, d.why)
		}
	}
	if pct < 98 {
		t.Errorf("only %.1f%% of verses agree; want at least 98%%", pct)
	}
}
