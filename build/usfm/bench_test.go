package usfm

import (
	"path/filepath"
	"testing"
)

// BenchmarkParseWEB parses the whole World English Bible (83 books) per
// iteration.
func BenchmarkParseWEB(b *testing.B) {
	files, err := filepath.Glob(filepath.Join(sharedDir(b), "bibles", "eng-web", "*.usfm.gz"))
	if err != nil {
		b.Fatal(err)
	}
	if len(files) == 0 {
		b.Skip("no eng-web files")
	}
	srcs := make([][]byte, len(files))
	size := 0
	for i, f := range files {
		srcs[i] = readGz(b, f)
		size += len(srcs[i])
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			if _, err := Parse(files[i], src); err != nil {
				b.Fatal(err)
			}
		}
	}
}
