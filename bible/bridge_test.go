package bible

import (
	"strconv"
	"testing"
)

// bridgeBook is SIR with chapter 11 of verses 14, 15-16 (a bridge), 17,
// and chapter 12 of 1-3 (a bridge) and 4.
func bridgeBook(t *testing.T) *Book {
	t.Helper()
	b := &Book{ID: "SIR"}
	for c, ids := range [][]string{{"14", "15", "17"}, {"1", "4"}} {
		ch := Chapter{ID: strconv.Itoa(c + 11)}
		for _, v := range ids {
			ch.Verses = append(ch.Verses, Verse{ID: v, PassageID: "SIR." + ch.ID + "." + v})
		}
		b.Chapters = append(b.Chapters, ch)
	}
	if err := b.SetBridges(Bridges{"SIR.11.15": "16", "SIR.12.1": "3"}); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSpanBridges(t *testing.T) {
	b := bridgeBook(t)
	for _, c := range []struct {
		ref        string
		want, ref2 string // the span, and its Ref
	}{
		{"SIR.11.15", "0:1-0:1", "SIR.11.15-16"},
		{"SIR.11.16", "0:1-0:1", "SIR.11.15-16"},
		{"SIR.11.15-16", "0:1-0:1", "SIR.11.15-16"},
		{"SIR.11.14-15", "0:0-0:1", "SIR.11.14-16"},
		{"SIR.11.16-17", "0:1-0:2", "SIR.11.15-17"},
		{"SIR.11.14", "0:0-0:0", "SIR.11.14"},
		{"SIR.11.16a", "0:1-0:1", "SIR.11.15-16"},
		{"SIR.11.17-12.2", "0:2-1:0", "SIR.11.17-12.3"},
		{"SIR.12.2-4", "1:0-1:1", "SIR.12.1-4"},
		{"SIR.11", "0:0-0:2", "SIR.11.14-17"},
	} {
		sp, err := b.Span(MustParseRef(c.ref))
		if err != nil {
			t.Errorf("Span(%s): %v", c.ref, err)
			continue
		}
		if got := sp.String(); got != c.want {
			t.Errorf("Span(%s) = %s, want %s", c.ref, got, c.want)
		}
		if got := sp.Ref().String(); got != c.ref2 {
			t.Errorf("Span(%s).Ref() = %s, want %s", c.ref, got, c.ref2)
		}
	}
	for _, ref := range []string{"SIR.11.13", "SIR.11.18", "SIR.12.5", "SIR.11.17a"} {
		if _, err := b.Span(MustParseRef(ref)); err == nil {
			t.Errorf("Span(%s) found a verse", ref)
		}
	}
	if got := b.Bridges(); len(got) != 2 || got["SIR.11.15"] != "16" || got["SIR.12.1"] != "3" {
		t.Errorf("Bridges() = %v", got)
	}
	x := &Index{Books: []Book{*b, {ID: "JHN"}}}
	if got := x.Bridges(); len(got) != 2 {
		t.Errorf("Index.Bridges() = %v", got)
	}
}

func TestSetBridgesRefuses(t *testing.T) {
	for _, c := range []struct {
		br   Bridges
		want string
	}{
		{Bridges{"SIR.11": "16"}, `bridge "SIR.11": not a verse id`},
		{Bridges{"SIR.11.16": "17"}, "bridge SIR.11.16: no such verse in the index"},
		{Bridges{"SIR.13.1": "2"}, "bridge SIR.13.1: no chapter 13 in the index"},
		{Bridges{"SIR.11.15": "15"}, "bridge SIR.11.15-15: not a bridge of numbered verses"},
		{Bridges{"SIR.11.15": "x"}, "bridge SIR.11.15-x: not a bridge of numbered verses"},
		{Bridges{"JHN.1.1": "2"}, "bridge JHN.1.1: no book JHN here"},
	} {
		err := bridgeBook(t).SetBridges(c.br)
		if err == nil || err.Error() != c.want {
			t.Errorf("SetBridges(%v) = %v, want %s", c.br, err, c.want)
		}
	}
	x := &Index{Books: []Book{*bridgeBook(t)}}
	if err := x.SetBridges(Bridges{"JHN.1.1": "2"}); err == nil || err.Error() != "bridge JHN.1.1: no book JHN in the index" {
		t.Errorf("Index.SetBridges of another book = %v", err)
	}
}

func TestValidBridge(t *testing.T) {
	for _, c := range []struct {
		first, end string
		want       bool
	}{
		{"15", "16", true}, {"3a", "4", true}, {"3a", "3b", true}, {"19", "27", true},
		{"16", "15", false}, {"15", "15", false}, {"3b", "3a", false}, {"1_1", "2", false}, {"", "2", false}, {"12345", "12346", false},
	} {
		if got := ValidBridge(c.first, c.end); got != c.want {
			t.Errorf("ValidBridge(%q, %q) = %v, want %v", c.first, c.end, got, c.want)
		}
	}
}

// TestSpanBridgeAllocs: finding a verse inside a bridge allocates nothing.
func TestSpanBridgeAllocs(t *testing.T) {
	b := bridgeBook(t)
	r := MustParseRef("SIR.11.16-12.2")
	if n := testing.AllocsPerRun(100, func() {
		if sp, err := b.Span(r); err != nil || sp.Ref().EndVerse != "3" {
			t.Fatal(sp, err)
		}
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
