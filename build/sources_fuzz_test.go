package build

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/build/usfm"
)

// FuzzReadZip: whatever a .zip holds, reading it ends, within the caps,
// with files or an error.
func FuzzReadZip(f *testing.F) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("JUD.usfm")
	w.Write([]byte("\\id JUD\n\\c 1\n\\v 1 Jude.\n"))
	w, _ = zw.Create("sub/GEN.usfm.gz")
	w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	zw.Create("dir/")
	zw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "f.zip")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r := &sourceReader{source: p}
		err := r.readZip(p, isBookName)
		if r.total > maxSourceBytes || r.members > maxMembers+1 {
			t.Fatalf("read %d bytes of %d members", r.total, r.members)
		}
		for _, sf := range r.files {
			if len(sf.data) > maxBookSize {
				t.Fatalf("%s: %d bytes", sf.name, len(sf.data))
			}
		}
		_ = err
	})
}

// FuzzLocate: the places import reports are inside the file.
func FuzzLocate(f *testing.F) {
	f.Add([]byte("\\id JUD\n\\c 1\n\\p\n\\v 1 a \xe9\n\\v 2 b\n"), "1", 2, false)
	f.Add([]byte(`<usx><book code="JUD"/><chapter number="1"/><verse number="1"/>x<verse eid="1"/></usx>`), "1", 1, true)
	f.Fuzz(func(t *testing.T, data []byte, chapter string, n int, usx bool) {
		lines := bytes.Count(data, []byte("\n")) + 1
		in := func(p usfm.Pos) {
			if p.Line < 1 || p.Line > lines || p.Col < 1 || p.Col > len(data)+1 {
				t.Fatalf("position %+v outside %d lines, %d bytes", p, lines, len(data))
			}
		}
		if err := checkUTF8("f", data); err != nil {
			in(err.(usfm.Diag).Pos)
		}
		p, _ := chapterPos(data, usx, chapter)
		in(p)
		p, _ = nthVersePos(data, usx, n)
		in(p)
		name := "f.usfm"
		if usx {
			name = "f.usx"
		}
		if id := bookCode(name, data); id != "" && len(id) != 3 {
			t.Fatalf("book code %q", id)
		}
	})
}

// TestPackBound: the bound publishable uses to skip assembling a chapter's
// pack is above the pack's real size, for the chapters of a shared Bible
// and for text that JSON escapes.
func TestPackBound(t *testing.T) {
	for _, text := range []string{"In the beginning", "\x01\x02<>&\"\\\u2028"} {
		verses := make([][]bible.Segment, 50)
		for i := range verses {
			s := strings.Repeat(text, 20)
			verses[i] = []bible.Segment{{Class: "p", HTML: s, Notes: s + s, Text: s}}
		}
		book := bible.Book{ID: "JHN", Title: "John", Chapters: []bible.Chapter{{ID: "1", Title: "1"}}}
		for i := range verses {
			book.Chapters[0].Verses = append(book.Chapters[0].Verses, bible.Verse{ID: fmt.Sprint(i + 1), Title: fmt.Sprint(i + 1)})
		}
		w, err := chapterPack(&book, 0, verses, "JHN 1", MaxPackBytes)
		if err != nil {
			t.Fatal(err)
		}
		if got, bound := w.Size(), packBound(verses); got > bound {
			t.Errorf("text %q: pack %d bytes, bound %d", text, got, bound)
		}
	}
}

// TestPublishablePackCap: import refuses a chapter whose pack would pass
// the cap, at the chapter's marker.
func TestPublishablePackCap(t *testing.T) {
	src := "\\id JUD\n\\c 1\n\\p\n\\v 1 short.\n\\c 2\n\\p\n"
	for v := 1; v <= 30; v++ {
		src += fmt.Sprintf("\\v %d %s\n", v, strings.Repeat("word ", 200))
	}
	f := sourceFile{"JUD.usfm", []byte(src)}
	b, err := ParseBook(f.name, f.data)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := render.Render(b, render.Options{Language: "en", File: f.name})
	if err != nil {
		t.Fatal(err)
	}
	if err := publishable(f, rb, MaxPackBytes); err != nil {
		t.Errorf("under the real cap: %v", err)
	}
	err = publishable(f, rb, 20<<10)
	if err == nil || !strings.HasPrefix(err.Error(), "JUD.usfm:5:1: JUD 2: the pack would hold more than 20480 bytes") {
		t.Errorf("under a 20 KiB cap: %v", err)
	}
}
