package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/topic"
)

// topicsDir holds one topics file per language: topics/<language>.jsonl
// (docs/search.md describes the format).
const topicsDir = "topics"

// vocabularySize is how many of a language's most frequent Bible words it
// suggests.
const vocabularySize = 5000

// readTopics reads every topics file. A bad line is a warning (the topic
// is left out, the rest published); a file whose name is not a language
// tag is an error.
func readTopics(content string) (map[string][]topic.Topic, []error, error) {
	files, err := languageFiles(content, topicsDir, ".jsonl")
	if err != nil {
		return nil, nil, err
	}
	out := map[string][]topic.Topic{}
	var warns []error
	for _, f := range files {
		ts, errs := topic.Parse(f.name, f.data)
		warns = append(warns, errs...)
		out[f.tag] = ts
	}
	return out, warns, nil
}

// languageFile is one file of a per-language directory of the content.
type languageFile struct {
	tag  string // the canonical language tag its name is
	name string // dir/file, as warnings name it
	data []byte
}

// languageFiles reads the files <dir>/<language><ext> of the content, in
// name order. A file whose name is not a language tag, or a second file
// for one language, is an error.
func languageFiles(content, dir, ext string) ([]languageFile, error) {
	paths, _ := filepath.Glob(filepath.Join(content, dir, "*"+ext))
	sort.Strings(paths)
	seen := map[string]bool{}
	var out []languageFile
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ext)
		tag, err := lang.Canonical(name)
		if err != nil {
			return nil, fmt.Errorf("%s: the file name must be a language tag: %w", p, err)
		}
		if seen[tag] {
			return nil, fmt.Errorf("%s: a second %s file for %s", p, dir, tag)
		}
		seen[tag] = true
		data, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, languageFile{tag: tag, name: filepath.ToSlash(filepath.Join(dir, filepath.Base(p))), data: data})
	}
	return out, nil
}

// wordsOf counts the words of a book's verse texts (verseTexts: headings
// and notes are not verse text).
func wordsOf(texts [][]string) map[string]int {
	counts := map[string]int{}
	for _, ch := range texts {
		for _, v := range ch {
			topic.CountWords(counts, v)
		}
	}
	return counts
}

// langData is what a language's suggestions are made of besides its
// topics: the verse words of its Bibles and their book names.
type langData struct {
	words map[string]int
	books map[string]int // book name → Bibles naming a book so
}

func newLangData() *langData {
	return &langData{words: map[string]int{}, books: map[string]int{}}
}

// addWords adds a finished book's words to its Bible's.
func (bj *bibleJob) addWords(words map[string]int) {
	bj.mu.Lock()
	defer bj.mu.Unlock()
	if bj.words == nil {
		// Books come largest first: a Bible has a few times the
		// distinct words of its largest book.
		bj.words = make(map[string]int, 4*len(words))
	}
	for w, n := range words {
		bj.words[w] += n
	}
}

// addLanguage adds a finished Bible's words and book names to its
// language's data, so that the Bible itself can be let go (builds stream
// Bible by Bible).
func (b *builder) addLanguage(tag string, bj *bibleJob) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.langs == nil {
		b.langs = map[string]*langData{}
	}
	d := b.langs[tag]
	if d == nil {
		d = newLangData()
		b.langs[tag] = d
	}
	for w, n := range bj.words {
		if _, ok := d.words[w]; !ok {
			// A rendered book's words are slices of its verse texts: a
			// copy, so that the language does not keep them to the end.
			w = strings.Clone(w)
		}
		d.words[w] += n
	}
	for _, j := range bj.books {
		if j.index.Title != "" {
			d.books[j.index.Title]++
		}
	}
}

// languagePacks publishes each language's topics and suggestions. Each is
// its own content-addressed pack: an unchanged topical list, or unchanged
// suggestions, write nothing.
func (b *builder) languagePacks(ctx context.Context, m *publish.Manifest, topics map[string][]topic.Topic) error {
	langs := b.langs
	if langs == nil {
		langs = map[string]*langData{}
	}
	of := func(tag string) *langData {
		if langs[tag] == nil {
			langs[tag] = newLangData()
		}
		return langs[tag]
	}
	for tag := range topics {
		of(tag)
	}
	tags := make([]string, 0, len(langs))
	for t := range langs {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		d := langs[tag]
		if ts, ok := topics[tag]; ok {
			w := publish.NewPackWriter()
			if ts == nil {
				ts = []topic.Topic{}
			}
			w.AddRaw(publish.NameTopics, publish.JSON, mustJSON(ts))
			ref, err := b.put(ctx, w, "the topics of "+tag)
			if err != nil {
				return fmt.Errorf("topics %s: %w", tag, err)
			}
			if m.Topics == nil {
				m.Topics = map[string]publish.PackRef{}
			}
			m.Topics[tag] = ref
		}
		var list []topic.Suggestion
		for _, t := range topics[tag] {
			list = append(list, topic.Suggestion{Text: t.Text, Source: topic.SourceTopic})
			for _, s := range t.Subtopics {
				list = append(list, topic.Suggestion{Text: s, Source: topic.SourceTopic})
			}
		}
		names := make([]string, 0, len(d.books))
		for n := range d.books {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			list = append(list, topic.Suggestion{Text: n, Source: topic.SourceBook, Weight: d.books[n]})
		}
		list = append(list, topic.Vocabulary(tag, d.words, vocabularySize)...)
		if len(list) == 0 {
			continue
		}
		w := publish.NewPackWriter()
		w.AddRaw(publish.NameSuggestions, publish.JSON, mustJSON(list))
		ref, err := b.put(ctx, w, "the suggestions of "+tag)
		if err != nil {
			return fmt.Errorf("suggestions %s: %w", tag, err)
		}
		if m.Suggestions == nil {
			m.Suggestions = map[string]publish.PackRef{}
		}
		m.Suggestions[tag] = ref
	}
	return nil
}
