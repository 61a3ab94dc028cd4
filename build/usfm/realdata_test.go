package usfm

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var realBibles = []string{"eng-web", "eng-bsb", "eng-kjv1611", "spa-rv1909", "hbo-uhb"}

type manifestEntry struct {
	file, id         string
	chapters, verses int
}

func readManifest(t *testing.T, dir string) []manifestEntry {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []manifestEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 4 {
			t.Fatalf("MANIFEST.tsv: short line %q", line)
		}
		c, err1 := strconv.Atoi(cols[2])
		v, err2 := strconv.Atoi(cols[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("MANIFEST.tsv: bad counts in %q", line)
		}
		out = append(out, manifestEntry{cols[0], cols[1], c, v})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// countNodes counts Chapter and Verse nodes anywhere in the tree.
func countNodes(nodes []*Node) (chapters, verses int) {
	for _, n := range nodes {
		switch n.Kind {
		case Chapter:
			chapters++
		case Verse:
			verses++
		}
		c, v := countNodes(n.Children)
		chapters += c
		verses += v
	}
	return chapters, verses
}

// TestRealData parses the whole Bibles in the shared data and checks the
// chapter and verse counts against each folder's MANIFEST.tsv.
func TestRealData(t *testing.T) {
	shared := sharedDir(t)
	summary := make([]string, len(realBibles))
	t.Run("bibles", func(t *testing.T) {
		for i, bible := range realBibles {
			t.Run(bible, func(t *testing.T) {
				t.Parallel()
				summary[i] = checkBible(t, filepath.Join(shared, "bibles", bible))
			})
		}
	})
	fmt.Printf("usfm real data: %s\n", strings.Join(summary, "; "))
}

// checkBible parses every book listed in dir/MANIFEST.tsv, checks its
// counts, and returns a summary.
func checkBible(t *testing.T, dir string) string {
	bible := filepath.Base(dir)
	entries := readManifest(t, dir)
	if len(entries) == 0 {
		t.Errorf("%s: empty manifest", bible)
	}
	files, warnings := 0, 0
	byMsg := map[string]int{}
	for _, e := range entries {
		src := readGz(t, filepath.Join(dir, e.file))
		book, err := Parse(e.file, src)
		if err != nil {
			t.Errorf("%s: %v", bible, err)
			continue
		}
		files++
		if book.ID != e.id && BookAliases[e.id] != book.ID {
			t.Errorf("%s/%s: ID %q, manifest says %q", bible, e.file, book.ID, e.id)
		}
		c, v := countNodes(book.Nodes)
		if c != e.chapters || v != e.verses {
			t.Errorf("%s/%s: %d chapters, %d verses; manifest says %d, %d", bible, e.file, c, v, e.chapters, e.verses)
		}
		warnings += len(book.Warnings)
		for _, w := range book.Warnings {
			if w.Sev == Damage {
				t.Errorf("%s: real data reported as damaged: %v", bible, w)
			}
			byMsg[w.Msg]++
			if testing.Verbose() {
				t.Logf("%s: %v", bible, w)
			}
		}
	}
	msgs := make([]string, 0, len(byMsg))
	for m, n := range byMsg {
		msgs = append(msgs, fmt.Sprintf("%d× %s", n, m))
	}
	sort.Strings(msgs)
	if len(msgs) > 0 {
		t.Logf("%s warnings: %s", bible, strings.Join(msgs, "; "))
	}
	return fmt.Sprintf("%s %d/%d files, %d warnings", bible, files, len(entries), warnings)
}
