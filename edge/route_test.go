package edge

import "testing"

func TestParsePathID(t *testing.T) {
	for _, c := range []struct {
		in   string
		id   int32
		want idParse
	}{
		{"1", 1, idOK},
		{"9001", 9001, idOK},
		{"2147483647", 2147483647, idOK},
		{"0", 0, idNone},
		{"-1", 0, idNone},
		{"-2147483648", 0, idNone},
		{"+1", 0, idNone},
		{"001", 0, idNone},
		{"-0", 0, idNone},
		{"", 0, idInvalid},
		{"-", 0, idInvalid},
		{"+", 0, idInvalid},
		{"abc", 0, idInvalid},
		{"1.0", 0, idInvalid},
		{"1e3", 0, idInvalid},
		{" 1", 0, idInvalid},
		{"2147483648", 0, idInvalid},
		{"-2147483649", 0, idInvalid},
		{"99999999999999999999", 0, idInvalid},
	} {
		id, got := parsePathID([]byte(c.in))
		if id != c.id || got != c.want {
			t.Errorf("parsePathID(%q) = %d, %d; want %d, %d", c.in, id, got, c.id, c.want)
		}
	}
}
