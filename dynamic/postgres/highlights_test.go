package postgres_test

import (
	"context"
	"slices"
	"testing"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// TestHighlightsExactVersesInOrder checks the range scan behind Highlights:
// rows that share the verses' prefix but are not asked for (JHN.3.10 for
// JHN.3.1), other users' and other Bibles' rows stay out, and the answer is
// in the order of the verses asked for, not in byte order.
func TestHighlightsExactVersesInOrder(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	const other = "9d3e2b1a-0000-4000-8000-0000000000ff"
	seed := []struct {
		user   string
		bible  int32
		verses []string
	}{
		{user, 9001, []string{"JHN.3.1", "JHN.3.2", "JHN.3.10", "JHN.3.16", "JHN.4.1", "JHN.31.1", "1JN.3.1", "JHN.3"}},
		{other, 9001, []string{"JHN.3.3"}},
		{user, 9002, []string{"JHN.3.4"}},
	}
	for i, s := range seed {
		req := dynamic.HighlightRequest{UserID: s.user, RequestID: uuidN(i + 1), BibleID: s.bible, Verses: s.verses, Color: "aabbcc"}
		if _, err := db.CreateHighlights(ctx, req, func(int) dynamic.Answer { return dynamic.Answer{Status: 201, Body: []byte("created")} }); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		verses []string
		want   []string
	}{
		{"one verse, a prefix of others", []string{"JHN.3.1"}, []string{"JHN.3.1"}},
		{"chapter in verse order", []string{"JHN.3.1", "JHN.3.2", "JHN.3.3", "JHN.3.4", "JHN.3.10", "JHN.3.16"},
			[]string{"JHN.3.1", "JHN.3.2", "JHN.3.10", "JHN.3.16"}},
		{"range across chapters", []string{"JHN.3.16", "JHN.3.17", "JHN.4.1"}, []string{"JHN.3.16", "JHN.4.1"}},
		{"none", []string{"JHN.3.5", "JHN.3.6"}, nil},
		{"empty", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs, err := db.Highlights(ctx, user, 9001, tc.verses)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hs {
				if h.BibleID != 9001 || h.Color != "aabbcc" {
					t.Errorf("got %+v", h)
				}
				got = append(got, h.PassageID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
