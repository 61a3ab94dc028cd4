package lang

import (
	"slices"
	"strings"
	"testing"
)

func TestMatchRange(t *testing.T) {
	tests := []struct {
		r, tag string
		want   bool
	}{
		{"*", "en", true},
		{"*", "zh-Hant-TW", true},
		{"en", "en", true},
		{"en", "en-GB", true},
		{"en", "enm", false}, // prefix must end at a subtag boundary (RFC 4647 §3.3.1)
		{"EN", "en-gb", true},
		{"en-GB", "en", false},
		{"en*", "en", true},
		{"en*", "enm", true}, // the trailing-* extension is a plain prefix
		{"en*", "e", false},
		{"en-*", "en", false},
		{"en-*", "en-GB", true},
		{"zh-Hant", "zh-Hant-TW", true},
		{"zh-Hant", "zh", false},
		{"zh-Han", "zh-Hant", false},
		{"e*n", "en", false},
		{"", "en", false},
	}
	for _, tt := range tests {
		if got := MatchRange(tt.r, tt.tag); got != tt.want {
			t.Errorf("MatchRange(%q, %q) = %v; want %v", tt.r, tt.tag, got, tt.want)
		}
	}
}

func TestFilter(t *testing.T) {
	tags := []string{"en", "en-GB", "enm", "zh", "zh-Hant", "zh-Hant-TW", "zh-Hant-HK", "es-419", "fr"}
	pick := func(ids ...string) []string { return ids }
	tests := []struct {
		ranges []string
		want   []string
	}{
		{[]string{"*"}, tags},
		{[]string{"en"}, pick("en", "en-GB")},
		{[]string{"en*"}, pick("en", "en-GB", "enm")},
		{[]string{"zh-Hant"}, pick("zh-Hant", "zh-Hant-TW", "zh-Hant-HK")},
		{[]string{"zh"}, pick("zh", "zh-Hant", "zh-Hant-TW", "zh-Hant-HK")},
		{[]string{"fr", "zh-Hant", "en"}, pick("fr", "zh-Hant", "zh-Hant-TW", "zh-Hant-HK", "en", "en-GB")},
		{[]string{"en", "en*", "*"}, pick("en", "en-GB", "enm", "zh", "zh-Hant", "zh-Hant-TW", "zh-Hant-HK", "es-419", "fr")},
		{[]string{"de", "ES-419"}, pick("es-419")},
		{[]string{"de"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, i := range Filter(tt.ranges, tags) {
			got = append(got, tags[i])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Filter(%q) = %q; want %q", tt.ranges, got, tt.want)
		}
	}
}

func TestValidRange(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"en", true},
		{"*", true},
		{"en*", true},
		{"zh-Hant-TW", true},
		{"es-419", true},
		{"", false},
		{"en_US", false},
		{"en US", false},
		{"en;q=1", false},
		{"é", false},
	}
	for _, tt := range tests {
		if got := ValidRange(tt.in); got != tt.want {
			t.Errorf("ValidRange(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzFilter(f *testing.F) {
	f.Add("en,zh-Hant,*", "en,en-GB,zh-Hant-TW,fr")
	f.Add("en*", "enm,en")
	f.Add("", "")
	f.Add("-,--,*-", "-,a-")
	f.Fuzz(func(t *testing.T, ranges, tags string) {
		rs, ts := strings.Split(ranges, ","), strings.Split(tags, ",")
		got := Filter(rs, ts)
		seen := map[int]bool{}
		for _, i := range got {
			if i < 0 || i >= len(ts) || seen[i] {
				t.Fatalf("Filter(%q, %q) = %v: index out of range or repeated", rs, ts, got)
			}
			seen[i] = true
		}
		for i, tag := range ts {
			matched := slices.ContainsFunc(rs, func(r string) bool { return MatchRange(r, tag) })
			if matched != seen[i] {
				t.Fatalf("Filter(%q, %q) = %v: tag %q matched=%v but returned=%v", rs, ts, got, tag, matched, seen[i])
			}
			if !MatchRange("*", tag) {
				t.Fatalf("MatchRange(*, %q) = false", tag)
			}
			if !strings.Contains(tag, "*") && tag != "" && !MatchRange(tag, tag) {
				t.Fatalf("MatchRange(%q, itself) = false", tag)
			}
		}
		for _, r := range rs {
			if ValidRange(r) != (r != "" && strings.Trim(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-*") == "") {
				t.Fatalf("ValidRange(%q) disagrees with its character set", r)
			}
		}
	})
}
