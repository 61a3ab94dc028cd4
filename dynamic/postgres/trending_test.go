package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
	"github.com/bibleplatform/platform/trending"
)

func app(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 16) }

func TestTrending(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	day := time.Date(2026, 3, 10, 15, 20, 0, 0, time.UTC)
	// Each app's searches come from a client of its own, unless clients
	// says otherwise.
	addFrom := func(at time.Time, lang, phrase string, n int64, clients []int, apps ...int) {
		t.Helper()
		var hs, cs [][]byte
		for _, a := range apps {
			hs = append(hs, app(a))
		}
		for _, c := range clients {
			cs = append(cs, app(100+c))
		}
		if err := db.AddSearchQueries(ctx, at, []dynamic.SearchCount{{Language: lang, Phrase: phrase, Count: n, Apps: hs, Clients: cs}}); err != nil {
			t.Fatal(err)
		}
	}
	add := func(at time.Time, lang, phrase string, n int64, apps ...int) {
		t.Helper()
		addFrom(at, lang, phrase, n, apps, apps...)
	}
	add(day, "en", "love", 5, 1, 2)
	add(day.Add(time.Minute), "en", "love", 4, 2, 3) // the same hour: added up; app 2 once
	add(day, "en", "light", 50, 1)                   // one app only
	add(day, "en", "hope", 3, 1)
	add(day.Add(24*time.Hour), "en", "hope", 3, 2) // two apps, but on two days
	add(day, "en", "peace", 2, 4, 5)
	add(day.Add(-9*24*time.Hour), "en", "peace", 100, 4, 5) // outside the window
	add(day, "es", "amor", 7, 1, 2, 3)
	// Three apps' keys, one client: App Keys are public.
	addFrom(day, "en", "spam", 90, []int{9}, 1, 2, 3)

	now := day.Add(25 * time.Hour)
	got, err := db.Trending(ctx, now.Add(-7*24*time.Hour), 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]trending.Phrase{
		"en": {{Text: "love", Count: 9, Apps: 3}, {Text: "peace", Count: 2, Apps: 2}},
		"es": {{Text: "amor", Count: 7, Apps: 3}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Trending = %v, want %v", got, want)
	}
	// The operator blocks a phrase: it leaves every language's list until
	// unblocked.
	if err := db.BlockPhrase(ctx, "love"); err != nil {
		t.Fatal(err)
	}
	db.BlockPhrase(ctx, "love")
	if list, err := db.BlockedPhrases(ctx); err != nil || fmt.Sprint(list) != "[love]" {
		t.Errorf("blocked: %v %v", list, err)
	}
	if got, _ := db.Trending(ctx, now.Add(-7*24*time.Hour), 2, 10); fmt.Sprint(got["en"]) != fmt.Sprint(want["en"][1:]) {
		t.Errorf("love blocked: %v", got)
	}
	if ok, err := db.UnblockPhrase(ctx, "love"); !ok || err != nil {
		t.Errorf("unblock: %t %v", ok, err)
	}
	if ok, _ := db.UnblockPhrase(ctx, "love"); ok {
		t.Error("unblocking twice reported a blocked phrase")
	}
	if got, _ := db.Trending(ctx, now.Add(-7*24*time.Hour), 2, 1); len(got["en"]) != 1 || got["en"][0].Text != "love" {
		t.Errorf("limit 1: %v", got)
	}
	if got, _ := db.Trending(ctx, now.Add(-7*24*time.Hour), 4, 10); len(got) != 0 {
		t.Errorf("min 4 apps: %v, want nothing", got)
	}

	// A day's salt is made once and is the same for every caller.
	s1, err := db.SearchSalt(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := db.SearchSalt(ctx, day.Add(3*time.Hour))
	s3, _ := db.SearchSalt(ctx, day.Add(24*time.Hour))
	if len(s1) != 32 || !bytes.Equal(s1, s2) || bytes.Equal(s1, s3) {
		t.Errorf("salts: same day %t, next day differs %t", bytes.Equal(s1, s2), !bytes.Equal(s1, s3))
	}
	// Purging at the next day deletes the past day's salt, and what the
	// window no longer covers.
	if err := db.PurgeSearchQueries(ctx, now.Add(-7*24*time.Hour), day.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.SearchSalt(ctx, day); bytes.Equal(s, s1) {
		t.Error("the past day's salt survived the purge")
	}
	if got, _ := db.Trending(ctx, day.Add(-30*24*time.Hour), 2, 10); got["en"][1].Count != 2 {
		t.Errorf("after purge: %v; the old peace searches should be gone", got)
	}
}

// TestTrendingConcurrentReports: edges reporting the same phrases at once
// neither deadlock nor lose a count.
func TestTrendingConcurrentReports(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	at := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for e := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var qs []dynamic.SearchCount
			for i := range 200 {
				qs = append(qs, dynamic.SearchCount{Language: "en", Phrase: fmt.Sprintf("p%03d", i), Count: 1, Apps: [][]byte{app(e)}, Clients: [][]byte{app(e)}})
			}
			for range 5 {
				if err := db.AddSearchQueries(ctx, at, qs); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := db.Trending(ctx, at.Add(-time.Hour), 8, 300)
	if err != nil {
		t.Fatal(err)
	}
	if len(got["en"]) != 200 || got["en"][0].Count != 40 || got["en"][0].Apps != 8 {
		t.Errorf("got %d phrases, first %+v; want 200 phrases of 40 searches by 8 apps", len(got["en"]), got["en"][0])
	}
}
