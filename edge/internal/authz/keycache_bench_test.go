package authz

import (
	"crypto/sha256"
	"testing"
)

// benchKey is the key the benchmark looks up.
const benchKey = "bench-demo-key"

// BenchmarkKeyLookup compares finding an app by a verified key's cache
// entry with hashing the key first, as a key not in the cache is.
func BenchmarkKeyLookup(b *testing.B) {
	keys := map[string]string{}
	for i := range 1000 {
		keys["app-"+string(rune('a'+i%26))+string(rune(i))] = "k-" + string(rune(i)) + "-0123456789abcdef0123456789abcdef"
	}
	keys["demo"] = benchKey
	tab := keyTable(b, 1, keys)
	key := []byte(benchKey)
	b.Run("cache", func(b *testing.B) {
		for b.Loop() {
			if tab.Lookup(key) == nil {
				b.Fatal("not found")
			}
		}
	})
	b.Run("sha256", func(b *testing.B) {
		for b.Loop() {
			if tab.byKey[sha256.Sum256(key)] == nil {
				b.Fatal("not found")
			}
		}
	})
}
