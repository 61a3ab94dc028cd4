package lang

import "strings"

// ValidRange reports whether s may be used as a language_ranges[] value:
// non-empty and made only of ASCII letters, digits, hyphens and "*", as the
// API requires (other characters answer 400).
func ValidRange(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '*') {
			return false
		}
	}
	return true
}

// MatchRange reports whether the language range r matches tag, comparing
// without regard to case (RFC 4647 §2).
//
// It is RFC 4647 §3.3.1 basic filtering: r matches a tag it equals or a tag
// it is a prefix of when the next character in the tag is "-" (zh-Hant
// matches zh-Hant-TW, not zh-Hantx). "*" alone matches every tag. As an
// extension, a range ending in "*" is a plain prefix: en* matches en,
// en-GB and also enm.
func MatchRange(r, tag string) bool {
	if prefix, ok := strings.CutSuffix(r, "*"); ok {
		// Covers "*" itself, whose prefix is empty (RFC 4647 §3.3.1: the
		// wildcard matches any tag).
		return len(tag) >= len(prefix) && strings.EqualFold(tag[:len(prefix)], prefix)
	}
	if len(tag) < len(r) || !strings.EqualFold(tag[:len(r)], r) {
		return false
	}
	return len(tag) == len(r) || tag[len(r)] == '-'
}

// Filter applies a priority list of language ranges to tags and returns the
// indexes of the matching tags: first every tag the first range matches, in
// the order of tags, then the ones the second range adds, and so on; each
// index once (RFC 4647 §3.3, the result ordered by the priority list).
//
// To answer from the first range that matches anything, as the Bibles
// collection does, call Filter with one range at a time.
func Filter(ranges, tags []string) []int {
	var out []int
	taken := make([]bool, len(tags))
	for _, r := range ranges {
		for i, t := range tags {
			if !taken[i] && MatchRange(r, t) {
				taken[i] = true
				out = append(out, i)
			}
		}
	}
	return out
}
