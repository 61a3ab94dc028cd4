package accounts

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password rules (NIST SP 800-63B §5.1.1.2): a minimum length, a check
// against commonly used passwords, and no composition rules.
const (
	MinPassword = 8
	// MaxPassword bounds the work one sign-in can ask of argon2.
	MaxPassword = 256
)

// Problems with a chosen password.
const (
	ErrPasswordShort  Problem = "Choose a password of at least 8 characters."
	ErrPasswordLong   Problem = "Choose a password of at most 256 characters."
	ErrPasswordCommon Problem = "This password is among the most commonly used ones, which are tried first by anyone guessing. Choose another."
)

//go:embed common-passwords.txt
var commonList string

// common is the set of refused passwords (scripts/common-passwords.sh).
var common = func() map[string]struct{} {
	m := make(map[string]struct{}, 12000)
	sc := bufio.NewScanner(strings.NewReader(commonList))
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = struct{}{}
		}
	}
	return m
}()

// CheckPassword says whether pw may be chosen as a password. Length counts
// characters, not bytes; the common list is compared case-insensitively
// (the list is lower case, and "Password1" is no better than "password1").
func CheckPassword(pw string) error {
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinPassword:
		return ErrPasswordShort
	case n > MaxPassword:
		return ErrPasswordLong
	}
	if _, ok := common[strings.ToLower(pw)]; ok {
		return ErrPasswordCommon
	}
	return nil
}

// argon2id parameters: RFC 9106 §4's second recommended option (64 MiB,
// three passes), with one lane per request so that sign-ins do not take
// every core.
const (
	argonTime    = 3
	argonMemory  = 64 * 1024 // KiB
	argonThreads = 1
	argonKeyLen  = 32
	saltLen      = 16
)

// HashPassword returns pw's argon2id hash as a PHC string
// ($argon2id$v=19$m=…,t=…,p=…$salt$hash), which carries its parameters, so
// they can be raised later without invalidating stored hashes.
func HashPassword(pw string) string {
	salt := make([]byte, saltLen)
	rand.Read(salt)
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// ErrHashFormat is a stored hash this package cannot read.
var ErrHashFormat = errors.New("accounts: unreadable password hash")

// VerifyPassword reports whether pw matches the PHC string hash.
func VerifyPassword(hash, pw string) (bool, error) {
	var (
		version       int
		mem, passes   uint32
		threads       uint8
		salt64, key64 string
	)
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, ErrHashFormat
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, ErrHashFormat
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &passes, &threads); err != nil ||
		mem == 0 || mem > 1<<20 || passes == 0 || passes > 16 || threads == 0 {
		return false, ErrHashFormat
	}
	salt64, key64 = parts[4], parts[5]
	salt, err1 := base64.RawStdEncoding.DecodeString(salt64)
	key, err2 := base64.RawStdEncoding.DecodeString(key64)
	if err1 != nil || err2 != nil || len(key) == 0 || len(key) > 64 {
		return false, ErrHashFormat
	}
	got := argon2.IDKey([]byte(pw), salt, passes, mem, threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// dummyHash is verified against when no account matches, so that a
// sign-in takes as long whether or not the address has an account.
var dummyHash = HashPassword("not a password anyone has: timing only")

// VerifyNoAccount spends the time a verification would.
func VerifyNoAccount(pw string) { VerifyPassword(dummyHash, pw) }
