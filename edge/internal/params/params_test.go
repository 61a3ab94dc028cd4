package params

import "testing"

func TestPathID(t *testing.T) {
	for _, c := range []struct {
		in   string
		id   int32
		want ID
	}{
		{"1", 1, IDOK},
		{"9001", 9001, IDOK},
		{"2147483647", 2147483647, IDOK},
		{"0", 0, IDNone},
		{"-1", 0, IDNone},
		{"-2147483648", 0, IDNone},
		{"+1", 0, IDNone},
		{"001", 0, IDNone},
		{"-0", 0, IDNone},
		{"", 0, IDInvalid},
		{"-", 0, IDInvalid},
		{"+", 0, IDInvalid},
		{"abc", 0, IDInvalid},
		{"1.0", 0, IDInvalid},
		{"1e3", 0, IDInvalid},
		{" 1", 0, IDInvalid},
		{"2147483648", 0, IDInvalid},
		{"-2147483649", 0, IDInvalid},
		{"99999999999999999999", 0, IDInvalid},
	} {
		id, got := PathID([]byte(c.in))
		if id != c.id || got != c.want {
			t.Errorf("PathID(%q) = %d, %d; want %d, %d", c.in, id, got, c.id, c.want)
		}
	}
}

func TestBool(t *testing.T) {
	for _, c := range []struct {
		in            string
		v, set, valid bool
	}{
		{"", false, false, true},
		{"true", true, true, true},
		{"TRUE", true, true, true},
		{"1", true, true, true},
		{"yes", true, true, true},
		{"On", true, true, true},
		{"false", false, true, true},
		{"0", false, true, true},
		{"no", false, true, true},
		{"off", false, true, true},
		{"2", false, false, false},
		{"truthy", false, false, false},
	} {
		v, set, ok := Bool([]byte(c.in))
		if v != c.v || set != c.set || ok != c.valid {
			t.Errorf("Bool(%q) = %v, %v, %v; want %v, %v, %v", c.in, v, set, ok, c.v, c.set, c.valid)
		}
	}
}
