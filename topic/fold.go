package topic

import (
	"strings"
	"unicode"

	"github.com/bibleplatform/platform/search"
)

// Fold returns s in its matching form: verse search's fold (search.Fold:
// combining marks dropped, so Spanish "Jesús" matches "Jesus" and Hebrew
// points and cantillation are ignored; lower case), with runs of anything
// that is not a letter or a digit turned into one space and apostrophes
// inside words dropped ("God's" → "gods"), trimmed.
func Fold(s string) string {
	f := search.Fold(s)
	var b strings.Builder
	b.Grow(len(f))
	space := false
	prev := rune(0)
	rs := []rune(f)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		case isApostrophe(r) && unicode.IsLetter(prev) && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			// inside a word: dropped
		default:
			space = true
		}
		prev = r
	}
	return b.String()
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == 'ʼ' }

// Words is Fold split into words.
func Words(s string) []string { return strings.Fields(Fold(s)) }
