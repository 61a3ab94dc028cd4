package searchapi

import (
	"strings"
	"testing"
)

func TestOneSpaced(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"love", "love"},
		{"love one another", "love one another"},
		{"  love   one\tanother \n", "love one another"},
		{"love\u00a0one", "love one"},
		{"love\u3000one", "love one"},
		{"a ", "a"},
		{" a", "a"},
		{" ", ""},
		{"Ἐν ἀρχῇ", "Ἐν ἀρχῇ"},
		{"bad\xff \xfe", "bad\xff \xfe"},
	} {
		if got := string(oneSpaced([]byte(tc.q))); got != tc.want {
			t.Errorf("oneSpaced(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// FuzzOneSpaced holds oneSpaced to strings.Fields and strings.Join on any
// query, valid UTF-8 or not.
func FuzzOneSpaced(f *testing.F) {
	for _, s := range []string{"", "love", " a  b ", "a\u2028b", "\u0085x\u00a0", "x\xffy", "\u3000\u3000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if got, want := string(oneSpaced([]byte(q))), strings.Join(strings.Fields(q), " "); got != want {
			t.Fatalf("oneSpaced(%q) = %q, want %q", q, got, want)
		}
	})
}
