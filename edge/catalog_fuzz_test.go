package edge

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// FuzzPageToken: a token opens only with the key and query hash it was
// issued for, to the offset it was issued with; anything else is refused
// with a message, never a panic or another position.
func FuzzPageToken(f *testing.F) {
	key := pageTokens{[]byte("fuzz key")}
	qh := queryHash("languages", "build", "ES")
	f.Add([]byte(key.issue(25, qh)), uint32(25))
	f.Add([]byte("AAAA"), uint32(0))
	f.Add([]byte{}, uint32(7))
	f.Fuzz(func(t *testing.T, tok []byte, offset uint32) {
		off, msg := key.open(tok, qh)
		if msg == "" {
			// Only an issued token opens: re-issuing its offset gives it back.
			if issued := key.issue(off, qh); issued != string(tok) {
				t.Fatalf("token %q opened to %d, but that offset issues %q", tok, off, issued)
			}
		}
		offset %= 1 << 30
		good := key.issue(int(offset), qh)
		if off, msg := key.open([]byte(good), qh); msg != "" || off != int(offset) {
			t.Fatalf("issued token for %d opens to %d %q", offset, off, msg)
		}
		if _, msg := key.open([]byte(good), queryHash("languages", "build", "FR")); msg == "" {
			t.Fatal("a token opened for another query")
		}
		if _, msg := (pageTokens{[]byte("other key")}).open([]byte(good), qh); msg == "" {
			t.Fatal("a token opened under another key")
		}
		raw, _ := base64.RawURLEncoding.DecodeString(good)
		for i := range raw {
			forged := bytes.Clone(raw)
			forged[i] ^= 0x40
			if _, msg := key.open([]byte(base64.RawURLEncoding.EncodeToString(forged)), qh); msg == "" {
				t.Fatalf("a token with byte %d changed opened", i)
			}
		}
	})
}

// FuzzCatalogPath: the catalogue router never panics, and a path it
// claims is under a catalogue prefix.
func FuzzCatalogPath(f *testing.F) {
	for _, s := range []string{"/v1/bibles", "/v1/languages/zh-Hant-TW", "/v1/organizations/x/bibles",
		"/v1/fonts/1/stylesheet", "/v1/fonts/files/abc/x.woff2", "/v1/verse_of_the_days/60", "/v1/verse-of-the-days/60", "/v1/bibles/1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		_, _, ok := parseCatalogPath(p)
		if !ok {
			return
		}
		for _, prefix := range [][]byte{pathBibles, pathLanguages, pathOrganizations, pathFonts, pathVOTD, pathVOTDAlias} {
			if bytes.HasPrefix(p, prefix) {
				return
			}
		}
		t.Fatalf("%q claimed by the catalogue", p)
	})
}
