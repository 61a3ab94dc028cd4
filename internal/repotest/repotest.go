// Package repotest finds the repository and the shared data beside it, for
// tests, benchmarks and test harnesses.
package repotest

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// FindRoot returns the repository root: the folder holding go.mod above
// the working directory (a package directory under go test).
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// FindShared returns ../shared/<elem…> beside the repository, if it exists.
func FindShared(elem ...string) (string, error) {
	root, err := FindRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(append([]string{filepath.Dir(root), "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// Root is FindRoot for a test: it fails the test when there is no root.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := FindRoot()
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// Shared is FindShared for a test. Missing shared data fails the test
// rather than skipping it: CI always has it, and a skip would hide that the
// real data was never read.
func Shared(tb testing.TB, elem ...string) string {
	tb.Helper()
	p, err := FindShared(elem...)
	if err != nil {
		tb.Fatalf("shared data missing: %v", err)
	}
	return p
}

// ReadGzip returns the uncompressed content of a .gz file.
func ReadGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// NPMCI installs the packages of dir's package-lock.json into its
// node_modules (npm ci), unless a call before did from the same lock
// file, and says why it could not. go test runs packages at once, and
// two of them need acceptance/js's modules: an npm ci removes
// node_modules before it installs, so one run while another package's
// test reads the modules takes them from under it. One process installs
// at a time (a lock file in the temporary directory, per dir); the others
// wait, then find the modules installed.
func NPMCI(ctx context.Context, dir string) error {
	lockJSON, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(lockJSON)
	from := hex.EncodeToString(sum[:])
	// What was installed, written once npm ci has finished.
	marker := filepath.Join(dir, "node_modules", ".installed-from")
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	at := sha256.Sum256([]byte(abs))
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "npm-ci-"+hex.EncodeToString(at[:8])+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close() // and with it the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock npm ci in %s: %w", dir, err)
	}
	if got, err := os.ReadFile(marker); err == nil && string(got) == from {
		return nil
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
	}
	return os.WriteFile(marker, []byte(from), 0o644)
}
