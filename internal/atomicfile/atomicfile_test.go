package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, durable := range []bool{false, true} {
		for _, want := range []string{"one", "two"} {
			if err := Write(p, []byte(want), ".tmp-", durable); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(p)
			if err != nil || string(got) != want {
				t.Fatalf("read %q, %v; want %q", got, err, want)
			}
		}
	}
	if fi, err := os.Stat(p); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != Mode {
		t.Errorf("mode %v; want %v: the group that runs the edge reads the files", fi.Mode().Perm(), os.FileMode(Mode))
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), ".tmp-", false); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}
