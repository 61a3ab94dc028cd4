// Package topic holds the search aids of a language that are not one
// Bible's: the topical list the content team writes (topics/<language>.jsonl
// in the content directory), and the suggestion vocabulary a build derives
// from the language's topics, book names and Bible text. It parses and
// checks the topics file, folds text for matching, and answers topic
// searches and as-you-type suggestions from memory. See docs/search.md.
package topic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bibleplatform/platform/bible"
)

// Topic is one entry of a language's topical list.
type Topic struct {
	// ID is the topic's number, stable across edits so that apps can keep
	// it; nil when the content team gives none.
	ID        *int64   `json:"id"`
	Text      string   `json:"text"`
	Subtopics []string `json:"subtopics"`
	// Passages are the passage ids the topic points at (JHN.3.16,
	// 1CO.13.4-7, PSA.23), in the order the content team lists them.
	Passages []string `json:"passages"`
}

// Limits of the topics file. A topic's text is what a client searches for
// and shows, so it has the query's length limit.
const (
	MaxTextRunes = 100
	MaxSubtopics = 50
	MaxPassages  = 500
	// MaxLineBytes bounds one line of the file; a topic at every limit
	// above is well under it.
	MaxLineBytes = 1 << 20
)

// Error is a problem on one line of a topics file; the line's topic is
// left out and the rest of the file is read.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// Parse reads a topics file: JSON Lines, one topic object a line, blank
// lines ignored (one topic per line keeps a review's diff to the topics
// that changed). A line that is not a valid topic is reported with its
// file:line:col and left out; two topics with the same id or the same
// text are an error on the second.
func Parse(file string, data []byte) ([]Topic, []error) {
	var out []Topic
	var errs []error
	ids := map[int64]int{}
	texts := map[string]int{}
	line := 0
	for rest := data; len(rest) > 0; {
		line++
		raw, after, _ := bytes.Cut(rest, []byte("\n"))
		rest = after
		raw = bytes.TrimSuffix(raw, []byte("\r"))
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		fail := func(col int, format string, args ...any) {
			errs = append(errs, &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
		}
		if len(raw) > MaxLineBytes {
			// This line only: the topics after it are read as usual.
			fail(MaxLineBytes+1, "the line is longer than %d bytes, the cap on one topic", MaxLineBytes)
			continue
		}
		if !utf8.Valid(raw) {
			fail(1, "not UTF-8")
			continue
		}
		var t Topic
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			fail(jsonCol(err, raw), "%s", jsonMsg(err))
			continue
		}
		if dec.More() {
			fail(int(dec.InputOffset())+1, "one topic per line: more follows the object")
			continue
		}
		if msg := t.check(); msg != "" {
			fail(1, "%s", msg)
			continue
		}
		if t.ID != nil {
			if first, ok := ids[*t.ID]; ok {
				fail(1, "id %d is already the topic of line %d", *t.ID, first)
				continue
			}
			ids[*t.ID] = line
		}
		key := Fold(t.Text)
		if first, ok := texts[key]; ok {
			fail(1, "topic %q is already on line %d", t.Text, first)
			continue
		}
		texts[key] = line
		if t.Subtopics == nil {
			t.Subtopics = []string{}
		}
		if t.Passages == nil {
			t.Passages = []string{}
		}
		out = append(out, t)
	}
	return out, errs
}

// check returns what is wrong with t, or "".
func (t *Topic) check() string {
	if t.ID != nil && *t.ID < 0 {
		return fmt.Sprintf("id %d is negative", *t.ID)
	}
	if msg := checkText("text", t.Text); msg != "" {
		return msg
	}
	if len(t.Subtopics) > MaxSubtopics {
		return fmt.Sprintf("%d subtopics; at most %d", len(t.Subtopics), MaxSubtopics)
	}
	for _, s := range t.Subtopics {
		if msg := checkText("subtopic", s); msg != "" {
			return msg
		}
	}
	if len(t.Passages) > MaxPassages {
		return fmt.Sprintf("%d passages; at most %d", len(t.Passages), MaxPassages)
	}
	for i, p := range t.Passages {
		r, err := bible.ParseRef(p)
		if err != nil {
			return fmt.Sprintf("passage %d: %v", i+1, err)
		}
		t.Passages[i] = r.String()
	}
	return ""
}

func checkText(what, s string) string {
	n := utf8.RuneCountInString(s)
	switch {
	case strings.TrimSpace(s) == "":
		return what + " is empty"
	case n > MaxTextRunes:
		return fmt.Sprintf("%s %q has %d characters; at most %d", what, s, n, MaxTextRunes)
	case Fold(s) == "":
		return fmt.Sprintf("%s %q has no letter or digit to search for", what, s)
	}
	return ""
}

// jsonCol is the 1-based column of a decoding error on one line.
func jsonCol(err error, line []byte) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return int(se.Offset)
	case errors.As(err, &te):
		return int(te.Offset)
	}
	return 1
}

func jsonMsg(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s: %s where %s belongs", te.Field, te.Value, te.Type)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
