package paging

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// FuzzPageToken: a token opens only with the key and query hash it was
// issued for, to the offset it was issued with; anything else is refused
// with a message, never a panic or another position.
func FuzzPageToken(f *testing.F) {
	key := Tokens{[]byte("fuzz key")}
	qh := QueryHash("languages", "build", "ES")
	f.Add([]byte(key.Issue(25, qh)), uint32(25))
	f.Add([]byte("AAAA"), uint32(0))
	f.Add([]byte{}, uint32(7))
	f.Fuzz(func(t *testing.T, tok []byte, offset uint32) {
		off, msg := key.Open(tok, qh)
		if msg == "" {
			// Only an issued token opens: re-issuing its offset gives it back.
			if issued := key.Issue(off, qh); issued != string(tok) {
				t.Fatalf("token %q opened to %d, but that offset issues %q", tok, off, issued)
			}
		}
		offset %= 1 << 30
		good := key.Issue(int(offset), qh)
		if off, msg := key.Open([]byte(good), qh); msg != "" || off != int(offset) {
			t.Fatalf("issued token for %d opens to %d %q", offset, off, msg)
		}
		if _, msg := key.Open([]byte(good), QueryHash("languages", "build", "FR")); msg == "" {
			t.Fatal("a token opened for another query")
		}
		if _, msg := (Tokens{[]byte("other key")}).Open([]byte(good), qh); msg == "" {
			t.Fatal("a token opened under another key")
		}
		raw, _ := base64.RawURLEncoding.DecodeString(good)
		for i := range raw {
			forged := bytes.Clone(raw)
			forged[i] ^= 0x40
			if _, msg := key.Open([]byte(base64.RawURLEncoding.EncodeToString(forged)), qh); msg == "" {
				t.Fatalf("a token with byte %d changed opened", i)
			}
		}
	})
}
