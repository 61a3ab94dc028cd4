package accounts

import (
	"strings"
	"testing"
)

func TestCheckPassword(t *testing.T) {
	for _, tt := range []struct {
		pw   string
		want error
	}{
		{"", ErrPasswordShort},
		{"seven77", ErrPasswordShort},
		{"ééééééé", ErrPasswordShort}, // 7 characters, 14 bytes
		{"password", ErrPasswordCommon},
		{"Password", ErrPasswordCommon},
		{"qwertyuiop", ErrPasswordCommon},
		{"kettle8m", nil},
		{"all lower case words", nil}, // no composition rules
		{"ééééééééé", nil},
		{strings.Repeat("x", MaxPassword+1), ErrPasswordLong},
	} {
		if got := CheckPassword(tt.pw); got != tt.want {
			t.Errorf("CheckPassword(%q) = %v, want %v", tt.pw, got, tt.want)
		}
	}
	if len(common) < 10000 {
		t.Errorf("common password list has %d entries", len(common))
	}
}

func TestHashPassword(t *testing.T) {
	h := HashPassword("a fine long phrase")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=1$") {
		t.Errorf("hash %q: want an argon2id PHC string", h)
	}
	if h2 := HashPassword("a fine long phrase"); h2 == h {
		t.Error("two hashes of one password are equal: no salt")
	}
	for _, tt := range []struct {
		pw   string
		want bool
	}{{"a fine long phrase", true}, {"a fine long phrase ", false}, {"", false}} {
		got, err := VerifyPassword(h, tt.pw)
		if err != nil || got != tt.want {
			t.Errorf("VerifyPassword(%q) = %v, %v; want %v", tt.pw, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=65536,t=3,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=99999999,t=3,p=1$c2FsdA$a2V5",
		"$argon2id$v=19$m=65536,t=3,p=1$!!$a2V5"} {
		if _, err := VerifyPassword(bad, "x"); err != ErrHashFormat {
			t.Errorf("VerifyPassword(%q): %v, want ErrHashFormat", bad, err)
		}
	}
}

func TestCheckProfile(t *testing.T) {
	for _, tt := range []struct {
		name, email string
		want        error
	}{
		{"Ann", "ann@example.test", nil},
		{" ", "ann@example.test", ErrDisplayName},
		{strings.Repeat("n", MaxDisplayName+1), "ann@example.test", ErrDisplayName},
		{"Ann", "Ann <ann@example.test>", ErrEmail},
		{"Ann", "ann", ErrEmail},
	} {
		if got := CheckProfile(tt.name, tt.email); got != tt.want {
			t.Errorf("CheckProfile(%q, %q) = %v, want %v", tt.name, tt.email, got, tt.want)
		}
	}
}
