package build_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/topic"
)

// TestTopicsPublished: each language's topics and suggestions are packs
// of their own; editing the Spanish topics writes the Spanish packs and
// the manifest only; a bad line is a warning and the rest is published.
func TestTopicsPublished(t *testing.T) {
	ctx := context.Background()
	content, store := fixtureCopy(t)
	if _, err := build.Build(ctx, build.Options{Content: content, Store: store}); err != nil {
		t.Fatal(err)
	}
	m, _, err := publish.LoadCurrent(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	var en []topic.Topic
	readEntry(t, store, m.Topics["en"], publish.NameTopics, &en)
	if len(en) == 0 || en[0].Text != "Love" || en[0].Passages[0] != "JHN.3.16" {
		t.Errorf("en topics = %+v", en)
	}
	var sugg []topic.Suggestion
	readEntry(t, store, m.Suggestions["en"], publish.NameSuggestions, &sugg)
	sources := map[string]string{}
	for _, s := range sugg {
		sources[s.Text] = s.Source
	}
	// Topics, book names from the Bible's own index, and words of its text.
	for text, src := range map[string]string{"Love": "topic", "God's love": "topic", "Genesis": "book", "light": "vocabulary"} {
		if sources[text] != src {
			t.Errorf("en suggestion %q has source %q, want %q", text, sources[text], src)
		}
	}
	if _, ok := m.Suggestions["he"]; !ok {
		t.Error("Hebrew has a Bible but no suggestions (book names and words need no topics file)")
	}
	if _, ok := m.Topics["he"]; ok {
		t.Error("Hebrew has topics without a topics file")
	}

	p := filepath.Join(content, "topics", "es.jsonl")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := string(src) + `{"id": 99, "text": "Esperanza", "passages": ["ROM.15.13"]}` + "\n" + `{"id": 100, "text": "Roto"` + "\n"
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Written != 3 || rep.Rendered != 0 {
		t.Errorf("Spanish topics edited: %+v; want 3 objects written (es topics, es suggestions, manifest), nothing rendered", rep)
	}
	if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0].Error(), "topics/es.jsonl:15:") {
		t.Errorf("warnings %v; want the broken line 15 of topics/es.jsonl", rep.Warnings)
	}
	m2, _, _ := publish.LoadCurrent(ctx, store)
	if m2.Topics["en"] != m.Topics["en"] || m2.Suggestions["en"] != m.Suggestions["en"] {
		t.Error("the English packs changed with the Spanish topics")
	}
	var es []topic.Topic
	readEntry(t, store, m2.Topics["es"], publish.NameTopics, &es)
	if last := es[len(es)-1]; last.Text != "Esperanza" {
		t.Errorf("last es topic %q, want the new Esperanza", last.Text)
	}
}
