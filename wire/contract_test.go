package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/wire/problem"
)

// The byte builders must write what encoding/json writes for the same
// values: clients saw marshalled bodies before, and see the same bytes now.
func marshalled(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var jsonStrings = []string{
	"", "Not found.", `say "hi" \ there`, "a<b>&c", "tab\tnew\nline\rcr", "\x00\x1f\x7f",
	"Jésus pleura.", "line\u2028para\u2029", "bad \xff utf-8 \xe2\x82", "emoji 😀", "Unknown field \"x\"; fields[] names top-level fields",
}

func checkMessage(t testing.TB, s string) {
	got := string(AppendMessage(nil, problem.Text(s)))
	want := marshalled(t, struct {
		Message string `json:"message"`
	}{s})
	if got != want {
		t.Errorf("AppendMessage(%q) = %s, want %s", s, got, want)
	}
}

func TestAppendMessage(t *testing.T) {
	for _, s := range jsonStrings {
		checkMessage(t, s)
	}
}

func TestAppendValidation(t *testing.T) {
	for _, ds := range [][]problem.Detail{
		{{Loc: []string{"query", "page_size"}, Msg: "Input should be from 1 to 99", Type: "less_than_equal"}},
		{{Loc: []string{"body", "highlights", "0", "passage_id"}, Msg: `a "quoted" <msg>`, Type: "value_error"},
			{Loc: []string{"query", "bible_id"}, Msg: "Field required", Type: "missing"}},
		{},
	} {
		got := string(AppendValidation(nil, ds...))
		want := marshalled(t, struct {
			Detail []problem.Detail `json:"detail"`
		}{ds})
		if got != want {
			t.Errorf("AppendValidation(%v) = %s, want %s", ds, got, want)
		}
	}
}

func TestAppendFault(t *testing.T) {
	for _, f := range []Fault{FaultMissingKey, FaultInvalidKey, FaultInvalidEdgeToken} {
		got := string(AppendFault(nil, f))
		want := `{"fault":{"faultstring":` + marshalled(t, f.String) + `,"detail":{"errorcode":` + marshalled(t, f.Code) + `}}}`
		if got != want {
			t.Errorf("AppendFault(%v) = %s, want %s", f, got, want)
		}
		var back struct {
			Fault struct {
				Faultstring string `json:"faultstring"`
				Detail      struct {
					Errorcode string `json:"errorcode"`
				} `json:"detail"`
			} `json:"fault"`
		}
		if err := json.Unmarshal([]byte(got), &back); err != nil || back.Fault.Faultstring != f.String || back.Fault.Detail.Errorcode != f.Code {
			t.Errorf("AppendFault(%v) does not read back: %s (%v)", f, got, err)
		}
	}
}

func TestBuildersDoNotAllocateIntoRoom(t *testing.T) {
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() {
		b := AppendMessage(buf[:0], "Not found.")
		b = AppendFault(b, FaultInvalidKey)
		AppendValidation(b, problem.Detail{Loc: []string{"query", "x"}, Msg: "m", Type: "t"})
	}); n != 0 {
		t.Errorf("%v allocations with room in dst, want 0", n)
	}
}

func TestEdgeTokenOK(t *testing.T) {
	for _, c := range []struct {
		got, want string
		ok        bool
	}{
		{"s3cret", "s3cret", true},
		{"s3cret", "", false},
		{"", "", false},
		{"S3cret", "s3cret", false},
		{"s3cre", "s3cret", false},
	} {
		if EdgeTokenOK([]byte(c.got), c.want) != c.ok {
			t.Errorf("EdgeTokenOK(%q, %q) = %v", c.got, c.want, !c.ok)
		}
	}
}

func FuzzAppendMessage(f *testing.F) {
	for _, s := range jsonStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkMessage(t, s) })
}

func TestAmbiguousFraming(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want bool
	}{
		{"both", "POST /v1/highlights HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"both, other order and case", "POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\nCONTENT-LENGTH: 5\r\n\r\n", true},
		{"bare LF line ends", "POST / HTTP/1.1\nContent-Length: 5\nTransfer-Encoding: chunked\n\n", true},
		{"length only", "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", false},
		{"chunked only", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", false},
		{"names in values", "POST / HTTP/1.1\r\nX-A: Content-Length\r\nX-B: Transfer-Encoding: chunked\r\n\r\n", false},
		{"longer names", "POST / HTTP/1.1\r\nContent-Length-X: 5\r\nX-Transfer-Encoding: chunked\r\n\r\n", false},
		{"empty", "", false},
	}
	for _, tc := range cases {
		if got := AmbiguousFraming([]byte(tc.raw)); got != tc.want {
			t.Errorf("%s: AmbiguousFraming = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzAmbiguousFraming checks AmbiguousFraming against a reading of the
// block by net/textproto's rules for a header line: a name is what stands
// before the first colon.
func FuzzAmbiguousFraming(f *testing.F) {
	f.Add([]byte("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"))
	f.Add([]byte("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
	f.Add([]byte("Content-Length:\nTransfer-encoding:"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var cl, te bool
		for _, line := range strings.Split(string(raw), "\n") {
			name, _, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			cl = cl || strings.EqualFold(name, "content-length")
			te = te || strings.EqualFold(name, "transfer-encoding")
		}
		if got := AmbiguousFraming(raw); got != (cl && te) {
			t.Errorf("AmbiguousFraming(%q) = %v, want %v", raw, got, cl && te)
		}
	})
}
