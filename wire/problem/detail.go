package problem

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/bible"
)

// Detail is one entry of a 422 body (DESIGN.md): where the bad input is
// (for example ["query", "page_size"]), a message for humans and the
// error's type. The constructors below are the validation rules both
// services state; a handler names the rule and the place, never the words.
type Detail struct {
	Loc  []string `json:"loc"`
	Msg  Text     `json:"msg"`
	Type string   `json:"type"`
}

// Missing: a required parameter or field is absent.
func Missing(loc ...string) Detail { return Detail{loc, "Field required", "missing"} }

// NotInt32: not a 32-bit integer (Bible, font and licence ids).
func NotInt32(loc ...string) Detail {
	return Detail{loc, "Input should be a valid 32-bit integer", "int_parsing"}
}

// NotPositiveInt32: not a positive 32-bit integer (search's bible_id).
func NotPositiveInt32(loc ...string) Detail {
	return Detail{loc, "Input should be a positive 32-bit integer", "int_parsing"}
}

// NotInt: not an integer at all.
func NotInt(loc ...string) Detail {
	return Detail{loc, "Input should be a valid integer", "int_parsing"}
}

// NotBool: not true or false.
func NotBool(loc ...string) Detail {
	return Detail{loc, "Input should be a valid boolean", "bool_parsing"}
}

// NotUUID: not a UUID in its canonical text form (bible.ValidUUID).
func NotUUID(loc ...string) Detail {
	return Detail{loc, "Input should be a valid UUID", "uuid_parsing"}
}

// NotUTF8: a string that is not valid UTF-8.
func NotUTF8(loc ...string) Detail { return Detail{loc, "Input should be valid UTF-8", "string_type"} }

// OneOf: a value outside its enumeration, which the text lists in order.
func OneOf(values []string, loc ...string) Detail {
	return Detail{loc, Text("Input should be " + quotedList(values)), "enum"}
}

// UnknownField: fields[] names a field the resource does not have.
func UnknownField(field string, loc ...string) Detail {
	return Detail{loc, Text("Unknown field " + strconv.Quote(field) + "; fields[] names top-level fields of the resource"), "enum"}
}

// UnknownVerseField: verse search's fields[] names a field other than text.
func UnknownVerseField(field string, loc ...string) Detail {
	return Detail{loc, Text("Unknown field " + strconv.Quote(field) + "; verse search adds only 'text'"), "enum"}
}

// Between: a number outside lo…hi (page sizes).
func Between(lo, hi int, loc ...string) Detail { return Detail{loc, fromTo(lo, hi), "less_than_equal"} }

// OutOfRange: a number outside lo…hi, either side.
func OutOfRange(lo, hi int64, loc ...string) Detail {
	return Detail{loc, Text("Input should be from " + strconv.FormatInt(lo, 10) + " to " + strconv.FormatInt(hi, 10)), "value_error"}
}

func fromTo(lo, hi int) Text {
	return Text("Input should be from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi))
}

// PageSize: catalogue page_size is neither an integer from lo to hi nor
// "*" (which needs fields[]).
func PageSize(lo, hi int, loc ...string) Detail {
	return Detail{loc, Text("Input should be an integer from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + ", or * with fields[]"), "int_parsing"}
}

// PageSizeAllNeedsFields: page_size=* without fields[] naming one to three
// fields.
func PageSizeAllNeedsFields(loc ...string) Detail {
	return Detail{loc, "page_size * needs fields[] naming one to three fields", "value_error"}
}

// TooManyItems: a list longer than max.
func TooManyItems(max int, loc ...string) Detail {
	return Detail{loc, Text("List should have at most " + strconv.Itoa(max) + " items"), "too_long"}
}

// NoItems: a list that must not be empty is.
func NoItems(loc ...string) Detail {
	return Detail{loc, "List should have at least 1 item after validation, not 0", "too_short"}
}

// Length: a string that must have exactly n characters.
func Length(n int, loc ...string) Detail {
	return Detail{loc, Text("String should have exactly " + strconv.Itoa(n) + " characters"), "string_length"}
}

// LengthBetween: a string shorter than lo or longer than hi.
func LengthBetween(lo, hi int, loc ...string) Detail {
	return Detail{loc, Text("String should have " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + " characters"), "string_length"}
}

// TooShort and TooLong: a string under or over its bound, said alone.
func TooShort(min int, loc ...string) Detail {
	return Detail{loc, Text("String should have at least " + strconv.Itoa(min) + " " + plural(min, "character")), "string_too_short"}
}

func TooLong(max int, loc ...string) Detail {
	return Detail{loc, Text("String should have at most " + strconv.Itoa(max) + " " + plural(max, "character")), "string_too_long"}
}

// Pattern: a string that does not match the regular expression re.
func Pattern(re string, loc ...string) Detail {
	return Detail{loc, Text("String should match pattern '" + re + "'"), "string_pattern_mismatch"}
}

// DateWithin: not a date (YYYY-MM-DD) within days of today.
func DateWithin(days int, loc ...string) Detail {
	return Detail{loc, Text("Input should be a date (YYYY-MM-DD) within " + strconv.Itoa(days) + " days of today"), "date_parsing"}
}

// ChapterOrVerseID: a chapter or verse id outside the spec's grammar
// (bible.MaxIDLen letters, digits or '_').
func ChapterOrVerseID(loc ...string) Detail {
	return Detail{loc, Text("String should have 1 to " + strconv.Itoa(bible.MaxIDLen) + " letters, digits or '_'"), "string_pattern_mismatch"}
}

// LanguageTag: a language that is not a tag (letters, digits, hyphens).
func LanguageTag(loc ...string) Detail {
	return Detail{loc, "String should be a language tag", "string_pattern_mismatch"}
}

// Country: not an ISO 3166 two-letter country code.
func Country(loc ...string) Detail {
	return Detail{loc, "Input should be an ISO 3166 two-letter country code", "string_pattern_mismatch"}
}

// Phrase: a trending phrase that is empty or not in its normal form.
func Phrase(loc ...string) Detail {
	return Detail{loc, "String should be a non-empty normalised phrase", "value_error"}
}

// PassageID: a passage id bible.ParseRef refused, in the parser's own
// words (which quote the id and name the rule it breaks).
func PassageID(err *bible.ParseError, loc ...string) Detail {
	return Detail{loc, Text(err.Message()), "value_error"}
}

// RequestIDReused is the text of a highlight request id already used for a
// different highlight.
const RequestIDReused Text = "request_id was already used for a different highlight"

// RequestReused: see RequestIDReused.
func RequestReused(loc ...string) Detail { return Detail{loc, RequestIDReused, "value_error"} }

// JSONBody is the entry for a request body encoding/json could not
// decode: a value of the wrong JSON type names its field, an empty body is
// missing, anything else is not JSON. Only the error's kind and field are
// read: its text never reaches the client.
func JSONBody(err error) Detail {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		loc := []string{"body"}
		if te.Field != "" {
			loc = append(loc, strings.Split(te.Field, ".")...)
		}
		return Detail{loc, Text("Input should be a valid " + jsonKind(te.Type)), "type_error"}
	}
	if errors.Is(err, io.EOF) {
		return Missing("body")
	}
	return Detail{[]string{"body"}, "JSON decode error", "json_invalid"}
}

func quotedList(values []string) string {
	var b strings.Builder
	for i, v := range values {
		switch {
		case i == 0:
		case i == len(values)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString("'" + v + "'")
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// jsonKind names t as JSON does.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return "value"
}
