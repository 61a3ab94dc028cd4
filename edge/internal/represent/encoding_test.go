package represent

import (
	"testing"
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
