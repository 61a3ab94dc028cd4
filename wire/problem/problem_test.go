package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// Every kind has a status and reads as a sentence; the zero kind is a
// 500, so that a forgotten kind never reads as a success.
func TestKinds(t *testing.T) {
	for k := Kind(0); k < kinds; k++ {
		if s := k.Status(); s < 400 || s > 599 {
			t.Errorf("kind %d: status %d", k, s)
		}
		if txt := k.Text(); txt == "" || !strings.HasSuffix(string(txt), ".") {
			t.Errorf("kind %d: text %q", k, txt)
		}
	}
	var zero Kind
	if zero.Status() != http.StatusInternalServerError {
		t.Errorf("zero kind: %d", zero.Status())
	}
	if Overloaded.RetryAfter() != "1" || NotFound.RetryAfter() != "" {
		t.Errorf("RetryAfter: %q %q", Overloaded.RetryAfter(), NotFound.RetryAfter())
	}
}

func TestProblem(t *testing.T) {
	cause := errors.New("pgx: no rows")
	p := &Problem{Kind: NotFound, Text: BibleNotFound(7), Cause: cause}
	wrapped := fmt.Errorf("handler: %w", p)
	var got *Problem
	if !errors.As(wrapped, &got) || got.Text != "Bible 7 is not published." || !errors.Is(wrapped, cause) {
		t.Errorf("errors.As/Is through %v", wrapped)
	}
	if New(Forbidden, NotLicensed(3)).Error() != "This app is not licensed for Bible 3." {
		t.Errorf("Error() = %q", New(Forbidden, NotLicensed(3)).Error())
	}
}

// The same span error reads the same from the edge and dynamic, in the
// words of the bible error.
func TestPassage(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind Kind
		text Text
		ok   bool
	}{
		{&bible.MissingError{Book: "JHN", Chapter: "99"}, NotFound, "Chapter JHN.99 is not in this Bible.", true},
		{fmt.Errorf("span: %w", &bible.MissingError{Book: "JHN", Chapter: "3", Verse: "99"}), NotFound, "Verse JHN.3.99 is not in this Bible.", true},
		{&bible.BackwardsError{Ref: bible.MustParseRef("JHN.3.18-16")}, Unacceptable, "The passage range JHN.3.18-16 ends before it starts.", true},
		{bible.ErrIntro, 0, "", false},
		{nil, 0, "", false},
	} {
		p, ok := Passage(c.err)
		if ok != c.ok || ok && (p.Kind != c.kind || p.Text != c.text) {
			t.Errorf("Passage(%v) = %+v, %v; want %v %q %v", c.err, p, ok, c.kind, c.text, c.ok)
		}
	}
	if got, want := BookNotFound("REV"), Text("Book REV is not in this Bible."); got != want {
		t.Errorf("BookNotFound = %q, want %q", got, want)
	}
}

func TestDetails(t *testing.T) {
	for _, c := range []struct {
		got  Detail
		want string
	}{
		{Missing("query", "bible_id"), `{"loc":["query","bible_id"],"msg":"Field required","type":"missing"}`},
		{OneOf([]string{"text", "html"}, "query", "format"), `{"loc":["query","format"],"msg":"Input should be 'text' or 'html'","type":"enum"}`},
		{OneOf([]string{"reference", "text", "topical", "unknown"}, "query", "user_intent"), `{"loc":["query","user_intent"],"msg":"Input should be 'reference', 'text', 'topical' or 'unknown'","type":"enum"}`},
		{OneOf([]string{"highlights"}, "body", "requested_permissions", "0"), `{"loc":["body","requested_permissions","0"],"msg":"Input should be 'highlights'","type":"enum"}`},
		{Between(1, 99, "query", "page_size"), `{"loc":["query","page_size"],"msg":"Input should be from 1 to 99","type":"less_than_equal"}`},
		{TooShort(1, "query", "query"), `{"loc":["query","query"],"msg":"String should have at least 1 character","type":"string_too_short"}`},
		{TooLong(100, "query", "query"), `{"loc":["query","query"],"msg":"String should have at most 100 characters","type":"string_too_long"}`},
		{ChapterOrVerseID("path", "verse_id"), `{"loc":["path","verse_id"],"msg":"String should have 1 to 7 letters, digits or '_'","type":"string_pattern_mismatch"}`},
		{Pattern("^[0-9a-f]{6}$", "body", "highlight", "color"), `{"loc":["body","highlight","color"],"msg":"String should match pattern '^[0-9a-f]{6}$'","type":"string_pattern_mismatch"}`},
		{TooManyItems(20, "query", "language_ranges[]"), `{"loc":["query","language_ranges[]"],"msg":"List should have at most 20 items","type":"too_long"}`},
	} {
		b, _ := json.Marshal(c.got)
		// encoding/json escapes HTML characters; compare what a client decodes.
		var got, want any
		json.Unmarshal(b, &got)
		json.Unmarshal([]byte(c.want), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %s, want %s", b, c.want)
		}
	}
}

func TestJSONBody(t *testing.T) {
	var v struct {
		Highlight struct {
			BibleID int32 `json:"bible_id"`
		} `json:"highlight"`
	}
	for _, c := range []struct {
		body string
		want Detail
	}{
		{`{"highlight":{"bible_id":"9001"}}`, Detail{[]string{"body", "highlight", "bible_id"}, "Input should be a valid integer", "type_error"}},
		{``, Detail{[]string{"body"}, "Field required", "missing"}},
		{`{"highlight":`, Detail{[]string{"body"}, "JSON decode error", "json_invalid"}},
	} {
		err := json.NewDecoder(strings.NewReader(c.body)).Decode(&v)
		if c.body == "" && !errors.Is(err, io.EOF) {
			t.Fatalf("empty body: %v", err)
		}
		if got := JSONBody(err); !reflect.DeepEqual(got, c.want) {
			t.Errorf("JSONBody(%q) = %+v, want %+v", c.body, got, c.want)
		}
	}
}
