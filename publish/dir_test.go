package publish_test

import (
	"strings"
	"testing"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/publish/storetest"
)

func TestDirConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) publish.Store {
		d, err := publish.OpenDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestPackRoundTrip(t *testing.T) {
	w := publish.NewPackWriter()
	long := []byte(`{"content":"` + strings.Repeat("In the beginning, God created the heavens and the earth. ", 8) + `"}`)
	w.Add("b", publish.JSON, long)
	w.Add("a", publish.JSON, []byte(`{}`))
	w.AddRaw("segments", publish.JSON, long)
	key := w.Key()
	p, err := publish.DecodePack(w.Bytes(publish.NewEncoder()))
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{p.Name(0), p.Name(1), p.Name(2)}; got[0] != "a" || got[1] != "b" || got[2] != "segments" {
		t.Errorf("entries %v; want sorted a b segments", got)
	}
	b := p.Entry("b")
	if len(b.Reps) != 3 || b.Reps[0].Encoding != "" || b.Reps[1].Encoding != "br" || b.Reps[2].Encoding != "gzip" {
		t.Fatalf("b reps = %+v; want identity, br, gzip", b.Reps)
	}
	if string(p.Body(&b.Reps[0])) != string(long) {
		t.Errorf("identity body = %q", p.Body(&b.Reps[0]))
	}
	tags := map[string]bool{}
	for _, r := range b.Reps {
		tags[r.ETag] = true
	}
	if len(tags) != 3 {
		t.Errorf("ETags not distinct per encoding: %+v", b.Reps)
	}
	if a := p.Entry("a"); len(a.Reps) != 1 {
		t.Errorf("a tiny body kept encodings that do not make it smaller: %+v", a.Reps)
	}
	if s := p.Entry("segments"); len(s.Reps) != 1 || s.Reps[0].Off != b.Reps[0].Off {
		t.Errorf("raw entry %+v: want identity only, sharing b's body", s.Reps)
	}
	w2 := publish.NewPackWriter()
	w2.Add("a", publish.JSON, []byte(`{}`))
	w2.AddRaw("segments", publish.JSON, long)
	w2.Add("b", publish.JSON, long)
	if w2.Key() != key {
		t.Errorf("the same entries in another order made another key")
	}
	w2.Add("c", publish.JSON, nil)
	if w2.Key() == key {
		t.Errorf("another entry made the same key")
	}
}

func BenchmarkEncodePassage(b *testing.B) {
	body := []byte(`{"id":"GEN.1.2","content":"<div><div class=\"p\"><span class=\"yv-v\" v=\"2\"></span><span class=\"yv-vlbl\">2</span>The earth was formless and empty. Darkness was on the surface of the deep and God’s Spirit was hovering over the surface of the waters.</div></div>","reference":"Genesis 1:2"}`)
	e := publish.NewEncoder()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		publish.Encode(e, body)
	}
}

func TestDirKeptOpenConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) publish.Store {
		d, err := publish.OpenDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		d.KeepOpen(2)
		return d
	})
}
