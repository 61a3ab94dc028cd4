package build

import (
	"encoding/json"
	"maps"
	"testing"
)

func TestDecodeWords(t *testing.T) {
	tests := []struct {
		name string
		body string
		want map[string]int
		fast bool // read without encoding/json
	}{
		{"empty", `{}`, map[string]int{}, true},
		{"as the build writes", string(mustJSON(map[string]int{"God": 4472, "love": 310, "ἀγάπη": 116, "אֱלֹהִים": 2602})),
			map[string]int{"God": 4472, "love": 310, "ἀγάπη": 116, "אֱלֹהִים": 2602}, true},
		{"an escaped word", string(mustJSON(map[string]int{"a<b": 1, `say"`: 2, "x": 3})), map[string]int{"a<b": 1, `say"`: 2, "x": 3}, false},
		{"spaces", `{ "a": 1 }`, map[string]int{"a": 1}, false},
		{"a negative count", `{"a":-1}`, map[string]int{"a": -1}, false},
		{"a duplicate: the last", `{"a":1,"a":2}`, map[string]int{"a": 2}, true},
	}
	for _, tt := range tests {
		_, fast := scanWords([]byte(tt.body))
		got, err := decodeWords([]byte(tt.body))
		if err != nil || !maps.Equal(got, tt.want) || fast != tt.fast {
			t.Errorf("%s: decodeWords(%s) = %v, %v (fast %v); want %v (fast %v)", tt.name, tt.body, got, err, fast, tt.want, tt.fast)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `{"a":1`, `{"a":1,}`, `{"a":01}`, `{"a":1}x`, `[1]`, `{"a":1e3}`} {
		if got, err := decodeWords([]byte(bad)); err == nil {
			t.Errorf("decodeWords(%q) = %v; want an error", bad, got)
		}
	}
}

// FuzzDecodeWords: whatever a part's words entry holds, decodeWords
// answers as encoding/json does.
func FuzzDecodeWords(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":22}`, `{"a\u003cb":1}`, `{"é":3}`, `{"a":01}`, `{"a":1,}`,
		`{"a":123456789012345678901}`, "{\"\xff\":1}", `{ "a" : 1 }`, `{"a":-0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		want := map[string]int{}
		werr := json.Unmarshal(body, &want)
		got, err := decodeWords(body)
		if (err == nil) != (werr == nil) || err == nil && !maps.Equal(got, want) {
			t.Errorf("decodeWords(%q) = %v, %v; encoding/json: %v, %v", body, got, err, want, werr)
		}
	})
}
