package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// testIndex is a Bible of books books of chapters chapters of verses
// verses each.
func testIndex(books, chapters, verses int) *bible.Index {
	ids := []bible.BookID{"GEN", "EXO", "LEV", "NUM"}
	var x bible.Index
	for b := range books {
		bk := bible.Book{ID: ids[b]}
		for c := 1; c <= chapters; c++ {
			ch := bible.Chapter{ID: fmt.Sprint(c), PassageID: fmt.Sprintf("%s.%d", ids[b], c)}
			for v := 1; v <= verses; v++ {
				ch.Verses = append(ch.Verses, bible.Verse{ID: fmt.Sprint(v), PassageID: fmt.Sprintf("%s.%d.%d", ids[b], c, v)})
			}
			bk.Chapters = append(bk.Chapters, ch)
		}
		x.Books = append(x.Books, bk)
	}
	return &x
}

// TestScaleKinds lists every request of each kind, for every Bible.
func TestScaleKinds(t *testing.T) {
	var k scaleKinds
	rng := rand.New(rand.NewPCG(1, 2))
	k.add(rng, 7, testIndex(2, 3, 4))
	k.add(rng, 8, testIndex(1, 2, 5))
	for _, tc := range []struct {
		kind string
		got  []string
		want int
	}{
		// Bible 7: 24 verses, 6 chapters, 2 ranges a chapter; Bible 8: 10, 2, 4.
		{"verses", k.verses, 24 + 10},
		{"chapters", k.chapters, 6 + 2},
		{"ranges", k.ranges, 12 + 4},
		// Bible, index, books; per book the book and its chapters; per
		// chapter the chapter and its verse list; per verse the verse.
		{"metadata", k.meta, (3 + 2*2 + 6*2 + 24) + (3 + 1*2 + 2*2 + 10)},
	} {
		if len(tc.got) != tc.want {
			t.Errorf("%s: %d requests, want %d: %v", tc.kind, len(tc.got), tc.want, tc.got)
		}
	}
	for _, want := range []string{
		"/v1/bibles/7", "/v1/bibles/8/index", "/v1/bibles/7/books", "/v1/bibles/7/books/EXO",
		"/v1/bibles/8/books/GEN/chapters", "/v1/bibles/7/books/GEN/chapters/3",
		"/v1/bibles/7/books/GEN/chapters/3/verses", "/v1/bibles/8/books/GEN/chapters/2/verses/5",
	} {
		if !slices.Contains(k.meta, want) {
			t.Errorf("metadata lacks %s", want)
		}
	}
	for _, p := range append(append(k.verses, k.chapters...), k.ranges...) {
		if !strings.HasPrefix(p, "/v1/bibles/7/passages/") && !strings.HasPrefix(p, "/v1/bibles/8/passages/") {
			t.Errorf("passage request %s", p)
		}
	}
}

// TestZipfMix draws every kind in its share, only requests of the lists,
// most often the first of each list after the shuffle, and with a long
// tail: most distinct requests are drawn rarely.
func TestZipfMix(t *testing.T) {
	var k scaleKinds
	rng := rand.New(rand.NewPCG(1, 2))
	for id := int32(1); id <= 20; id++ {
		k.add(rng, id, testIndex(4, 10, 20))
	}
	const n = 200000
	mix := k.zipfMix(rng, n, 1.1)
	kindOf := map[string]int{}
	for i, l := range [][]string{k.verses, k.chapters, k.ranges, k.meta} {
		for _, p := range l {
			kindOf[p] = i
		}
	}
	var count [4]int
	seen := map[string]int{}
	for _, p := range mix {
		kind, ok := kindOf[p]
		if !ok {
			t.Fatalf("request %s is in no list", p)
		}
		count[kind]++
		seen[p]++
	}
	want := [4]float64{0.5, 0.2, 0.15, 0.15}
	for i := range count {
		if got := float64(count[i]) / n; math.Abs(got-want[i]) > 0.01 {
			t.Errorf("kind %d: share %.3f, want %.2f", i, got, want[i])
		}
	}
	// The first of each list (rank 1) is its most drawn request.
	for i, l := range [][]string{k.verses, k.chapters, k.ranges, k.meta} {
		for _, p := range l[1:] {
			if seen[p] > seen[l[0]] {
				t.Errorf("kind %d: %s drawn %d times, more than the first, %s (%d)", i, p, seen[p], l[0], seen[l[0]])
				break
			}
		}
	}
	rare := 0
	for _, c := range seen {
		if c <= 2 {
			rare++
		}
	}
	if got := float64(rare) / float64(len(seen)); got < 0.5 {
		t.Errorf("%.2f of the %d distinct requests were drawn at most twice, want most", got, len(seen))
	}
}
