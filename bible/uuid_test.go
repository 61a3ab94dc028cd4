package bible

import "testing"

func TestValidUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a01": true,
		"5C1A1E3F-9B7D-4E52-A3F0-6D2B8C4E9A01": true,
		"5c1a1e3f9b7d-4e52-a3f0-6d2b8c4e9a01-": false,
		"5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a0g": false,
		"5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a0":  false,
		"":                                     false,
	} {
		if got := ValidUUID(s); got != want {
			t.Errorf("ValidUUID(%q) = %v; want %v", s, got, want)
		}
		if got := ValidUUID([]byte(s)); got != want {
			t.Errorf("ValidUUID([]byte(%q)) = %v; want %v", s, got, want)
		}
	}
}

func TestNewUUID(t *testing.T) {
	if n := NewUUID(); !ValidUUID(n) || n[14] != '4' || n[19] < '8' || n[19] > 'b' || n == NewUUID() {
		t.Errorf("random %s", n)
	}
	// FormatUUID keeps what a name-based id was before it was shared: the
	// organization id of a DBL bundle must not change between imports.
	var b [16]byte
	for i := range b {
		b[i] = 0xff
	}
	if got, want := FormatUUID(b, 5), "ffffffff-ffff-5fff-bfff-ffffffffffff"; got != want {
		t.Errorf("FormatUUID = %s, want %s", got, want)
	}
}
