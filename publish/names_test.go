package publish

import "testing"

func TestNames(t *testing.T) {
	for _, c := range []struct{ verse, variant, want string }{
		{"", "html", "passage/html"},
		{"16", "text", "passage/16/text"},
		{"INTRO", "html-hn", "passage/INTRO/html-hn"},
		{"1_1", "html-n", "passage/1_1/html-n"},
	} {
		got := PassageName(c.verse, c.variant)
		if got != c.want || string(AppendPassageName([]byte("x"), c.verse, c.variant)) != "x"+c.want {
			t.Errorf("PassageName(%q, %q) = %q, want %q", c.verse, c.variant, got, c.want)
		}
		v, variant, ok := CutPassageName(got)
		if !ok || v != c.verse || variant != c.variant {
			t.Errorf("CutPassageName(%q) = %q, %q, %v", got, v, variant, ok)
		}
	}
	if n := VerseName("16a"); n != "verse/16a" {
		t.Errorf("VerseName = %q", n)
	}
	if v, ok := CutVerseName("verse/16a"); !ok || v != "16a" {
		t.Errorf("CutVerseName = %q %v", v, ok)
	}
	for _, name := range []string{"verses", "chapter", "segments"} {
		if _, ok := CutVerseName(name); ok {
			t.Errorf("CutVerseName(%q) ok", name)
		}
		if _, _, ok := CutPassageName(name); ok {
			t.Errorf("CutPassageName(%q) ok", name)
		}
	}
	var buf [64]byte
	if n := testing.AllocsPerRun(100, func() { AppendPassageName(buf[:0], "16", "html"); AppendVerseName(buf[:0], "16") }); n != 0 {
		t.Errorf("name builders allocate %v times", n)
	}
}
