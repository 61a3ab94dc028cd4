package searchapi

import (
	"regexp"
	"testing"
)

// FuzzSearchRange: the language range check agrees with the pattern the
// clients use, ^[A-Za-z]{1,8}(-[0-9A-Za-z]{1,8})*$ or "*".
func FuzzSearchRange(f *testing.F) {
	re := regexp.MustCompile(`^[A-Za-z]{1,8}(-[0-9A-Za-z]{1,8})*$`)
	for _, s := range []string{"en", "*", "zh-Hant-TW", "en-", "-en", "e1", "en_US", "abcdefghi", "es-419", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := s == "*" || re.MatchString(s)
		if got := validSearchRange([]byte(s)); got != want {
			t.Fatalf("validSearchRange(%q) = %t, want %t", s, got, want)
		}
	})
}
