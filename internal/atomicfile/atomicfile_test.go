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

// Overwrite puts data under path in tmp's file, cut to data's length
// whether the old content was longer or shorter, and leaves no tmp; a tmp
// that cannot be opened is an error and leaves nothing behind either.
func TestOverwrite(t *testing.T) {
	dir := t.TempDir()
	tmp, p := filepath.Join(dir, ".tmp-old"), filepath.Join(dir, "f")
	for _, c := range []struct{ old, data string }{{"a longer old content", "short"}, {"old", "a longer new content"}} {
		if err := os.WriteFile(tmp, []byte(c.old), Mode); err != nil {
			t.Fatal(err)
		}
		if err := Overwrite(tmp, p, []byte(c.data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != c.data {
			t.Errorf("over %q: read %q, %v; want %q", c.old, got, err, c.data)
		}
		if _, err := os.Stat(tmp); !os.IsNotExist(err) {
			t.Errorf("over %q: tmp left behind: %v", c.old, err)
		}
	}
	if err := Overwrite(filepath.Join(dir, ".tmp-missing"), filepath.Join(dir, "g"), []byte("x")); err == nil {
		t.Error("Overwrite of a missing file: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "g")); !os.IsNotExist(err) {
		t.Errorf("a failed Overwrite made its path: %v", err)
	}
}
