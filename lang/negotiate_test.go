package lang

import (
	"slices"
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
	tests := []struct{ header, want string }{
		{"fr-CH, fr;q=0.9, de;q=0.8, *;q=0.5", "fr-CH"},
		{"", "en"},
		{"*", "en"},
		{"de;q=0.5, fr", "fr"},          // weights order, not position
		{"nl;q=0.5, sv;q=0.5", "nl"},    // ties keep header order
		{"de;q=0, fr;q=0.1", "fr"},      // q=0: not acceptable (RFC 9110 §12.4.2)
		{"EN-gb", "en-GB"},              // case-insensitive
		{"en-US", "en"},                 // CLDR's en is US English
		{"zh-TW", "zh-Hant"},            // Traditional Chinese names
		{"sr-ME", "sr-Latn-ME"},         // Montenegrin Serbian is written in Latin
		{"es-MX;q=0.7, xx", "es-MX"},    // unknown language skipped
		{"garbage;;q=x, de", "de"},      // malformed weight skips that item only
		{"fr;q=abc, it", "it"},          // likewise
		{"en;q=1.5, pt", "pt"},          // out-of-range weight
		{"@@@, ;;;, ,,, de-DE", "de"},   // junk items skipped
		{"x-private, und, i-lux", "lb"}, // grandfathered tag mapped by x/text
		{",,,;q=0.9", "en"},
		{strings.Repeat("xx, ", 100) + "de", "en"}, // only the first 32 items count
	}
	for _, tt := range tests {
		if got := Negotiate(tt.header); got != tt.want {
			t.Errorf("Negotiate(%q) = %q; want %q", tt.header, got, tt.want)
		}
	}
}

func TestLocalizedName(t *testing.T) {
	frCH := ParsePreferences("fr-CH, fr;q=0.9, de;q=0.8, *;q=0.5")
	de := mustLookup(t, "de")
	tests := []struct {
		name  string
		lang  Language
		prefs Preferences
		want  string
	}{
		{"first preference", de, frCH, "allemand"},
		{"second preference", de, ParsePreferences("xx, ja;q=0.9"), "ドイツ語"},
		{"English fallback", de, ParsePreferences("xx"), "German"},
		{"no preferences", de, Preferences{}, "German"},
		{"composed name", mustLookup(t, "zh-Hant-TW"), frCH, "chinois traditionnel (Taïwan)"},
	}
	// A language French does not name but German does falls through to
	// the header's next choice.
	for _, l := range All() {
		_, fr := l.DisplayName("fr")
		name, deOK := l.DisplayName("de")
		if !fr && deOK {
			tests = append(tests, struct {
				name  string
				lang  Language
				prefs Preferences
				want  string
			}{"falls through to de: " + l.ID, l, frCH, name})
			break
		}
	}
	if len(tests) != 6 {
		t.Fatal("no language named in German but not in French to test with")
	}
	for _, tt := range tests {
		if got := LocalizedName(tt.lang, tt.prefs); got != tt.want {
			t.Errorf("%s: LocalizedName(%s) = %q; want %q", tt.name, tt.lang.ID, got, tt.want)
		}
	}
}

func TestDisplayName(t *testing.T) {
	tests := []struct {
		id, locale, want string
	}{
		{"de", "fr-CH", "allemand"}, // inherited from fr
		{"de", "de-CH", "Deutsch"},
		{"en", "ja", "英語"},
		{"zh", "zh", "中文"},
		{"sr-Latn", "en", "Serbian (Latin)"},
		{"es-419", "en", "Latin American Spanish"},
		{"zh-Hant-TW", "en", "Traditional Chinese (Taiwan)"},
		{"zh-Hant-TW", "zh", "繁体中文（台湾）"}, // the locale's own pattern
		{"he", "he", "עברית"},
		{"fil", "en", "Filipino"},
	}
	for _, tt := range tests {
		l := mustLookup(t, tt.id)
		if got, ok := l.DisplayName(tt.locale); got != tt.want || !ok {
			t.Errorf("Lookup(%q).DisplayName(%q) = %q, %v; want %q", tt.id, tt.locale, got, ok, tt.want)
		}
		if got := l.DisplayNames()[tt.locale]; got != tt.want {
			t.Errorf("Lookup(%q).DisplayNames()[%q] = %q; want %q", tt.id, tt.locale, got, tt.want)
		}
	}
	if got, ok := mustLookup(t, "de").DisplayName("xx-YY"); ok {
		t.Errorf("DisplayName in an unknown locale = %q; want none", got)
	}
}

func FuzzNegotiate(f *testing.F) {
	for _, h := range []string{"fr-CH, fr;q=0.9, de;q=0.8, *;q=0.5", "", "*", "garbage;;q=x, de", "en;q=1.5", "zh-TW,zh;q=0.8", ";q=0,;", "x-a-b, i-default"} {
		f.Add(h)
	}
	en := mustLookup(f, "en")
	f.Fuzz(func(t *testing.T, header string) {
		got := Negotiate(header)
		if i, ok := data().localeIndex[got]; !ok || !data().hasNames[i] {
			t.Fatalf("Negotiate(%q) = %q: not a locale with display names", header, got)
		}
		p := ParsePreferences(header)
		if p.Locale() != got {
			t.Fatalf("ParsePreferences(%q).Locale() = %q; Negotiate = %q", header, p.Locale(), got)
		}
		if slices.ContainsFunc(p.locales, func(i int) bool { return i < 0 || i >= len(data().locales) }) {
			t.Fatalf("ParsePreferences(%q): locale index out of range: %v", header, p.locales)
		}
		if LocalizedName(en, p) == "" {
			t.Fatalf("LocalizedName(en, %q) is empty", header)
		}
	})
}

func mustLookup(t testing.TB, id string) Language {
	t.Helper()
	l, ok := Lookup(id)
	if !ok {
		t.Fatalf("Lookup(%q) found nothing", id)
	}
	return l
}
