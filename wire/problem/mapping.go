package problem

import (
	"fmt"
	"strconv"

	"github.com/bibleplatform/platform/bible"
)

// The texts of passages taken in another numbering (from_bible_id,
// from_versification), passage lists, citations and parallel passages
// (docs/versification.md).

// FromBoth: from_bible_id and from_versification at once.
func FromBoth(loc ...string) Detail {
	return Detail{loc, "Give from_bible_id or from_versification, not both", "value_error"}
}

// QueryBibleNotFound: a query parameter's Bible id names no Bible of the
// build.
func QueryBibleNotFound(id []byte, param string) Text {
	return Text("Bible " + string(id) + " of " + param + " is not published.")
}

// NoChapterIn: a chapter the other numbering does not have.
func NoChapterIn(scheme string) Text {
	return Text("Chapter not found in the " + scheme + " numbering.")
}

// NotNumbered: an id no numbering scheme numbers (PS2.1_1).
func NotNumbered(scheme string, r bible.Ref) Text {
	return Text(fmt.Sprintf("The %s numbering does not number %s.", scheme, r))
}

// MappedTooLong: a passage of another numbering beyond what is mapped.
func MappedTooLong(r bible.Ref, mapMax, max int) Text {
	return Text(fmt.Sprintf("The passage %s spans more than %d verses; at most %d can be requested at once.", r, mapMax, max))
}

// BackwardsRange: a range that ends before it starts.
func BackwardsRange(r bible.Ref) Text {
	return Text(fmt.Sprintf("The passage range %s ends before it starts.", r))
}

// NoVerseIn: a passage of another numbering of which this Bible has no
// verse.
func NoVerseIn(r bible.Ref, scheme string) Text {
	return Text(fmt.Sprintf("This Bible has no verse of %s in the %s numbering.", r, scheme))
}

// NoneHas: a parallel passage of which no Bible asked for has a verse.
func NoneHas(r bible.Ref, scheme string) Text {
	return Text(fmt.Sprintf("None of the Bibles has a verse of %s in the %s numbering.", r, scheme))
}

// SeveralVerses: the verse route asked for a verse of another numbering
// that is several verses here.
func SeveralVerses(r bible.Ref, scheme, ids string) Text {
	return Text(fmt.Sprintf("%s of the %s numbering is %s of this Bible, more than one verse: ask for the passage %s.", r, scheme, ids, ids))
}

// ListTooLong: a passage list of more pieces than any passage holds.
func ListTooLong(max int, loc ...string) Detail {
	return Detail{loc, Text("A list holds at most " + strconv.Itoa(max) + " passages"), "value_error"}
}

// NoIntroHere: an introduction where verses are needed (a list, a
// parallel passage).
func NoIntroHere(loc ...string) Detail {
	return Detail{loc, "Verses, chapters or ranges only, not an introduction", "value_error"}
}

// CitationUnread: the part of a citation that could not be read, and why.
func CitationUnread(part, reason string, loc ...string) Detail {
	return Detail{loc, Text(fmt.Sprintf("Cannot read %q: %s", part, reason)), "value_error"}
}

// MeantPassage: a passage route given a citation instead of a passage id.
func MeantPassage(pid, reference, ids string) Text {
	return Text(fmt.Sprintf("Passage not found: %q is not a passage id; the passage id of %s is %s.", pid, reference, ids))
}

// NamedTwice: a list parameter naming one Bible twice.
func NamedTwice(id int32, loc ...string) Detail {
	return Detail{loc, Text("Bible " + strconv.Itoa(int(id)) + " is named twice"), "value_error"}
}

// InBible: what went wrong with one Bible of several.
func InBible(id int32, t Text) Text { return Text("Bible "+strconv.Itoa(int(id))+": ") + t }
