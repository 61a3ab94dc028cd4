package main

import "testing"

func TestComposeName(t *testing.T) {
	langs := map[string]string{"zh": "Chinese", "zh-Hant": "Traditional Chinese", "es": "Spanish", "es-419": "Latin American Spanish", "sr": "Serbian"}
	scripts := map[string]string{"Hant": "Traditional", "Latn": "Latin"}
	regions := map[string]string{"TW": "Taiwan", "HK": "Hong Kong", "ES": "Spain"}
	pat := map[string]string{"localePattern": "{0} ({1})", "localeSeparator": "{0}, {1}"}
	tests := []struct {
		id, want string
		ok       bool
	}{
		{"es-419", "Latin American Spanish", true}, // named outright
		{"es-ES", "Spanish (Spain)", true},
		{"sr-Latn", "Serbian (Latin)", true},
		{"zh-Hant-TW", "Traditional Chinese (Taiwan)", true}, // longest named prefix, then the rest
		{"zh-Hant", "Traditional Chinese", true},
		{"pt-BR", "", false},   // the locale names no Portuguese
		{"es-MX", "", false},   // nor Mexico
		{"sr-Cyrl", "", false}, // nor Cyrillic
	}
	for _, tt := range tests {
		got, ok := composeName(tt.id, langs, scripts, regions, pat)
		if got != tt.want || ok != tt.ok {
			t.Errorf("composeName(%q) = %q, %v; want %q, %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
	both := map[string]string{"zh": "Chinese"}
	if got, _ := composeName("zh-Hant-TW", both, scripts, regions, pat); got != "Chinese (Traditional, Taiwan)" {
		t.Errorf("composeName with script and region = %q", got)
	}
}

func TestSplitID(t *testing.T) {
	tests := []struct{ id, base, script, region string }{
		{"en", "en", "", ""},
		{"sr-Latn", "sr", "Latn", ""},
		{"es-419", "es", "", "419"},
		{"zh-Hant-TW", "zh", "Hant", "TW"},
	}
	for _, tt := range tests {
		b, s, r := splitID(tt.id)
		if b != tt.base || s != tt.script || r != tt.region {
			t.Errorf("splitID(%q) = %q, %q, %q; want %q, %q, %q", tt.id, b, s, r, tt.base, tt.script, tt.region)
		}
	}
}
