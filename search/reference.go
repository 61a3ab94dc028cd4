package search

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/bibleplatform/platform/bible"
)

// Reference detection: a query such as "John 3:16", "jn 3 16", "1 Cor 13"
// or "Salmos 23:1-3" names a book, a chapter and optionally a verse or a
// run of verses. The book is found by its names in the Bible's own index
// (title, full title, abbreviation), the English names and abbreviations
// below, or its USFM id; a name typed in part ("Gen", "Philem") is taken
// when it begins the names of one book only.

// Reference is a parsed reference query.
type Reference struct {
	Book     bible.BookID
	Chapter  string // "" for the whole book (only when reference intent is forced)
	Verse    int    // 0 for the whole chapter
	EndVerse int    // 0 for a single verse
}

var refRE = regexp.MustCompile(`^\s*([1-4]\s*|(?:i{1,3}|iv)\s+)?(\pL[\pL\pM'’ .]*?)\.?\s*(?:(\d{1,3})(?:(?:\s*[:.,]\s*|\s+)(\d{1,3})(?:\s*[-–—]\s*(\d{1,3}))?)?)?\s*$`)

// ParseReference reads a query as a reference to a chapter or verses of a
// book this Bible has.
func (x *Index) ParseReference(q string) (Reference, bool) {
	r, ok := x.parseReference(q)
	return r, ok && r.Chapter != ""
}

func (x *Index) parseReference(q string) (Reference, bool) {
	if len(q) > 4*MaxQueryLen {
		return Reference{}, false
	}
	m := refRE.FindStringSubmatch(strings.ToLower(q))
	if m == nil {
		return Reference{}, false
	}
	num := strings.TrimSpace(m[1])
	switch num {
	case "i":
		num = "1"
	case "ii":
		num = "2"
	case "iii":
		num = "3"
	case "iv":
		num = "4"
	}
	book, ok := x.findBook(num + nameKey(m[2]))
	if !ok {
		return Reference{}, false
	}
	r := Reference{Book: book, Chapter: m[3]}
	if r.Chapter != "" {
		r.Chapter = strconv.Itoa(atoi(m[3]))
	}
	r.Verse, r.EndVerse = atoi(m[4]), atoi(m[5])
	if r.EndVerse != 0 && r.EndVerse < r.Verse {
		r.EndVerse = 0
	}
	return r, true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// nameKey folds a book name for lookup: letters and digits only.
func nameKey(s string) string {
	s = Fold(s)
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// findBook resolves a name key: exactly, else as the beginning of one
// book's names.
func (x *Index) findBook(key string) (bible.BookID, bool) {
	if key == "" {
		return "", false
	}
	if b, ok := x.bookNames[key]; ok {
		return b, true
	}
	letters := strings.TrimLeft(key, "0123456789")
	if len(letters) < 2 {
		return "", false
	}
	var found bible.BookID
	for k, b := range x.bookNames {
		if strings.HasPrefix(k, key) {
			if found != "" && found != b {
				return "", false
			}
			found = b
		}
	}
	return found, found != ""
}

// deriveBooks fills bookNames from the Bible's own names, then the English
// ones and USFM ids where they do not clash with those.
func (x *Index) deriveBooks() {
	x.bookNames = map[string]bible.BookID{}
	has := map[bible.BookID]bool{}
	for _, b := range x.books {
		has[b.ID] = true
		for _, n := range b.Names {
			if k := nameKey(n); k != "" {
				if _, dup := x.bookNames[k]; !dup {
					x.bookNames[k] = b.ID
				}
			}
		}
	}
	for _, line := range strings.Split(englishBooks, "\n") {
		f := strings.Split(line, "|")
		id := bible.BookID(f[0])
		if !has[id] {
			continue
		}
		for _, n := range append(f, f[0]) {
			if k := nameKey(n); k != "" {
				if _, dup := x.bookNames[k]; !dup {
					x.bookNames[k] = id
				}
			}
		}
	}
	for _, b := range x.books {
		if k := nameKey(string(b.ID)); k != "" {
			if _, dup := x.bookNames[k]; !dup {
				x.bookNames[k] = b.ID
			}
		}
	}
}

// ReferenceVerses returns the verses a reference names, in order.
func (x *Index) ReferenceVerses(r Reference) []int32 {
	ch := r.Chapter
	if ch == "" {
		ch = "1"
	}
	span, ok := x.chapterAt[string(r.Book)+"."+ch]
	if !ok {
		return nil
	}
	var out []int32
	for i := span[0]; i < span[1]; i++ {
		if r.Verse != 0 {
			id := x.verse[i][strings.LastIndexByte(x.verse[i], '.')+1:]
			v := atoi(strings.TrimRightFunc(id, func(r rune) bool { return !unicode.IsDigit(r) }))
			end := r.EndVerse
			if end == 0 {
				end = r.Verse
			}
			if v < r.Verse || v > end {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// englishBooks: USFM id, then English names and common abbreviations.
const englishBooks = `GEN|Genesis|Gen|Gn|Ge
EXO|Exodus|Ex|Exod|Exo
LEV|Leviticus|Lev|Lv|Le
NUM|Numbers|Num|Nm|Nu
DEU|Deuteronomy|Deut|Dt|De
JOS|Joshua|Josh|Jsh
JDG|Judges|Judg|Jdg|Jg|Jgs
RUT|Ruth|Ru|Rth
1SA|1 Samuel|1 Sam|1 Sa|1 Sm
2SA|2 Samuel|2 Sam|2 Sa|2 Sm
1KI|1 Kings|1 Kgs|1 Ki
2KI|2 Kings|2 Kgs|2 Ki
1CH|1 Chronicles|1 Chron|1 Chr|1 Ch
2CH|2 Chronicles|2 Chron|2 Chr|2 Ch
EZR|Ezra|Ezr
NEH|Nehemiah|Neh|Ne
EST|Esther|Esth|Es
JOB|Job|Jb
PSA|Psalms|Psalm|Ps|Psa|Pss|Psm
PRO|Proverbs|Prov|Prv|Pr
ECC|Ecclesiastes|Eccl|Eccles|Ec|Qoh
SNG|Song of Songs|Song of Solomon|Song|Sg|SoS|Canticles
ISA|Isaiah|Isa|Is
JER|Jeremiah|Jer|Je
LAM|Lamentations|Lam|La
EZK|Ezekiel|Ezek|Eze|Ezk
DAN|Daniel|Dan|Dn|Da
HOS|Hosea|Hos|Ho
JOL|Joel|Jl
AMO|Amos|Am
OBA|Obadiah|Obad|Ob
JON|Jonah|Jon|Jnh
MIC|Micah|Mic|Mi
NAM|Nahum|Nah|Na
HAB|Habakkuk|Hab|Hb
ZEP|Zephaniah|Zeph|Zep|Zp
HAG|Haggai|Hag|Hg
ZEC|Zechariah|Zech|Zec|Zc
MAL|Malachi|Mal|Ml
TOB|Tobit|Tob|Tb
JDT|Judith|Jdt|Jth
ESG|Esther Greek|Greek Esther|Add Esth
WIS|Wisdom|Wisdom of Solomon|Wis
SIR|Sirach|Ecclesiasticus|Sir
BAR|Baruch|Bar
1MA|1 Maccabees|1 Macc|1 Mac
2MA|2 Maccabees|2 Macc|2 Mac
MAT|Matthew|Matt|Mt
MRK|Mark|Mrk|Mk|Mr
LUK|Luke|Luk|Lk
JHN|John|Jhn|Jn|Joh
ACT|Acts|Act|Ac
ROM|Romans|Rom|Ro|Rm
1CO|1 Corinthians|1 Cor|1 Co
2CO|2 Corinthians|2 Cor|2 Co
GAL|Galatians|Gal|Ga
EPH|Ephesians|Eph|Ephes
PHP|Philippians|Phil|Php|Pp
COL|Colossians|Col
1TH|1 Thessalonians|1 Thess|1 Thes|1 Th
2TH|2 Thessalonians|2 Thess|2 Thes|2 Th
1TI|1 Timothy|1 Tim|1 Ti
2TI|2 Timothy|2 Tim|2 Ti
TIT|Titus|Tit
PHM|Philemon|Philem|Phm|Pm
HEB|Hebrews|Heb
JAS|James|Jas|Jm
1PE|1 Peter|1 Pet|1 Pe|1 Pt
2PE|2 Peter|2 Pet|2 Pe|2 Pt
1JN|1 John|1 Jn|1 Jhn|1 Jo
2JN|2 John|2 Jn|2 Jhn|2 Jo
3JN|3 John|3 Jn|3 Jhn|3 Jo
JUD|Jude|Jud|Jd
REV|Revelation|Rev|Re|Revelations|Apocalypse`
