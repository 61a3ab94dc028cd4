// Command benchmix writes the request mix make bench-edge sends: verse,
// chapter and range passages of one published Bible, picked with a Zipf
// distribution (a few passages are read far more than the rest, as John
// 3:16 is), as wrk Lua scripts for the edge and for nginx serving the same
// representations as files (edge export's layout). It also writes the
// ranges for edge export to compose, and an access file whose demo app has
// a limit high enough not to throttle the benchmark. With -mix search it
// writes make bench-search's queries (search.go), with -mix scale make
// bench-scale's mix over every Bible of a catalogue (scale.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
)

func main() {
	storeDir := flag.String("store", "", "published store (a directory)")
	bibleID := flag.Int("bible", 206, "Bible id")
	n := flag.Int("n", 50000, "requests in the mix (wrk cycles through them)")
	out := flag.String("out", "", "directory for edge.lua, nginx.lua, ranges.txt, access.json")
	accessIn := flag.String("access", "fixtures/access.json", "access file to copy")
	key := flag.String("key", "", "App Key to send")
	brShare := flag.Float64("br", 0.8, "share of requests that accept br")
	kind := flag.String("mix", "passages", "passages (make bench-edge), search (make bench-search) or scale (make bench-scale: every Bible of the store)")
	hotN := flag.Int("hot", 200000, "scale: requests in the mix over the first Bible alone")
	zipfS := flag.Float64("s", 1.1, "scale: the Zipf exponent")
	flag.Parse()
	if *kind == "scale" {
		if err := runScale(*storeDir, *n, *hotN, *zipfS, *out, *accessIn, *key, *brShare); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *kind == "search" {
		store, m, err := openCurrent(context.Background(), *storeDir)
		if err != nil {
			log.Fatal(err)
		}
		be := m.Bible(int32(*bibleID))
		if be == nil {
			log.Fatalf("bible %d is not published in %s", *bibleID, *storeDir)
		}
		if err := runSearch(store, be, *n, *out, *accessIn, *key); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*storeDir, int32(*bibleID), *n, *out, *accessIn, *key, *brShare); err != nil {
		log.Fatal(err)
	}
}

type item struct {
	edge, nginx string
}

func run(storeDir string, id int32, n int, out, accessIn, key string, brShare float64) error {
	ctx := context.Background()
	store, m, err := openCurrent(ctx, storeDir)
	if err != nil {
		return err
	}
	be := m.Bible(id)
	if be == nil {
		return fmt.Errorf("bible %d is not published in %s", id, storeDir)
	}
	idx, err := loadIndex(ctx, store, be)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	verses, chapters, ranges, rangeIDs := passages(rng, id, idx)
	for _, l := range [][]item{verses, chapters, ranges} {
		rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	}
	zipf := func(l []item) func() item {
		z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, uint64(len(l)-1))
		return func() item { return l[z.Uint64()] }
	}
	pickVerse, pickChapter, pickRange := zipf(verses), zipf(chapters), zipf(ranges)
	mix := make([]item, n)
	for i := range mix {
		switch x := rng.Float64(); {
		case x < 0.6:
			mix[i] = pickVerse()
		case x < 0.85:
			mix[i] = pickChapter()
		default:
			mix[i] = pickRange()
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeLua(filepath.Join(out, "edge.lua"), mix, func(it item) string { return it.edge }, key, brShare); err != nil {
		return err
	}
	if err := writeLua(filepath.Join(out, "nginx.lua"), mix, func(it item) string { return it.nginx }, key, brShare); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "ranges.txt"), []byte(strings.Join(rangeIDs, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	log.Printf("mix: %d requests over %d verses, %d chapters, %d ranges", n, len(verses), len(chapters), len(ranges))
	return writeAccess(accessIn, out)
}

// openCurrent opens a directory store and reads its current manifest.
func openCurrent(ctx context.Context, dir string) (publish.Store, *publish.Manifest, error) {
	store, err := publish.OpenDir(dir)
	if err != nil {
		return nil, nil, err
	}
	m, _, err := publish.LoadCurrent(ctx, store)
	if err != nil {
		return nil, nil, err
	}
	return store, m, nil
}

// loadIndex reads the index of a published Bible from its pack.
func loadIndex(ctx context.Context, store publish.Store, be *publish.BibleEntry) (*bible.Index, error) {
	p, err := publish.LoadPack(ctx, store, be.Pack)
	if err != nil {
		return nil, err
	}
	e := p.Entry(publish.NameIndex)
	if e == nil {
		return nil, fmt.Errorf("bible %d has no index", be.ID)
	}
	var idx bible.Index
	if err := json.Unmarshal(p.Body(&e.Reps[0]), &idx); err != nil {
		return nil, fmt.Errorf("bible %d: index: %w", be.ID, err)
	}
	return &idx, nil
}

// passages lists the passage requests of Bible id: every verse and every
// chapter, and two ranges of 2 to 8 verses per chapter (with their ids as
// edge export reads them), html or text at random. A request is html half
// of the time; chapters default to headings and notes (passage rule 2),
// verses and ranges to neither.
func passages(rng *rand.Rand, id int32, idx *bible.Index) (verses, chapters, ranges []item, rangeIDs []string) {
	base := fmt.Sprintf("/v1/bibles/%d/passages/", id)
	add := func(list *[]item, pid string, whole bool) {
		if rng.IntN(2) == 0 {
			*list = append(*list, item{base + pid + "?format=text", base + pid + "/text.json"})
			return
		}
		variant := "html"
		if whole {
			variant = "html-hn"
		}
		*list = append(*list, item{base + pid + "?format=html", base + pid + "/" + variant + ".json"})
	}
	for _, b := range idx.Books {
		for _, c := range b.Chapters {
			add(&chapters, c.PassageID, true)
			for _, v := range c.Verses {
				add(&verses, v.PassageID, false)
			}
			for k := 0; k < 2 && len(c.Verses) > 2; k++ {
				i := rng.IntN(len(c.Verses) - 1)
				j := min(len(c.Verses)-1, i+1+rng.IntN(7))
				r := bible.Ref{Book: b.ID, Chapter: c.ID, Verse: c.Verses[i].ID, EndChapter: c.ID, EndVerse: c.Verses[j].ID}
				rangeIDs = append(rangeIDs, fmt.Sprintf("%d %s", id, r))
				add(&ranges, r.String(), false)
			}
		}
	}
	return verses, chapters, ranges, rangeIDs
}

// writeAccess copies the access file with every app's limit high enough
// not to throttle the benchmark.
func writeAccess(accessIn, out string) error {
	return writeAccessWith(accessIn, out, func(*access.Snapshot) {})
}

// writeAccessWith writes the access file as writeAccess does, after edit.
func writeAccessWith(accessIn, out string, edit func(*access.Snapshot)) error {
	snap, err := access.ReadFile(accessIn)
	if err != nil {
		return err
	}
	edit(snap)
	for i := range snap.Apps {
		snap.Apps[i].RateLimit = access.Rate{PerSecond: 1e9, Burst: 1e9}
	}
	b, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "access.json"), b, 0o644)
}

// writeLua writes a wrk script cycling through paths; each thread starts at
// a different offset. brShare of the requests accept br, the rest gzip only.
// Every request is formatted once, when the thread starts (init): wrk runs
// on as much CPU as the server under test, and formatting each request as
// it is sent (wrk.format: a table, four string.format calls and a concat)
// took a share of it that made every server's figure partly the client's.
func writeLua(path string, mix []item, pick func(item) string, key string, brShare float64) error {
	var b strings.Builder
	b.WriteString("local paths = {\n")
	for _, it := range mix {
		fmt.Fprintf(&b, "%q,\n", pick(it))
	}
	b.WriteString("}\n")
	every := int(1/(1-brShare) + 0.5) // 0.8 → every 5th request is gzip-only
	fmt.Fprintf(&b, `local n = #paths
local i = 0
local key = %q
local threads = 0
local br, gz = {}, {}
function setup(thread)
  thread:set("offset", threads * 7919)
  threads = threads + 1
end
function init(args)
  i = offset or 0
  for k = 1, n do
    br[k] = wrk.format("GET", paths[k], {["X-SVC-App-Key"] = key, ["Accept-Encoding"] = "br, gzip"})
    gz[k] = wrk.format("GET", paths[k], {["X-SVC-App-Key"] = key, ["Accept-Encoding"] = "gzip"})
  end
end
function request()
  i = i + 1
  if i %% %d == 0 then return gz[(i %% n) + 1] end
  return br[(i %% n) + 1]
end
`, key, every)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
