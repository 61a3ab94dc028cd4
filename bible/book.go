// Package bible holds the domain types every other package shares: USFM book
// identifiers and their canon, passage references, and the structure of a
// published Bible. It depends on the standard library only.
package bible

// Canon is the part of the Bible a book belongs to, spelled as the API
// spells it.
type Canon string

const (
	OldTestament Canon = "old_testament"
	NewTestament Canon = "new_testament"
	Deuterocanon Canon = "deuterocanon"
)

// Canons lists the canons in the order books are published: the live
// service places the deuterocanon between the testaments.
var Canons = []Canon{OldTestament, Deuterocanon, NewTestament}

// ParseCanon accepts the API's canon names.
func ParseCanon(s string) (Canon, bool) {
	switch c := Canon(s); c {
	case OldTestament, NewTestament, Deuterocanon:
		return c, true
	}
	return "", false
}

// BookID is a 3-character USFM book identifier such as "JHN".
type BookID string

// bookTable is the spec's USFM book list. The deuterocanon list in the spec
// repeats NEH, 1CH, 2CH (already Old Testament) and 3MA, 2ES, PS2; each id
// appears here once, at its first place.
var bookTable = [...]struct {
	id    BookID
	canon Canon
}{
	{"GEN", OldTestament}, {"EXO", OldTestament}, {"LEV", OldTestament}, {"NUM", OldTestament},
	{"DEU", OldTestament}, {"JOS", OldTestament}, {"JDG", OldTestament}, {"RUT", OldTestament},
	{"1SA", OldTestament}, {"2SA", OldTestament}, {"1KI", OldTestament}, {"2KI", OldTestament},
	{"1CH", OldTestament}, {"2CH", OldTestament}, {"EZR", OldTestament}, {"NEH", OldTestament},
	{"EST", OldTestament}, {"JOB", OldTestament}, {"PSA", OldTestament}, {"PRO", OldTestament},
	{"ECC", OldTestament}, {"SNG", OldTestament}, {"ISA", OldTestament}, {"JER", OldTestament},
	{"LAM", OldTestament}, {"EZK", OldTestament}, {"DAN", OldTestament}, {"HOS", OldTestament},
	{"JOL", OldTestament}, {"AMO", OldTestament}, {"OBA", OldTestament}, {"JON", OldTestament},
	{"MIC", OldTestament}, {"NAM", OldTestament}, {"HAB", OldTestament}, {"ZEP", OldTestament},
	{"HAG", OldTestament}, {"ZEC", OldTestament}, {"MAL", OldTestament},

	{"TOB", Deuterocanon}, {"JDT", Deuterocanon}, {"ESG", Deuterocanon}, {"WIS", Deuterocanon},
	{"SIR", Deuterocanon}, {"BAR", Deuterocanon}, {"LJE", Deuterocanon}, {"S3Y", Deuterocanon},
	{"SUS", Deuterocanon}, {"BEL", Deuterocanon}, {"1MA", Deuterocanon}, {"2MA", Deuterocanon},
	{"3MA", Deuterocanon}, {"4MA", Deuterocanon}, {"1ES", Deuterocanon}, {"2ES", Deuterocanon},
	{"MAN", Deuterocanon}, {"PS2", Deuterocanon}, {"ODA", Deuterocanon}, {"PSS", Deuterocanon},
	{"JSA", Deuterocanon}, {"JDB", Deuterocanon}, {"TBS", Deuterocanon}, {"SUT", Deuterocanon},
	{"DNT", Deuterocanon}, {"BLT", Deuterocanon}, {"EZA", Deuterocanon}, {"PRM", Deuterocanon},
	{"DAG", Deuterocanon},

	{"MAT", NewTestament}, {"MRK", NewTestament}, {"LUK", NewTestament}, {"JHN", NewTestament},
	{"ACT", NewTestament}, {"ROM", NewTestament}, {"1CO", NewTestament}, {"2CO", NewTestament},
	{"GAL", NewTestament}, {"EPH", NewTestament}, {"PHP", NewTestament}, {"COL", NewTestament},
	{"1TH", NewTestament}, {"2TH", NewTestament}, {"1TI", NewTestament}, {"2TI", NewTestament},
	{"TIT", NewTestament}, {"PHM", NewTestament}, {"HEB", NewTestament}, {"JAS", NewTestament},
	{"1PE", NewTestament}, {"2PE", NewTestament}, {"1JN", NewTestament}, {"2JN", NewTestament},
	{"3JN", NewTestament}, {"JUD", NewTestament}, {"REV", NewTestament},
}

var bookOrder = func() map[BookID]int {
	m := make(map[BookID]int, len(bookTable))
	for i, b := range bookTable {
		if _, dup := m[b.id]; dup {
			panic("bible: book listed twice: " + string(b.id))
		}
		m[b.id] = i
	}
	return m
}()

// Books returns every canonical book id in canonical order.
func Books() []BookID {
	ids := make([]BookID, len(bookTable))
	for i, b := range bookTable {
		ids[i] = b.id
	}
	return ids
}

// Canonical reports whether id is one of the spec's canonical books.
// Peripheral books (FRT, GLO, BAK, …) are not.
func (id BookID) Canonical() bool {
	_, ok := bookOrder[id]
	return ok
}

// Canon returns the book's canon, or "" for a book outside the table.
func (id BookID) Canon() Canon {
	if i, ok := bookOrder[id]; ok {
		return bookTable[i].canon
	}
	return ""
}

// Order is the book's place in canonical order; books outside the table sort
// last.
func (id BookID) Order() int {
	if i, ok := bookOrder[id]; ok {
		return i
	}
	return len(bookTable)
}

// ValidBookID reports whether s has the shape of a USFM book id: exactly
// three upper-case ASCII letters or digits.
func ValidBookID(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
