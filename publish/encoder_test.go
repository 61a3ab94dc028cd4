package publish_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/publish"
)

// TestEncoderKeepsNothing: one Encoder serves a whole build, so whatever
// it remembers of the bodies it compressed grows with the catalogue. After
// 6 MiB of distinct bodies, the heap must not have kept their compressed
// forms (about 3.5 MiB of them).
func TestEncoderKeepsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 6 MiB")
	}
	words := strings.Fields("in the beginning God created heaven and earth was without form void darkness upon face of deep spirit moved waters")
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) []byte {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return []byte(b.String())
	}
	enc := publish.NewEncoder()
	heap := func() uint64 {
		runtime.GC() // twice: the writers' pools keep their state for one GC
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	var out int
	for p := 0; p < 24; p++ {
		w := publish.NewPackWriter()
		for e := 0; e < 64; e++ {
			w.Add(fmt.Sprintf("passage/%d", e), publish.JSON, text(4096))
		}
		out += len(w.Bytes(enc))
	}
	grown := int64(heap()) - int64(before)
	runtime.KeepAlive(enc) // the build holds its encoder to the end
	t.Logf("packs of %d bytes in all; heap grew %d bytes", out, grown)
	if grown > 1<<20 {
		t.Errorf("the heap kept %d bytes after the packs were dropped; the encoder remembers what it compressed", grown)
	}
}

// TestPackFoldsRepeats: a body repeated within a pack is stored once, in
// every encoding, and each entry keeps its own name.
func TestPackFoldsRepeats(t *testing.T) {
	body := []byte(strings.Repeat("and God saw that it was good ", 40))
	w := publish.NewPackWriter()
	w.Add("passage/html", publish.JSON, body)
	w.Add("passage/html-h", publish.JSON, body)
	p, err := publish.DecodePack(w.Bytes(publish.NewEncoder()))
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Entry("passage/html"), p.Entry("passage/html-h")
	if a == nil || b == nil || len(a.Reps) != 3 || len(b.Reps) != 3 {
		t.Fatalf("entries %+v %+v; want both with identity, br and gzip", a, b)
	}
	for i := range a.Reps {
		if a.Reps[i].Off != b.Reps[i].Off || a.Reps[i].Encoding != b.Reps[i].Encoding {
			t.Errorf("rep %d stored twice: %+v %+v", i, a.Reps[i], b.Reps[i])
		}
	}
	if w.Size() != int64(2*len(body)) {
		t.Errorf("Size() = %d; want %d", w.Size(), 2*len(body))
	}
}
