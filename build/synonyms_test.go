package build_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// TestSynonymsPublished: a language's synonyms are in its Bibles' search
// indexes; editing the English synonyms rewrites the English Bible's
// search pack and the manifest only; a bad line is a warning and the rest
// is used.
func TestSynonymsPublished(t *testing.T) {
	ctx := context.Background()
	content, store := fixtureCopy(t)
	if _, err := build.Build(ctx, build.Options{Content: content, Store: store}); err != nil {
		t.Fatal(err)
	}
	before, _, err := publish.LoadCurrent(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	x := loadSearch(t, store, before.Bible(9001))
	if r := x.Search("jehovah", search.IntentText, 10); r.Total == 0 || r.SearchInsteadFor != "" {
		t.Errorf("jehovah in the English Bible: %d verses, instead %q; want the verses of its synonym LORD", r.Total, r.SearchInsteadFor)
	}
	if r := x.Search("tree sapling", search.IntentText, 10); r.Total != 0 && r.SearchInsteadFor == "" {
		t.Fatalf("sapling found verses before it was a synonym")
	}

	p := filepath.Join(content, "synonyms", "en.txt")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(src, "tree, sapling\nnot one, word\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Written != 2 || rep.Rendered != 0 {
		t.Errorf("English synonyms edited: %+v; want 2 objects written (the English Bible's search pack, the manifest)", rep)
	}
	if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0].Error(), "synonyms/en.txt:") {
		t.Errorf("warnings %v; want the bad line of synonyms/en.txt", rep.Warnings)
	}
	after, _, _ := publish.LoadCurrent(ctx, store)
	if after.Bible(9002).Search.Pack != before.Bible(9002).Search.Pack {
		t.Error("the Spanish Bible's search pack changed with the English synonyms")
	}
	x = loadSearch(t, store, after.Bible(9001))
	if r := x.Search("sapling", search.IntentText, 10); r.Total == 0 || r.SearchInsteadFor != "" {
		t.Errorf("sapling after the edit: %d verses, instead %q; want the verses of tree", r.Total, r.SearchInsteadFor)
	}
}
