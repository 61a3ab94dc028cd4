package bible

import "testing"

func TestBookTable(t *testing.T) {
	counts := map[Canon]int{}
	for _, id := range Books() {
		counts[id.Canon()]++
		if !ValidBookID(string(id)) {
			t.Errorf("%s is not a valid book id", id)
		}
	}
	// The spec's lists: 39 OT, 27 NT, and 35 deuterocanon entries of
	// which NEH 1CH 2CH (Old Testament) and 3MA 2ES PS2 (repeated) appear
	// once only: 29.
	want := map[Canon]int{OldTestament: 39, NewTestament: 27, Deuterocanon: 29}
	for c, n := range want {
		if counts[c] != n {
			t.Errorf("%s has %d books; want %d", c, counts[c], n)
		}
	}
	for _, c := range []struct {
		id    BookID
		canon Canon
	}{{"NEH", OldTestament}, {"DAG", Deuterocanon}, {"PS2", Deuterocanon}, {"REV", NewTestament}, {"FRT", ""}, {"GLO", ""}} {
		if got := c.id.Canon(); got != c.canon {
			t.Errorf("%s.Canon() = %q; want %q", c.id, got, c.canon)
		}
	}
	if !(BookID("MAL").Order() < BookID("TOB").Order() && BookID("DAG").Order() < BookID("MAT").Order()) {
		t.Errorf("the deuterocanon is not between the testaments")
	}
	if BookID("FRT").Canonical() || BookID("FRT").Order() <= BookID("REV").Order() {
		t.Errorf("FRT must be peripheral and sort last")
	}
}
