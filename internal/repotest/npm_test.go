package repotest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestNPMCIInstallsOnce: two installs of one directory at once both end
// with its modules installed, and a third, with no npm to run, finds
// them installed and runs nothing (where the acceptance suite's npm ci
// used to remove and install them again).
func TestNPMCIInstallsOnce(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(Root(t), "acceptance", "js", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = NPMCI(t.Context(), dir) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@youversion", "platform-core", "package.json")); err != nil {
		t.Fatalf("modules not installed: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if err := NPMCI(t.Context(), dir); err != nil {
		t.Fatalf("installed modules installed again: %v", err)
	}
}
