package represent

import (
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// FuzzAcceptEncoding checks that negotiation never picks a coding the
// client refused while an acceptable one exists, nor a worse one.
func FuzzAcceptEncoding(f *testing.F) {
	for _, s := range []string{"gzip, deflate, br", "gzip, deflate, br, zstd", "br, gzip", "gzip", "br;q=0.5, gzip;q=0.8", "*;q=0", "identity;q=0, *", "gzip;q=1.001",
		"BR;Q=0.9", " ,, br ;q= 0.2", "x-gzip", "*", "br;q=0"} {
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, h string, avail uint8) {
		avail = avail&3 | 1<<CodingIdentity // identity always exists
		a := parseAcceptEncoding([]byte(h), true)
		if list := parseAcceptEncodingList([]byte(h)); a != list {
			t.Fatalf("%q: parsed %v, as a list %v", h, a, list)
		}
		c := a.choose(func(c int) bool { return avail&(1<<c) != 0 })
		if avail&(1<<c) == 0 {
			t.Fatalf("%q: chose unavailable coding %d", h, c)
		}
		for o := 0; o < NumCodings; o++ {
			if avail&(1<<o) != 0 && a.q[o] > a.q[c] {
				t.Fatalf("%q: chose %s (q %d) over %s (q %d)", h, CodingNames[c], a.q[c], CodingNames[o], a.q[o])
			}
		}
		for _, q := range a.q {
			if q < 0 || q > 1000 {
				t.Fatalf("%q: weight %d out of range", h, q)
			}
		}
	})
}

func TestAcceptEncoding(t *testing.T) {
	all := uint8(1<<CodingBrotli | 1<<CodingGzip | 1<<CodingIdentity)
	tests := []struct {
		h     string
		avail uint8
		want  string
	}{
		{"", all, ""},
		{"gzip, deflate, br", all, "br"},
		{"gzip, deflate, br", 1<<CodingGzip | 1<<CodingIdentity, "gzip"},
		{"br;q=0.5, gzip;q=0.8", all, "gzip"},
		{"br;q=0, gzip;q=0", all, ""},
		{"*", all, "br"},
		{"*;q=0.5, gzip", all, "gzip"},
		{"identity;q=0, gzip;q=0.1", all, "gzip"},
		{"identity", all, ""},
		{"deflate", all, ""},
		{"GZIP;Q=0.3", all, "gzip"},
		{"br;q=1.5", all, ""}, // malformed weight: not trusted
		{"gzip, deflate, br, zstd", all, "br"},
		{"br, gzip", 1<<CodingGzip | 1<<CodingIdentity, "gzip"},
		{"gzip", all, "gzip"},
		{"br", 1 << CodingIdentity, ""},
	}
	for _, tt := range tests {
		a := parseAcceptEncoding([]byte(tt.h), tt.h != "")
		if got := CodingNames[a.choose(func(c int) bool { return tt.avail&(1<<c) != 0 })]; got != tt.want {
			t.Errorf("%q: chose %q, want %q", tt.h, got, tt.want)
		}
	}
}

// A request that lists in If-None-Match the tag of a coding it accepts
// keeps that coding (304), whichever coding it would be given otherwise;
// one it does not accept, or one the resource lacks, does not count.
func TestServeHeldCoding(t *testing.T) {
	h := SharedHead("application/json", time.Unix(1e9, 0))
	res := new(Resource)
	res.Reps[CodingIdentity].Set([]byte("identity body"), `"t"`, h)
	res.Reps[CodingBrotli].Set([]byte("br body"), `"t-br"`, h)
	res.Reps[CodingGzip].Set([]byte("gzip body"), `"t-gz"`, h)
	lacksGzip := new(Resource)
	*lacksGzip = *res
	lacksGzip.Reps[CodingGzip] = Rep{}
	for _, tc := range []struct {
		res        *Resource
		ae, inm    string
		wantStatus int
		wantTag    string
	}{
		{res, "br, gzip", `"t-br"`, 304, `"t-br"`},
		{res, "br, gzip", `"t-gz"`, 304, `"t-gz"`},
		{res, "br, gzip", `W/"t"`, 304, `"t"`},
		{res, "br, gzip", `"x", "t-gz"`, 304, `"t-gz"`},
		{res, "br", `"t-gz"`, 200, `"t-br"`},            // gzip not accepted
		{res, "br", `"t"`, 304, `"t"`},                  // identity is, unless refused
		{res, "br, identity;q=0", `"t"`, 200, `"t-br"`}, // refused
		{res, "", `"t-br"`, 200, `"t"`},                 // no Accept-Encoding: identity only
		{res, "br, gzip", `"x"`, 200, `"t-br"`},
		{lacksGzip, "br, gzip", `"t-gz"`, 200, `"t-br"`},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.SetRequestURI("/x")
		if tc.ae != "" {
			ctx.Request.Header.Set("Accept-Encoding", tc.ae)
		}
		ctx.Request.Header.Set("If-None-Match", tc.inm)
		Serve(&ctx, tc.res, false)
		if got, tag := ctx.Response.StatusCode(), string(ctx.Response.Header.Peek("ETag")); got != tc.wantStatus || tag != tc.wantTag {
			t.Errorf("%q, If-None-Match %s: %d with ETag %s, want %d with %s", tc.ae, tc.inm, got, tag, tc.wantStatus, tc.wantTag)
		}
	}
}
