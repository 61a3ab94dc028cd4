package usfm

import (
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

func repoRoot(tb testing.TB) string { return repotest.Root(tb) }

func sharedDir(tb testing.TB) string { return repotest.Shared(tb) }

// readGz returns the uncompressed content of a .gz file.
func readGz(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := repotest.ReadGzip(path)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return b
}
