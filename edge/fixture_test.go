package edge

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/content"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// The tests publish a small build themselves, through the real pack and
// manifest format, the way `publish build` lays it out (publish/names.go).

// fxBible is one Bible to publish: metadata, structure, and per chapter the
// segments of each verse (parallel to the index's verses).
type fxBible struct {
	meta     bible.Bible
	index    bible.Index
	segments map[string][][]bible.Segment // "JHN.3" → verses
	intros   map[bible.BookID][]bible.Segment
}

var fxModified = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// Demo keys of the test snapshot (not the committed fixtures' keys).
const (
	keyDemo       = "test-demo-key"
	keyUnlicensed = "test-unlicensed-key"
	keyArchived   = "test-archived-key"
	keySlow       = "test-slow-key"
	appDemo       = "0b6f7c1e-0000-4000-8000-000000000001"
)

func testSnapshot() *access.Snapshot {
	return &access.Snapshot{
		Version: 1,
		Apps: []access.App{
			// Demo's allowance is beyond what BenchmarkHandler reaches
			// (about 1.1 M requests a second); at 1e6 a run of a few
			// seconds used it up and failed on a 429.
			{ID: appDemo, Name: "Demo", Status: access.StatusLive,
				KeyHashes: []string{access.HashKeyHex(keyDemo)}, Bibles: []int32{9001, 9002, 9003},
				RateLimit: access.Rate{PerSecond: 1e9, Burst: 1e9}},
			{ID: "0b6f7c1e-0000-4000-8000-000000000002", Name: "Unlicensed", Status: access.StatusDevelopment,
				KeyHashes: []string{access.HashKeyHex(keyUnlicensed)}, Bibles: []int32{9001, 9003},
				RateLimit: access.Rate{PerSecond: 1e6, Burst: 1e6}},
			{ID: "0b6f7c1e-0000-4000-8000-000000000003", Name: "Old", Status: access.StatusArchived,
				KeyHashes: []string{access.HashKeyHex(keyArchived)}, Bibles: []int32{9001}},
			{ID: "0b6f7c1e-0000-4000-8000-000000000004", Name: "Slow", Status: access.StatusLive,
				KeyHashes: []string{access.HashKeyHex(keySlow)}, Bibles: []int32{9001, 9002},
				RateLimit: access.Rate{PerSecond: 1, Burst: 2}},
		},
		OpenBibles: []int32{9001},
	}
}

func seg(para int, class, text string) bible.Segment {
	return bible.Segment{Para: para, Class: class, HTML: text, Notes: text, Text: text}
}

// verseSeg is a verse with the markup DESIGN.md fixes.
func verseSeg(para int, class, v, text, note string) bible.Segment {
	h := `<span class="yv-v" v="` + v + `"></span><span class="yv-vlbl">` + v + `</span>` + text
	n := h
	if note != "" {
		n += `<span class="yv-n f"><span class="fr">` + v + ` </span><span class="ft">` + note + `</span></span>`
	}
	return bible.Segment{Para: para, Class: class, HTML: h, Notes: n, Text: v + " " + text + " "}
}

func fxBibles() []fxBible {
	heading := bible.Segment{Para: 1, Class: "s1 yv-h", Heading: true, HTML: "The Love of God", Notes: "The Love of God"}
	english := fxBible{
		meta: bible.Bible{ID: 9001, Abbreviation: "FXE", Title: "Fixture English", LanguageTag: "en",
			Books: []bible.BookID{"JHN", "PS2"}},
		index: bible.Index{TextDirection: "ltr", Books: []bible.Book{
			{ID: "JHN", Title: "John", FullTitle: "The Gospel of John", Abbreviation: "Jn", Canon: bible.NewTestament,
				Intro: &bible.Intro{ID: "INTRO", PassageID: "JHN.INTRO", Title: "Introduction"},
				Chapters: []bible.Chapter{
					chapter("JHN", "3", "3", "16", "17", "18"),
					chapter("JHN", "4", "4", "1", "2"),
				}},
			{ID: "PS2", Title: "Psalms", Canon: bible.Deuterocanon, Chapters: []bible.Chapter{
				chapter("PS2", "1_1", "151", "1", "2"),
			}},
		}},
		segments: map[string][][]bible.Segment{
			"JHN.3": {
				{heading, verseSeg(2, "p", "16", "For God so loved the world,", "Or only begotten")},
				{verseSeg(2, "p", "17", "For God didn’t send his Son", "")},
				{verseSeg(3, "q1", "18", "He who believes in him is not judged.", "")},
			},
			"JHN.4": {
				{verseSeg(4, "p", "1", "Therefore when the Lord knew", "")},
				{verseSeg(4, "p", "2", "(although Jesus himself didn’t baptize)", "")},
			},
			"PS2.1_1": {
				{verseSeg(1, "q1", "1", "I was small among my brothers", "")},
				{verseSeg(1, "q1", "2", "My hands formed a musical instrument", "")},
			},
		},
		intros: map[bible.BookID][]bible.Segment{"JHN": {seg(0, "ip", "John wrote this book.")}},
	}
	spanish := fxBible{
		meta: bible.Bible{ID: 9002, Abbreviation: "FXS", Title: "Fixture Spanish", LanguageTag: "es", Books: []bible.BookID{"JHN"}},
		index: bible.Index{TextDirection: "ltr", Books: []bible.Book{
			{ID: "JHN", Title: "Juan", Canon: bible.NewTestament, Chapters: []bible.Chapter{chapter("JHN", "3", "3", "16", "17")}},
		}},
		segments: map[string][][]bible.Segment{"JHN.3": {
			{verseSeg(1, "p", "16", "Porque de tal manera amó Dios al mundo,", "")},
			{verseSeg(1, "p", "17", "Porque no envió Dios a su Hijo", "")},
		}},
	}
	hebrew := fxBible{
		meta: bible.Bible{ID: 9003, Abbreviation: "FXH", Title: "Fixture Hebrew", LanguageTag: "he", Books: []bible.BookID{"GEN"}},
		index: bible.Index{TextDirection: "rtl", Books: []bible.Book{
			{ID: "GEN", Title: "בראשית", Canon: bible.OldTestament, Chapters: []bible.Chapter{chapter("GEN", "1", "1", "1", "2")}},
		}},
		segments: map[string][][]bible.Segment{"GEN.1": {
			{verseSeg(1, "p", "1", "בְּרֵאשִׁית בָּרָא אֱלֹהִים", "")},
			{verseSeg(1, "p", "2", "וְהָאָרֶץ הָיְתָה תֹהוּ", "")},
		}},
	}
	return []fxBible{english, spanish, hebrew}
}

func chapter(book, id, title string, verses ...string) bible.Chapter {
	c := bible.Chapter{ID: id, PassageID: book + "." + id, Title: title}
	for _, v := range verses {
		c.Verses = append(c.Verses, bible.Verse{ID: v, PassageID: book + "." + id + "." + v, Title: v})
	}
	return c
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type data[T any] struct {
	Data []T `json:"data"`
}

// passageBody is what the build pre-renders for one passage.
func passageBody(t testing.TB, r bible.Ref, label string, segs []bible.Segment, variant string) []byte {
	var content string
	switch variant {
	case "text":
		content = bible.ComposeText(segs)
	default:
		content = bible.ComposeHTML(segs, variant == "html-h" || variant == "html-hn",
			variant == "html-n" || variant == "html-hn")
	}
	return mustJSON(t, bible.Passage{ID: r.String(), Content: content, Reference: label})
}

// publishFixtures writes every pack and the manifest, and makes the build
// current. It returns the build id.
func publishFixtures(t testing.TB, store publish.Store, bibles []fxBible) string {
	ctx := context.Background()
	enc := publish.NewEncoder()
	put := func(w *publish.PackWriter) publish.PackRef {
		key := w.Key()
		b := w.Bytes(enc)
		if err := store.Put(ctx, key, b); err != nil {
			t.Fatal(err)
		}
		return publish.PackRef{Key: key, Size: int64(len(b)), Modified: fxModified}
	}
	var m publish.Manifest
	m.Created = fxModified
	for _, fb := range bibles {
		be := publish.BibleEntry{ID: fb.meta.ID}
		bw := publish.NewPackWriter()
		bw.Add(publish.NameBible, publish.JSON, mustJSON(t, fb.meta))
		bw.Add(publish.NameIndex, publish.JSON, mustJSON(t, fb.index))
		bw.Add(publish.NameBooks, publish.JSON, mustJSON(t, data[bible.Book]{fb.index.Books}))
		for _, c := range bible.Canons {
			var in []bible.Book
			for _, b := range fb.index.Books {
				if b.Canon == c {
					in = append(in, b)
				}
			}
			bw.Add(publish.BooksName(c), publish.JSON, mustJSON(t, data[bible.Book]{in}))
		}
		be.Pack = put(bw)
		for _, book := range fb.index.Books {
			ke := publish.BookEntry{ID: book.ID}
			kw := publish.NewPackWriter()
			kw.Add(publish.NameBook, publish.JSON, mustJSON(t, book))
			kw.Add(publish.NameChapters, publish.JSON, mustJSON(t, data[bible.Chapter]{book.Chapters}))
			if book.Intro != nil {
				r := bible.Ref{Book: book.ID, Chapter: bible.IntroChapter}
				for _, v := range publish.Variants {
					kw.Add(publish.PassageName(bible.IntroChapter, v), publish.JSON,
						passageBody(t, r, r.Label(book.Title, book.Intro.Title), fb.intros[book.ID], v))
				}
			}
			ke.Pack = put(kw)
			for _, ch := range book.Chapters {
				cw := publish.NewPackWriter()
				cw.Add(publish.NameChapter, publish.JSON, mustJSON(t, ch))
				cw.Add(publish.NameVerses, publish.JSON, mustJSON(t, data[bible.Verse]{ch.Verses}))
				segs := fb.segments[string(book.ID)+"."+ch.ID]
				if len(segs) != len(ch.Verses) {
					t.Fatalf("fixture %s.%s: %d verses, %d segment lists", book.ID, ch.ID, len(ch.Verses), len(segs))
				}
				cw.AddRaw(publish.NameSegments, publish.JSON, mustJSON(t, segs))
				var all []bible.Segment
				labelCh := content.ChapterLabel(&ch)
				for i, v := range ch.Verses {
					cw.Add(publish.VerseName(v.ID), publish.JSON, mustJSON(t, v))
					r := bible.Ref{Book: book.ID, Chapter: ch.ID, Verse: v.ID}
					lr := r
					lr.Chapter = labelCh
					for _, variant := range publish.Variants {
						cw.Add(publish.PassageName(v.ID, variant), publish.JSON,
							passageBody(t, r, lr.Label(book.Title, ""), segs[i], variant))
					}
					all = append(all, segs[i]...)
				}
				r := bible.Ref{Book: book.ID, Chapter: ch.ID}
				lr := r
				lr.Chapter = labelCh
				for _, variant := range publish.Variants {
					cw.Add(publish.PassageName("", variant), publish.JSON,
						passageBody(t, r, lr.Label(book.Title, ""), all, variant))
				}
				ke.Chapters = append(ke.Chapters, publish.ChapterEntry{ID: ch.ID, Pack: put(cw)})
			}
			be.Books = append(be.Books, ke)
		}
		be.Search = publishFixtureSearch(t, put, fb)
		m.Bibles = append(m.Bibles, be)
	}
	id := m.BuildID()
	if err := store.Put(ctx, publish.ManifestKey(id), mustJSON(t, &m)); err != nil {
		t.Fatal(err)
	}
	if err := store.SetCurrent(ctx, id); err != nil {
		t.Fatal(err)
	}
	return id
}

// publishFixtureSearch publishes a Bible's search index as the build does
// (build/search.go): the verses' plain text, indexed for its language.
func publishFixtureSearch(t testing.TB, put func(*publish.PackWriter) publish.PackRef, fb fxBible) *publish.SearchEntry {
	var in []search.Verses
	for _, book := range fb.index.Books {
		v := search.Verses{Book: book}
		for _, ch := range book.Chapters {
			var texts []string
			for _, segs := range fb.segments[string(book.ID)+"."+ch.ID] {
				texts = append(texts, bible.ComposeText(segs))
			}
			v.Texts = append(v.Texts, texts)
		}
		in = append(in, v)
	}
	w := publish.NewPackWriter()
	w.AddRaw(publish.NameSearch, "application/octet-stream", search.Build(fb.meta.LanguageTag, in).Encode())
	return &publish.SearchEntry{Source: fb.meta.Abbreviation, Pack: put(w)}
}
