package topic

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// folder turns text into its matching form: compatibility-decomposed,
// combining marks dropped (Spanish "Jesús" matches "Jesus"; Hebrew points
// and cantillation are ignored), case-folded, recomposed. It is not safe
// for concurrent use, so Fold builds one per call.
func folder() transform.Transformer {
	return transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), cases.Fold(), norm.NFC)
}

// Fold returns s in its matching form, with runs of anything that is not
// a letter or a digit turned into one space and apostrophes inside words
// dropped ("God's" → "gods"), trimmed.
func Fold(s string) string {
	f, _, err := transform.String(folder(), s)
	if err != nil {
		f = strings.ToLower(s) // invalid UTF-8 only; the caller refused it before
	}
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
