package content

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// segmentVerses are a chapter's verses as the build writes them, with what
// its JSON escapes: quotes in attributes, a backslash, a tab, a line
// separator (which encoding/json writes as \u2028), an emoji, a verse
// without segments (null) and one with none (empty).
var segmentVerses = [][]bible.Segment{
	{
		{Para: 1, Class: "s1 yv-h", Heading: true, HTML: "The New Birth", Notes: "The New Birth", Text: "The New Birth"},
		{Para: 2, Class: "p", HTML: `<span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>There was a man `, Notes: `<span class="yv-v" v="1"></span>There was a man<span class="yv-n f"><span class="ft">Or "ruler"</span></span> `, Text: "There was a man "},
	},
	{{Para: 2, Class: "p", HTML: "named\tNicodemus \\ a ruler\u2028of the Jews. ", Notes: "named Nicodemus. ", Text: "named Nicodemus. "}},
	nil,
	{},
	{{Para: -3, Class: "q1", HTML: "Dios amó al mundo 😀 ", Notes: "", Text: "Dios amó al mundo 😀 "}, {Para: 0, Class: "b"}},
}

// segmentsJSON is verses as the build's encoding/json writes them.
func segmentsJSON(t testing.TB, verses [][]bible.Segment) []byte {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(verses); err != nil {
		t.Fatal(err)
	}
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}

// flatten is verses from to to of verses, their segments in one list.
func flatten(verses [][]bible.Segment, from, to int) []bible.Segment {
	var out []bible.Segment
	for _, v := range verses[from : to+1] {
		out = append(out, v...)
	}
	return out
}

// Every span of verses of an entry in the build's form is read by the
// scanner itself, and gives what encoding/json gives; so does the same
// entry indented.
func TestAppendSegments(t *testing.T) {
	compact := segmentsJSON(t, segmentVerses)
	indented, err := json.MarshalIndent(segmentVerses, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{{"compact", compact}, {"indented", indented}} {
		for from := range segmentVerses {
			for to := from; to < len(segmentVerses); to++ {
				sc := segmentScanner{data: tc.data}
				got, ends, n, ok := sc.appendVerses(nil, nil, from, to)
				if !ok {
					t.Fatalf("%s: verses %d-%d left to encoding/json", tc.name, from, to)
				}
				if n != len(segmentVerses) {
					t.Errorf("%s: %d verses counted, want %d", tc.name, n, len(segmentVerses))
				}
				if want := flatten(segmentVerses, from, to); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
					t.Errorf("%s: verses %d-%d:\n got %+v\nwant %+v", tc.name, from, to, got, want)
				}
				for v := from; v <= to; v++ {
					if got, want := ends[v-from], len(flatten(segmentVerses, from, v)); got != want {
						t.Errorf("%s: verses %d-%d: verse %d ends at %d, want %d", tc.name, from, to, v, got, want)
					}
				}
			}
		}
	}
}

// What the scanner does not expect goes to encoding/json, which reads it
// (a key in another case, a field the build does not write, a float) or
// refuses it; either way appendSegments answers what encoding/json does.
func TestAppendSegmentsElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		scanned    bool // read by the scanner itself
		wantErr    bool
	}{
		{"key in lower case", `[[{"para":1,"text":"a"}],[]]`, false, false},
		{"unknown field", `[[{"Para":1,"Extra":[1,2],"Text":"a"}],[]]`, false, false},
		{"key given twice", `[[{"Text":"a","Text":"b"}],[]]`, true, false},
		{"null string", `[[{"Text":null}],[]]`, false, false},
		{"lone surrogate", `[[{"Text":"\ud800x"}],[]]`, false, false},
		{"surrogate pair", `[[{"Text":"\ud83d\ude00"}],[]]`, true, false},
		{"invalid UTF-8", "[[{\"Text\":\"\xff\"}],[]]", false, false},
		{"float para", `[[{"Para":1.5}],[]]`, false, true},
		{"leading zero", `[[{"Para":01}],[]]`, false, true},
		{"control character", "[[{\"Text\":\"a\x01\"}],[]]", false, true},
		{"trailing garbage", `[[{"Text":"a"}],[]]x`, false, true},
		{"object for a verse", `[{"Text":"a"},[]]`, false, true},
		{"not JSON", `nope`, false, true},
	} {
		var want [][]bible.Segment
		jsonErr := json.Unmarshal([]byte(tc.data), &want)
		if (jsonErr != nil) != tc.wantErr {
			t.Fatalf("%s: encoding/json: %v", tc.name, jsonErr)
		}
		sc := segmentScanner{data: []byte(tc.data)}
		if _, _, _, ok := sc.appendVerses(nil, nil, 0, 0); ok != tc.scanned {
			t.Errorf("%s: scanned %t, want %t", tc.name, ok, tc.scanned)
		}
		got, _, n, err := appendSegments(nil, nil, []byte(tc.data), 0, 0)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: error %v, want one: %t", tc.name, err, tc.wantErr)
		}
		if err == nil && (n != len(want) || !reflect.DeepEqual(got, want[0])) {
			t.Errorf("%s: %d verses, %+v; want %d, %+v", tc.name, n, got, len(want), want[0])
		}
	}
}

// Decoding only the verses asked for takes a fraction of encoding/json's
// time for the whole chapter, which is what a composed range did.
func BenchmarkAppendSegments(b *testing.B) {
	var verses [][]bible.Segment
	for range 8 {
		verses = append(verses, segmentVerses...)
	}
	data := segmentsJSON(b, verses)
	b.Run("scanner, 3 verses", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var dst []bible.Segment
		for b.Loop() {
			dst, _, _, _ = appendSegments(dst[:0], nil, data, 10, 12)
		}
	})
	b.Run("scanner, every verse", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var dst []bible.Segment
		for b.Loop() {
			dst, _, _, _ = appendSegments(dst[:0], nil, data, 0, len(verses)-1)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v [][]bible.Segment
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The scanner and encoding/json agree on every entry encoding/json reads;
// on one it refuses, the scanner may still read the verses asked for (it
// checks only the brackets of the verses it skips) but must not fail
// otherwise than by error.
func FuzzAppendSegments(f *testing.F) {
	f.Add(segmentsJSON(f, segmentVerses), 0, 2)
	f.Add(segmentsJSON(f, segmentVerses), 4, 4)
	f.Add([]byte(`[[{"Para":1,"Class":"p","Heading":false,"HTML":"a\"b","Notes":"\u00e9","Text":"x\\y"}],null,[]]`), 1, 2)
	f.Add([]byte(`[ [ { "Para" : -0 , "Text" : "\ud83d\ude00" } ] ]`), 0, 0)
	f.Fuzz(func(t *testing.T, data []byte, from, to int) {
		got, ends, n, err := appendSegments(nil, nil, data, from, to)
		var want [][]bible.Segment
		if json.Unmarshal(data, &want) != nil {
			return
		}
		if err != nil {
			t.Fatalf("refused what encoding/json reads: %v", err)
		}
		if n != len(want) {
			t.Fatalf("%d verses, encoding/json %d", n, len(want))
		}
		if from < 0 || to >= len(want) || from > to {
			return
		}
		if w := flatten(want, from, to); !reflect.DeepEqual(got, w) && len(got)+len(w) > 0 {
			t.Fatalf("verses %d-%d:\n got %+v\nwant %+v", from, to, got, w)
		}
		if len(ends) != to-from+1 || ends[len(ends)-1] != len(got) {
			t.Fatalf("ends %v for %d verses and %d segments", ends, to-from+1, len(got))
		}
	})
}
