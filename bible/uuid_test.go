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
