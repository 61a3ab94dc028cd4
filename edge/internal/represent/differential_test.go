package represent

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// exchange is the part of an answer both implementations must agree on.
type exchange struct {
	status       int
	contentRange string
	body         []byte
	parts        []string // multipart/byteranges: "Content-Range|data" per part
}

func (x exchange) String() string {
	return strings.Join([]string{http.StatusText(x.status), x.contentRange, string(x.body), strings.Join(x.parts, ";")}, " ")
}

func diffResource(body []byte, etag string, mod time.Time) *Resource {
	r := new(Resource)
	r.Reps[CodingIdentity].Set(body, etag, SharedHead("application/json; charset=utf-8", mod))
	return r
}

func ours(t testing.TB, res *Resource, headers map[string]string) exchange {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.SetRequestURI("/x")
	for k, v := range headers {
		ctx.Request.Header.Set(k, v)
	}
	Serve(&ctx, res, false)
	return collect(t, ctx.Response.StatusCode(), string(ctx.Response.Header.Peek("Content-Range")),
		string(ctx.Response.Header.ContentType()), ctx.Response.Body())
}

func theirs(t testing.TB, res *Resource, headers map[string]string) exchange {
	r := &res.Reps[CodingIdentity]
	req := httptest.NewRequest("GET", "/x", nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	w.Header().Set("Etag", string(r.ETag()))
	w.Header().Set("Content-Type", string(r.head.ctype))
	http.ServeContent(w, req, "", r.head.modified(), bytes.NewReader(r.body))
	return collect(t, w.Code, w.Header().Get("Content-Range"), w.Header().Get("Content-Type"), w.Body.Bytes())
}

func collect(t testing.TB, status int, crange, ctype string, body []byte) exchange {
	x := exchange{status: status, contentRange: crange}
	switch status {
	case 304, 412:
		return x // no content to compare
	case 416:
		x.contentRange = "" // net/http names the size only when no range overlaps
		return x
	}
	mt, params, _ := mime.ParseMediaType(ctype)
	if status == 206 && mt == "multipart/byteranges" {
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("multipart: %v", err)
			}
			data, _ := io.ReadAll(p)
			x.parts = append(x.parts, p.Header.Get("Content-Range")+"|"+p.Header.Get("Content-Type")+"|"+string(data))
		}
		return x
	}
	x.body = append([]byte(nil), body...)
	return x
}

// TestDifferentialServeContent runs conditional and range requests against
// our Serve and net/http's ServeContent over the same bytes, ETag
// and modification time, and requires the same answers.
func TestDifferentialServeContent(t *testing.T) {
	mod := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	const etag = `"abc123"`
	res := diffResource([]byte(`{"id":"JHN.3.16","content":"For God so loved the world","reference":"John 3:16"}`), etag, mod)
	before, at, after := "Tue, 30 Apr 2024 12:00:00 GMT", "Wed, 01 May 2024 12:00:00 GMT", "Thu, 02 May 2024 12:00:00 GMT"
	conds := []map[string]string{
		{},
		{"If-None-Match": etag}, {"If-None-Match": `W/` + etag}, {"If-None-Match": `"x", ` + etag}, {"If-None-Match": `"x"`},
		{"If-None-Match": "*"}, {"If-None-Match": "garbage"},
		{"If-Modified-Since": before}, {"If-Modified-Since": at}, {"If-Modified-Since": after}, {"If-Modified-Since": "not a date"},
		{"If-None-Match": `"x"`, "If-Modified-Since": after},
		{"If-Match": etag}, {"If-Match": `"x"`}, {"If-Match": "*"}, {"If-Match": `W/` + etag},
		{"If-Unmodified-Since": before}, {"If-Unmodified-Since": after},
		{"If-Match": etag, "If-Unmodified-Since": before},
	}
	ranges := []string{"", "bytes=0-0", "bytes=0-9", "bytes=5-", "bytes=-10", "bytes=-1000", "bytes=70-1000",
		"bytes=1000-", "bytes=0-1,4-5", "bytes=0-1, 4-5 ,9-", "bytes=5-1", "bytes=abc", "bytes=", "bytes=0-,0-",
		"bytes=1-2,1000-2000", "bytes=-0,0-1"}
	ifRanges := []string{"", etag, `"x"`, `W/` + etag, at, before}
	n := 0
	for _, c := range conds {
		for _, r := range ranges {
			for _, ir := range ifRanges {
				h := map[string]string{}
				for k, v := range c {
					h[k] = v
				}
				if r != "" {
					h["Range"] = r
				}
				if ir != "" {
					h["If-Range"] = ir
				}
				if strings.Contains(r, "-0,") {
					// "-0" is unsatisfiable (RFC 9110 §14.1.2); net/http
					// serves it as an empty range. Ours is checked below.
					continue
				}
				got, want := ours(t, res, h), theirs(t, res, h)
				if got.String() != want.String() {
					t.Errorf("%v:\n got  %v\n want %v", h, got, want)
				}
				n++
			}
		}
	}
	if got := ours(t, res, map[string]string{"Range": "bytes=-0"}); got.status != 416 {
		t.Errorf("bytes=-0: %d, want 416", got.status)
	}
	t.Logf("%d request shapes agree", n)
}

// zeroSuffix matches a suffix range of length zero, where we deliberately
// differ from net/http (see TestDifferentialServeContent).
var zeroSuffix = regexp.MustCompile(`(^bytes=|,)[ \t]*-[ \t]*0+[ \t]*(,|$)`)

// FuzzRange compares Range handling with net/http's ServeContent on
// arbitrary headers, within the grammar both accept, and checks our own
// invariants everywhere.
func FuzzRange(f *testing.F) {
	for _, s := range []string{"bytes=0-9", "bytes=-5", "bytes=5-", "bytes=0-1,3-4", "bytes=9-1", "bytes=a-b", "bytes= 1 - 2 , 4-"} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, h string, size int) {
		if size < 0 || size > 4096 {
			return
		}
		body := bytes.Repeat([]byte("x"), size)
		ranges, err := parseRange([]byte(h), int64(size))
		if err == nil {
			for _, r := range ranges {
				if r.start < 0 || r.length <= 0 || r.start+r.length > int64(size) {
					t.Fatalf("%q over %d bytes: bad range %+v", h, size, r)
				}
			}
		}
		if !strings.HasPrefix(h, "bytes=") || strings.ContainsAny(h, "\r\n\x00+") ||
			strings.Count(h, ",") >= maxRanges || zeroSuffix.MatchString(h) || !validHeaderValue(h) {
			return // outside the shared grammar: unit case, signs, header syntax
		}
		res := diffResource(body, `"t"`, time.Unix(1700000000, 0))
		hd := map[string]string{"Range": h}
		got, want := ours(t, res, hd), theirs(t, res, hd)
		if got.String() != want.String() {
			t.Fatalf("Range %q over %d bytes:\n got  %v\n want %v", h, size, got, want)
		}
	})
}

func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return strings.TrimSpace(s) == s
}
