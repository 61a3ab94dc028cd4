package lang

import "testing"

// TestSupplement: languages Bibles are published in that CLDR lacks are in
// the catalogue, with the direction of their script.
func TestSupplement(t *testing.T) {
	for id, want := range map[string]struct{ dir, script, name string }{
		"hbo": {"rtl", "Hebr", "Ancient Hebrew"},
		"smp": {"rtl", "Samr", "Samaritan Hebrew"},
		"xcl": {"ltr", "Armn", "Classical Armenian"},
		"oar": {"rtl", "Armi", "Old Aramaic"},
	} {
		c, err := Canonical(id)
		if err != nil || c != id {
			t.Errorf("Canonical(%s) = %q, %v", id, c, err)
			continue
		}
		l, ok := Lookup(id)
		if !ok || l.TextDirection != want.dir || len(l.Scripts) != 1 || l.Scripts[0] != want.script {
			t.Errorf("%s = %+v; want %+v", id, l, want)
		}
		if got, _ := l.DisplayName("en"); got != want.name {
			t.Errorf("%s English name %q; want %q", id, got, want.name)
		}
	}
	// The ones CLDR has keep CLDR's entry.
	for id, dir := range map[string]string{"grc": "ltr", "arc": "rtl", "syc": "rtl"} {
		if l, ok := Lookup(id); !ok || l.TextDirection != dir {
			t.Errorf("%s = %+v, %v", id, l, ok)
		}
	}
}
