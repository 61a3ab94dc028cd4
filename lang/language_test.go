package lang

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// The catalogue's English figures must stay close to the widely quoted
// ones (about 1.64 billion speakers, 1.33 billion who write it); a change
// to the population arithmetic or a CLDR update that breaks this needs a
// look.
func TestEnglishPopulation(t *testing.T) {
	en := mustLookup(t, "en")
	tests := []struct {
		name string
		got  int64
		want float64
	}{
		{"speaking", en.SpeakingPopulation, 1.64e9},
		{"writing", en.WritingPopulation, 1.33e9},
	}
	for _, tt := range tests {
		if off := math.Abs(float64(tt.got)-tt.want) / tt.want; off > 0.10 {
			t.Errorf("English %s population = %d; want within 10%% of %.0f (off by %.1f%%)", tt.name, tt.got, tt.want, off*100)
		}
	}
}

func TestPopulationsConsistent(t *testing.T) {
	for _, l := range All() {
		if l.WritingPopulation > l.SpeakingPopulation || l.WritingPopulation < 0 {
			t.Errorf("%s: writing population %d, speaking %d", l.ID, l.WritingPopulation, l.SpeakingPopulation)
		}
	}
	// A variant counts a subset of its language's speakers.
	for _, pair := range [][2]string{{"zh-Hant", "zh"}, {"zh-Hant-TW", "zh-Hant"}, {"es-419", "es"}, {"pt-BR", "pt"}, {"sr-Latn", "sr"}} {
		v, l := mustLookup(t, pair[0]), mustLookup(t, pair[1])
		if v.SpeakingPopulation <= 0 || v.SpeakingPopulation > l.SpeakingPopulation {
			t.Errorf("%s speakers %d; %s speakers %d", v.ID, v.SpeakingPopulation, l.ID, l.SpeakingPopulation)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		id                         string
		language, script, scrName  string
		dir                        string
		scripts, variants, country []string
	}{
		{"en", "en", "", "", "ltr", []string{"Latn"}, nil, []string{"US"}},
		{"he", "he", "", "", "rtl", []string{"Hebr"}, nil, []string{"IL"}},
		{"ar", "ar", "", "", "rtl", []string{"Arab"}, nil, []string{"EG"}},
		{"sr", "sr", "", "", "ltr", []string{"Cyrl", "Latn"}, nil, []string{"RS"}},
		{"sr-Latn", "sr", "Latn", "Latin", "ltr", []string{"Latn"}, nil, []string{"RS"}},
		{"zh-Hant", "zh", "Hant", "Traditional Han", "ltr", []string{"Hant"}, nil, []string{"TW"}},
		{"zh-Hant-TW", "zh", "Hant", "Traditional Han", "ltr", []string{"Hant"}, nil, []string{"TW"}},
		{"pa-Arab", "pa", "Arab", "Arabic", "rtl", []string{"Arab"}, nil, []string{"PK"}},
		{"ca", "ca", "", "", "ltr", []string{"Latn"}, []string{"valencia"}, []string{"ES"}},
	}
	for _, tt := range tests {
		l := mustLookup(t, tt.id)
		got := []string{l.Language, l.Script, l.ScriptName, l.TextDirection}
		want := []string{tt.language, tt.script, tt.scrName, tt.dir}
		if !slices.Equal(got, want) {
			t.Errorf("Lookup(%q) language, script, script name, direction = %q; want %q", tt.id, got, want)
		}
		if !hasPrefix(l.Scripts, tt.scripts) {
			t.Errorf("Lookup(%q).Scripts = %q; want them to start with %q", tt.id, l.Scripts, tt.scripts)
		}
		if !slices.Equal(l.Variants, tt.variants) {
			t.Errorf("Lookup(%q).Variants = %q; want %q", tt.id, l.Variants, tt.variants)
		}
		if !hasPrefix(l.Countries, tt.country) {
			t.Errorf("Lookup(%q).Countries = %q; want them to start with %q", tt.id, l.Countries, tt.country)
		}
	}
	for _, id := range []string{"iw", "EN", "zh-TW", "zh-Hans", "und", "mul", "zxx", ""} {
		if _, ok := Lookup(id); ok {
			t.Errorf("Lookup(%q) found an entry; only canonical ids are entries", id)
		}
	}
}

func hasPrefix(s, prefix []string) bool {
	return len(s) >= len(prefix) && slices.Equal(s[:len(prefix)], prefix)
}

func TestAll(t *testing.T) {
	all := All()
	if !slices.IsSortedFunc(all, func(a, b Language) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("All() is not sorted by id")
	}
	ids := map[string]bool{}
	for _, l := range all {
		if ids[l.ID] {
			t.Errorf("All() lists %s twice", l.ID)
		}
		ids[l.ID] = true
		if _, ok := l.DisplayName("en"); !ok {
			t.Errorf("%s has no English name", l.ID)
		}
	}
	for _, id := range []string{"en", "fr", "he", "fil", "grc", "es-419", "es-ES", "pt-BR", "pt-PT", "zh-Hant-HK", "zh-Hant-TW", "zh-Hant", "sr-Latn", "uz-Cyrl", "uz-Arab", "pa-Arab", "az-Cyrl"} {
		if !ids[id] {
			t.Errorf("All() lacks %s", id)
		}
	}
	if len(all) < 600 {
		t.Errorf("All() has %d languages; CLDR names over 600", len(all))
	}
	all[0].ID = "changed"
	if All()[0].ID == "changed" {
		t.Error("All() returns the catalogue's own slice")
	}
}

func TestProminent(t *testing.T) {
	tests := []struct {
		country string
		prefix  []string // the first, most spoken languages
		has     []string // also present
		hasNot  []string
	}{
		{"US", []string{"en", "es"}, nil, []string{"fr", "zh-Hant"}},
		{"us", []string{"en", "es"}, nil, nil},
		{"IN", []string{"hi", "en"}, []string{"bn"}, []string{"sa"}}, // sa: official_regional, far below 5 %
		{"TW", []string{"zh-Hant"}, nil, []string{"zh"}},
		{"CH", []string{"de"}, []string{"fr", "it"}, nil},
		{"PY", nil, []string{"es", "gn"}, nil},
		{"ZZ", nil, nil, nil},
	}
	for _, tt := range tests {
		got := Prominent(tt.country)
		if !hasPrefix(got, tt.prefix) {
			t.Errorf("Prominent(%q) = %q; want it to start with %q", tt.country, got, tt.prefix)
		}
		for _, id := range tt.has {
			if !slices.Contains(got, id) {
				t.Errorf("Prominent(%q) = %q; want it to include %s", tt.country, got, id)
			}
		}
		for _, id := range tt.hasNot {
			if slices.Contains(got, id) {
				t.Errorf("Prominent(%q) = %q; want it not to include %s", tt.country, got, id)
			}
		}
	}
	if got := Prominent("ZZ"); got != nil {
		t.Errorf("Prominent(ZZ) = %q; want nil", got)
	}
}

func TestResource(t *testing.T) {
	prefs := ParsePreferences("fr")
	tests := []struct {
		id     string
		bible  int32
		checks map[string]any
	}{
		{"en", 206, map[string]any{"id": "en", "language": "en", "script": nil, "script_name": nil, "localized_name": "anglais", "default_bible_id": 206.0, "text_direction": "ltr"}},
		{"sr-Latn", 0, map[string]any{"script": "Latn", "script_name": "Latin", "default_bible_id": nil, "localized_name": "serbe (latin)"}},
		{"he", 0, map[string]any{"text_direction": "rtl"}},
	}
	for _, tt := range tests {
		b, err := json.Marshal(mustLookup(t, tt.id).Resource(prefs, tt.bible))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for k, want := range tt.checks {
			if got[k] != want {
				t.Errorf("%s resource %s = %v; want %v", tt.id, k, got[k], want)
			}
		}
		for _, k := range []string{"aliases", "display_names", "scripts", "variants", "countries", "writing_population", "speaking_population"} {
			if v, ok := got[k]; !ok || v == nil {
				t.Errorf("%s resource %s = %v; want a value", tt.id, k, v)
			}
		}
		if names := got["display_names"].(map[string]any); names["de"] == nil || names["fr-CH"] != names["fr"] {
			t.Errorf("%s display_names lacks inherited entries: de=%v fr=%v fr-CH=%v", tt.id, names["de"], names["fr"], names["fr-CH"])
		}
	}
}

func TestSaturate(t *testing.T) {
	tests := []struct {
		in   int64
		want int32
	}{{-1, 0}, {0, 0}, {1_640_000_000, 1_640_000_000}, {math.MaxInt32 + 1, math.MaxInt32}}
	for _, tt := range tests {
		if got := saturate(tt.in); got != tt.want {
			t.Errorf("saturate(%d) = %d; want %d", tt.in, got, tt.want)
		}
	}
}
