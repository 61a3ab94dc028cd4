package build

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/lang"
)

// identityChanges lists how an import's source is not the Bible already
// at its id: the title, abbreviation, language or DBL id the import gives
// (flags, --metadata, a bundle's metadata.xml) against bible.json, and
// the text of the books both have. A corrected or revised delivery of the
// same Bible keeps most verses word for word; another Bible's folder
// shares almost none, whatever its book set or its books' names. texts
// are the source's verse texts by book (nil for a peripheral book);
// existing are the Bible's book files; after is the Bible as this import
// leaves it.
func identityChanges(old, given, after BibleMeta, existing map[bible.BookID][]string, texts map[bible.BookID]verseMap) []string {
	var out []string
	field := func(name, was, now string) {
		if was != "" && now != "" && was != now {
			out = append(out, fmt.Sprintf("%s %q (was %q)", name, now, was))
		}
	}
	field("title", old.Title, given.Title)
	field("abbreviation", old.Abbreviation, given.Abbreviation)
	oldLang := old.LanguageTag
	if tag, err := canonicalLanguage(oldLang); err == nil {
		oldLang = tag
	}
	field("language", oldLang, given.LanguageTag)
	field("DBL id", old.DBLID, given.DBLID)

	var common, same int
	var example string
	for _, id := range sortedKeys(texts) {
		now := texts[id]
		paths := existing[id]
		if now.text == nil || len(paths) != 1 {
			continue
		}
		data, err := os.ReadFile(paths[0])
		if err != nil {
			continue
		}
		if bytes.Equal(data, now.src) {
			// The same file again: the same text, without rendering it.
			common += len(now.order)
			same += len(now.order)
			continue
		}
		// The earlier copy read as this import reads its source, so
		// that a change of numbering compares the same verses.
		opts := after.renderOptions(paths[0])
		opts.Language = old.LanguageTag
		was, err := bookVerses(paths[0], data, opts)
		if err != nil {
			continue // a broken earlier copy says nothing of identity
		}
		for _, v := range now.order {
			a, ok := was.text[v]
			if !ok {
				continue
			}
			b := now.text[v]
			if a == "" && b == "" {
				continue
			}
			common++
			if a == b {
				same++
			} else if example == "" {
				example = fmt.Sprintf("%s %s reads %q, was %q", id, v, clip(b), clip(a))
			}
		}
	}
	// Below minShared verses in common there is too little text to tell a
	// correction from another Bible.
	if common >= minShared && same*2 < common {
		out = append(out, fmt.Sprintf("the text: %d of the %d verses the source shares with it differ (%s)", common-same, common, example))
	}
	return out
}

// verseMap is a book's verse texts, spaces normalised, by chapter:verse.
type verseMap struct {
	order []string // chapter:verse ids in source order
	text  map[string]string
	src   []byte // the book's source
}

func versesOf(rb *render.Book, src []byte) verseMap {
	m := verseMap{text: map[string]string{}, src: src}
	texts := verseTexts(rb.Chapters)
	for c, ch := range rb.Index.Chapters {
		for v, vs := range ch.Verses {
			id := ch.ID + ":" + vs.ID
			if _, dup := m.text[id]; !dup {
				m.order = append(m.order, id)
			}
			m.text[id] = normSpace(texts[c][v])
		}
	}
	return m
}

const minShared = 20

// bookVerses renders a book file of the content directory, p holding
// data, to its verse texts.
func bookVerses(p string, data []byte, opts render.Options) (verseMap, error) {
	b, err := ParseBook(p, data)
	if err != nil {
		return verseMap{}, err
	}
	rb, err := render.Render(b, opts)
	if err != nil {
		return verseMap{}, err
	}
	return versesOf(rb, data), nil
}

func sortedKeys[V any](m map[bible.BookID]V) []bible.BookID {
	ids := make([]bible.BookID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sortBooks(ids)
	return ids
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// canonicalLanguage is tag as the language catalogue's id (lang.Canonical:
// spa → es, en_US → en), so that a Bible is found under its language's
// ranges; a tag the catalogue cannot read is refused with a suggestion.
func canonicalLanguage(tag string) (string, error) {
	id, err := lang.Canonical(tag)
	if err == nil {
		return id, nil
	}
	msg := fmt.Sprintf("language %q is not a language tag of the catalogue (docs/languages.md)", tag)
	if s := suggestLanguage(tag); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		msg += "; give a BCP 47 tag such as en, es, hbo or sr-Latn"
	}
	return "", errors.New(msg)
}

// suggestLanguage guesses the tag meant: a language named so in English
// ("Spanish"), or the tag's first subtag.
func suggestLanguage(tag string) string {
	t := strings.TrimSpace(tag)
	for _, l := range lang.All() {
		if n, ok := l.DisplayName("en"); ok && strings.EqualFold(n, t) {
			return l.ID
		}
	}
	if base, _, ok := strings.Cut(strings.ReplaceAll(t, "_", "-"), "-"); ok {
		if id, err := lang.Canonical(base); err == nil {
			return id
		}
	}
	return ""
}

// checkUTF8 locates the first byte of data that is not UTF-8: published,
// it would be U+FFFD, the text silently changed.
func checkUTF8(name string, data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	line, start := 1, 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return usfm.Diag{File: name, Pos: usfm.Pos{Line: line, Col: i - start + 1}, Sev: usfm.Damage,
				Msg: fmt.Sprintf("byte 0x%02x is not UTF-8: the file must be UTF-8 (convert it, e.g. iconv -f WINDOWS-1252 -t UTF-8)", data[i])}
		}
		if r == '\n' {
			line, start = line+1, i+1
		}
		i += n
	}
	return nil
}

// publishable refuses a rendered book the build could not publish: more
// verses than bible.MaxBookVerses, or a chapter whose pack would pass
// maxPack bytes (MaxPackBytes at import). The error is located at the
// verse or chapter marker.
func publishable(f sourceFile, rb *render.Book, maxPack int64) error {
	if err := checkBookVerses(f, rb); err != nil {
		return err
	}
	for i := range rb.Index.Chapters {
		if packBound(rb.Chapters[i].Verses) < maxPack {
			continue // every real chapter: no need to assemble its pack
		}
		what := fmt.Sprintf("%s %s", rb.Index.ID, rb.Index.Chapters[i].ID)
		if _, err := chapterPack(&rb.Index, i, rb.Chapters[i].Verses, what, maxPack); err != nil {
			return locateChapter(f, rb.Index.Chapters[i].ID, err)
		}
	}
	return nil
}

// packBound bounds the bytes of a chapter's pack (chapterPack) without
// assembling it. The pack holds five passages of each verse and five of
// the chapter, each at most the chapter's segments composed (their HTML,
// notes, text and paragraph classes, plus a paragraph's tags), and the
// segments themselves: at most eleven times the segments' bytes, times
// six for JSON's worst escaping (\u00XX), plus per segment its JSON keys
// and per verse its objects, ids and references.
func packBound(verses [][]bible.Segment) int64 {
	var raw, segs int64
	for _, v := range verses {
		for _, sg := range v {
			raw += int64(len(sg.HTML)+len(sg.Notes)+len(sg.Text)+len(sg.Class)) + 64
			segs++
		}
	}
	return 66*raw + 512*segs + 16<<10*int64(len(verses)) + 64<<10
}

// checkBookVerses refuses a book of more than bible.MaxBookVerses verses,
// at the first verse beyond the cap.
func checkBookVerses(f sourceFile, rb *render.Book) error {
	total := 0
	for _, c := range rb.Index.Chapters {
		total += len(c.Verses)
	}
	if total > bible.MaxBookVerses {
		pos, _ := nthVersePos(f.data, isUSXName(f.name), bible.MaxBookVerses+1)
		return usfm.Diag{File: f.name, Pos: pos, Sev: usfm.Damage,
			Msg: fmt.Sprintf("the book has %d verses, beyond the cap of %d verses in one book", total, bible.MaxBookVerses)}
	}
	return nil
}

// tooManyVerseMarkers refuses, before it is parsed, a source with more
// verse markers than bible.MaxBookVerses: parsing and rendering a book of
// a million verses would take minutes and gigabytes first.
func tooManyVerseMarkers(f sourceFile) error {
	pos, found := nthVersePos(f.data, isUSXName(f.name), bible.MaxBookVerses+1)
	if !found {
		return nil
	}
	return usfm.Diag{File: f.name, Pos: pos, Sev: usfm.Damage,
		Msg: fmt.Sprintf("verse marker number %d: beyond the cap of %d verses in one book", bible.MaxBookVerses+1, bible.MaxBookVerses)}
}

// locateChapter places err at chapter id's marker in f.
func locateChapter(f sourceFile, id string, err error) error {
	pos, _ := chapterPos(f.data, isUSXName(f.name), id)
	return usfm.Diag{File: f.name, Pos: pos, Sev: usfm.Damage, Msg: err.Error()}
}

// chapterPos is the place of chapter id's marker (\c or <chapter>), or
// the file's start and false if it cannot be found.
func chapterPos(data []byte, usx bool, id string) (usfm.Pos, bool) {
	return findPos(data, func(line []byte) int {
		if usx {
			if i := bytes.Index(line, []byte(`<chapter`)); i >= 0 && bytes.Contains(line[i:], []byte(`number="`+id+`"`)) {
				return i
			}
			return -1
		}
		for off := 0; ; {
			i := bytes.Index(line[off:], []byte(`\c `))
			if i < 0 {
				return -1
			}
			i += off
			if f := bytes.Fields(line[i+3:]); len(f) > 0 && string(f[0]) == id {
				return i
			}
			off = i + 3
		}
	})
}

// nthVersePos is the place of the nth verse marker (\v, or a <verse>
// with a number: not an end milestone), or the file's start and false.
func nthVersePos(data []byte, usx bool, n int) (usfm.Pos, bool) {
	marker := []byte(`\v `)
	if usx {
		marker = []byte(`<verse `)
	}
	seen := 0
	return findPos(data, func(line []byte) int {
		for off := 0; ; {
			i := bytes.Index(line[off:], marker)
			if i < 0 {
				return -1
			}
			i += off
			off = i + len(marker)
			if usx {
				tag, _, _ := bytes.Cut(line[i:], []byte(">"))
				if !bytes.Contains(tag, []byte(" number=")) {
					continue
				}
			}
			if seen++; seen == n {
				return i
			}
		}
	})
}

// findPos is the place of the first line where at returns a byte offset,
// or the file's start and false.
func findPos(data []byte, at func(line []byte) int) (usfm.Pos, bool) {
	for n, start := 1, 0; start < len(data); n++ {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data) - start
		}
		if col := at(data[start : start+end]); col >= 0 {
			return usfm.Pos{Line: n, Col: col + 1}, true
		}
		start += end + 1
	}
	return usfm.Pos{Line: 1, Col: 1}, false
}

// bookCode is the book code a source declares (\id, or USX's <book
// code>), read without parsing the book; "" if none is found.
func bookCode(name string, data []byte) bible.BookID {
	head := data[:min(len(data), 4096)]
	var rest []byte
	var ok bool
	if isUSXName(name) {
		_, rest, ok = bytes.Cut(head, []byte(`code="`))
	} else {
		_, rest, ok = bytes.Cut(head, []byte(`\id `))
	}
	if !ok || len(rest) < 3 || !bible.ValidBookID(string(rest[:3])) {
		return ""
	}
	return bible.BookID(rest[:3])
}
