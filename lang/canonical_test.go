package lang

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"iw", "he"},                 // deprecated ISO 639-1
		{"in", "id"},                 // deprecated ISO 639-1
		{"tl", "fil"},                // CLDR legacy
		{"por", "pt"},                // ISO 639-2/3 for a 639-1 code
		{"eng", "en"},                // ISO 639-2/3 for a 639-1 code
		{"zh-TW", "zh-Hant-TW"},      // region implies Traditional, kept region
		{"zh-HK", "zh-Hant-HK"},      // likewise
		{"zh-Hans", "zh"},            // default script dropped
		{"sr-Cyrl", "sr"},            // default script dropped
		{"sr-Latn", "sr-Latn"},       // distinguishing script kept
		{"es-MX", "es"},              // region dropped
		{"es-419", "es-419"},         // kept region variant
		{"pt-BR", "pt-BR"},           // kept region variant
		{"EN", "en"},                 // case-only difference
		{"en-US-u-ca-gregory", "en"}, // region and extension dropped
	}
	for _, tt := range tests {
		got, err := Canonical(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestCanonicalErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrMalformed},
		{"!!", ErrMalformed},
		{"en--US", ErrMalformed},
		{"toolongsubtag", ErrMalformed},
		{strings.Repeat("en-", 200) + "x", ErrMalformed},
		{"x-private", ErrUnknown},
		{"und", ErrUnknown},
		{"qaa", ErrUnknown},     // private use
		{"en-Cyrl", ErrUnknown}, // a writing system CLDR does not distinguish for English
	}
	for _, tt := range tests {
		got, err := Canonical(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("Canonical(%q) = %q, %v; want error %v", tt.in, got, err, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(tt.in)) {
			t.Errorf("Canonical(%q) error %q does not quote the input", tt.in, err)
		}
	}
}

var (
	languagePattern = regexp.MustCompile(`^[a-z]{2,3}$`)
	scriptPattern   = regexp.MustCompile(`^[A-Z][a-z]{3}$`)
)

// Every catalogue id must be a fixed point of Canonical, or the API would
// redirect from an entry to somewhere else; and must have the shapes the
// spec gives its fields.
func TestCatalogueIDsAreCanonical(t *testing.T) {
	regionIDs := map[string]bool{"es-419": true, "es-ES": true, "pt-BR": true, "pt-PT": true, "zh-Hant-HK": true, "zh-Hant-TW": true}
	for _, l := range All() {
		if got, err := Canonical(l.ID); got != l.ID || err != nil {
			t.Errorf("Canonical(%q) = %q, %v; want it unchanged", l.ID, got, err)
		}
		if !languagePattern.MatchString(l.Language) {
			t.Errorf("%s: language %q does not match %s", l.ID, l.Language, languagePattern)
		}
		want := l.Language
		if l.Script != "" {
			if !scriptPattern.MatchString(l.Script) || l.ScriptName == "" {
				t.Errorf("%s: script %q (%q)", l.ID, l.Script, l.ScriptName)
			}
			want += "-" + l.Script
		}
		if l.ID != want && !regionIDs[l.ID] {
			t.Errorf("%s: an id is a language, a language and script, or a region variant", l.ID)
		}
		for _, a := range l.Aliases {
			if got, err := Canonical(a); got != l.ID || err != nil {
				t.Errorf("%s lists alias %q, but Canonical(%q) = %q, %v", l.ID, a, a, got, err)
			}
		}
	}
}

func TestAliases(t *testing.T) {
	tests := []struct {
		id   string
		want []string
	}{
		{"he", []string{"heb", "iw"}},
		{"id", []string{"in", "ind"}},
		{"fil", []string{"tgl", "tl"}},
		{"pt", []string{"por"}},
		{"en", []string{"eng"}},
		{"sr-Latn", []string{"sh"}},
	}
	for _, tt := range tests {
		l, ok := Lookup(tt.id)
		if !ok {
			t.Errorf("Lookup(%q) found nothing", tt.id)
			continue
		}
		for _, a := range tt.want {
			if !contains(l.Aliases, a) {
				t.Errorf("%s aliases = %v; want them to include %q", tt.id, l.Aliases, a)
			}
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"iw", "zh-TW", "sr-Latn", "en-US-u-ca-gregory", "EN", "x-foo", "", "i-klingon", "zh-min-nan", "es-Latn-419", "sgn-US", "en_GB", "-", "a-b-c-d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		got, err := Canonical(id)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnknown) {
				t.Fatalf("Canonical(%q): unexpected error kind %v", id, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(id)) {
				t.Fatalf("Canonical(%q): error %q does not quote the input", id, err)
			}
			return
		}
		if _, ok := Lookup(got); !ok {
			t.Fatalf("Canonical(%q) = %q, not in the catalogue", id, got)
		}
		if again, err := Canonical(got); again != got || err != nil {
			t.Fatalf("Canonical(%q) = %q, but Canonical(%q) = %q, %v", id, got, got, again, err)
		}
	})
}
