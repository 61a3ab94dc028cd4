package usx

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

// BenchmarkParseVectors parses every origin.xml of the USFM/USX test
// vectors per iteration (about 240 small books).
func BenchmarkParseVectors(b *testing.B) {
	root := repotest.Shared(b, "bibles", "usfm-tests", "tcdocs", "tests")
	var srcs [][]byte
	size := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "origin.xml" {
			if data, err := os.ReadFile(path); err == nil {
				srcs = append(srcs, data)
				size += len(data)
			}
		}
		return nil
	})
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, src := range srcs {
			Parse("bench", src)
		}
	}
}
