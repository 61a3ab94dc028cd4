package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
	s3store "github.com/bibleplatform/platform/publish/s3"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// These tests run the real bin/publish, as a content team does, on the
// shared Bibles.

var publishBin struct {
	once sync.Once
	path string
	err  error
}

// binPublish builds cmd/publish once per test binary.
func binPublish(t *testing.T) string {
	t.Helper()
	publishBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "publish-bin-")
		if err != nil {
			publishBin.err = err
			return
		}
		publishBin.path = filepath.Join(dir, "publish")
		cmd := exec.Command("go", "build", "-o", publishBin.path, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			publishBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if publishBin.err != nil {
		t.Fatal(publishBin.err)
	}
	return publishBin.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if publishBin.path != "" {
		os.RemoveAll(filepath.Dir(publishBin.path))
	}
	os.Exit(code)
}

// run runs bin/publish with args in dir and returns its output (stdout
// and stderr) and exit code.
func run(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	return runEnv(t, dir, nil, args...)
}

// runEnv is run with env added to the environment.
func runEnv(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binPublish(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

// mustRun is run that fails the test on a non-zero exit.
func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, code := run(t, dir, args...)
	if code != 0 {
		t.Fatalf("publish %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

const teamOrg = "5e1c6a51-0206-4d2b-9a1e-000000000206"

// teamContent makes a content directory with an organization and an open
// licence 1 in a new working folder, which it returns.
func teamContent(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mustRun(t, dir, "organizations", "add", "--content", "content", "--id", teamOrg, "--name", "en=Sample Society")
	mustRun(t, dir, "licenses", "add", "--content", "content", "--id", "1", "--name", "Public domain", "--open", "--organization", teamOrg)
	return dir
}

// sharedBooks copies the named files of a shared Bible into dir/name.
func sharedBooks(t *testing.T, dir, name, bible string, files ...string) string {
	t.Helper()
	dst := filepath.Join(dir, name)
	os.MkdirAll(dst, 0o755)
	for _, f := range files {
		b, err := os.ReadFile(repotest.Shared(t, "bibles", bible, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func bookFiles(t *testing.T, dir string) int {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.us*"))
	return len(names)
}

// TestTeamImportNeverDestroys: re-importing one corrected book of the WEB
// keeps the other 82; removing books takes --replace-all or publish
// remove, and --check says what would go; another Bible's folder, or a
// new title, imported into the WEB's id is refused; language tags are
// stored canonical or refused with a suggestion.
func TestTeamImportNeverDestroys(t *testing.T) {
	dir := teamContent(t)
	web := repotest.Shared(t, "bibles", "eng-web")
	mustRun(t, dir, "import", "--content", "content", "--id", "206", "--language", "en", "--abbreviation", "WEB",
		"--title", "World English Bible", "--license", "1", web)
	bibleDir := filepath.Join(dir, "content", "bibles", "206")
	if n := bookFiles(t, bibleDir); n != 83 {
		t.Fatalf("WEB imported with %d book files; want 83", n)
	}

	fixed := filepath.Join(dir, "fixed")
	os.MkdirAll(fixed, 0o755)
	jhn := gunzipShared(t, "eng-web", "73-JHNeng-web.usfm.gz")
	os.WriteFile(filepath.Join(fixed, "JHN.usfm"), bytes.Replace(jhn, []byte(" beginning "), []byte(" beginning (corrected) "), 1), 0o644)
	out := mustRun(t, dir, "import", "--content", "content", "--id", "206", filepath.Join(fixed, "JHN.usfm"))
	if !strings.Contains(out, "imported Bible 206: 1 books") || !strings.Contains(out, "82 kept") || !strings.Contains(out, "kept, not in the source: GEN EXO") {
		t.Errorf("one-book re-import said:\n%s", out)
	}
	if n := bookFiles(t, bibleDir); n != 83 {
		t.Errorf("after a one-book re-import: %d book files; want 83", n)
	}
	if b, _ := os.ReadFile(filepath.Join(bibleDir, "JHN.usfm")); !bytes.Contains(b, []byte("(corrected)")) {
		t.Error("the corrected John was not imported")
	}

	out = mustRun(t, dir, "import", "--content", "content", "--id", "206", "--check", "--replace-all", filepath.Join(fixed, "JHN.usfm"))
	if !strings.Contains(out, "would remove (--replace-all): GEN EXO") || !strings.Contains(out, "82 to remove") {
		t.Errorf("--check --replace-all said:\n%s", out)
	}
	if n := bookFiles(t, bibleDir); n != 83 {
		t.Errorf("--check removed books: %d left", n)
	}
	out = mustRun(t, dir, "remove", "--content", "content", "--id", "206", "TOB")
	if !strings.Contains(out, "would remove") || !strings.Contains(out, "--delete") || bookFiles(t, bibleDir) != 83 {
		t.Errorf("remove without --delete:\n%s", out)
	}
	mustRun(t, dir, "remove", "--content", "content", "--id", "206", "TOB", "--delete")
	if _, err := os.Stat(filepath.Join(bibleDir, "TOB.usfm")); !os.IsNotExist(err) || bookFiles(t, bibleDir) != 82 {
		t.Errorf("remove --delete left TOB (%v)", err)
	}

	before, _ := os.ReadFile(filepath.Join(bibleDir, "GEN.usfm"))
	bsb := repotest.Shared(t, "bibles", "eng-bsb")
	out, code := run(t, dir, "import", "--content", "content", "--id", "206", bsb)
	if code != 1 || !strings.Contains(out, "is not Bible 206 as imported before: the text:") || !strings.Contains(out, "refused (nothing written)") {
		t.Errorf("the BSB into the WEB's id: exit %d\n%s", code, out)
	}
	if after, _ := os.ReadFile(filepath.Join(bibleDir, "GEN.usfm")); !bytes.Equal(after, before) {
		t.Error("the refused import changed GEN")
	}
	out, code = run(t, dir, "import", "--content", "content", "--id", "206", "--title", "Another Title", filepath.Join(fixed, "JHN.usfm"))
	if code != 1 || !strings.Contains(out, `title "Another Title" (was "World English Bible")`) {
		t.Errorf("a new title without --replace: exit %d\n%s", code, out)
	}
	mustRun(t, dir, "import", "--content", "content", "--id", "206", "--title", "Another Title", "--replace", filepath.Join(fixed, "JHN.usfm"))

	rv := sharedBooks(t, dir, "rv", "spa-rv1909", "95-JUDspaRV1909.usfm.gz")
	for _, c := range []struct {
		tag, want string
		code      int
	}{
		{"spa", `"language_tag": "es"`, 0},
		{"es_ES", `"language_tag": "es-ES"`, 0},
		{"Spanish", `did you mean "es"?`, 1},
	} {
		out, code := run(t, dir, "import", "--content", "content", "--id", "3", "--language", c.tag, "--abbreviation", "RV",
			"--title", "Reina-Valera 1909", "--license", "1", rv)
		b, _ := os.ReadFile(filepath.Join(dir, "content", "bibles", "3", "bible.json"))
		if code != c.code || !strings.Contains(out+string(b), c.want) {
			t.Errorf("--language %s: exit %d, want %d and %s\n%s\n%s", c.tag, code, c.code, c.want, out, b)
		}
		os.RemoveAll(filepath.Join(dir, "content", "bibles", "3"))
	}
}

func gunzipShared(t *testing.T, bible, name string) []byte {
	t.Helper()
	out, err := exec.Command("gzip", "-dc", repotest.Shared(t, "bibles", bible, name)).Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTeamImportLimits: a book of 1000 chapters of 1000 verses is refused
// at import, located, in seconds; so is a file that is not UTF-8.
func TestTeamImportLimits(t *testing.T) {
	dir := teamContent(t)
	var b bytes.Buffer
	b.WriteString("\\id JOB\n")
	for c := 1; c <= 1000; c++ {
		fmt.Fprintf(&b, "\\c %d\n\\p\n", c)
		for v := 1; v <= 1000; v++ {
			fmt.Fprintf(&b, "\\v %d word\n", v)
		}
	}
	os.WriteFile(filepath.Join(dir, "JOB.usfm"), b.Bytes(), 0o644)
	start := time.Now()
	out, code := run(t, dir, "import", "--content", "content", "--id", "9", "--language", "en", "--abbreviation", "B",
		"--title", "Big", "--license", "1", "JOB.usfm")
	if code != 1 || !strings.Contains(out, "JOB.usfm:10024:1: verse marker number 10001: beyond the cap of 10000 verses in one book") {
		t.Errorf("a book of a million verses: exit %d\n%s", code, out)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("refusing it took %s", d)
	}
	jud := gunzipShared(t, "eng-web", "95-JUDeng-web.usfm.gz")
	os.WriteFile(filepath.Join(dir, "JUD.usfm"), bytes.Replace(jud, []byte("servant"), []byte("serv\xe1nt"), 1), 0o644)
	out, code = run(t, dir, "import", "--content", "content", "--id", "9", "--language", "en", "--abbreviation", "B",
		"--title", "Big", "--license", "1", "JUD.usfm")
	if code != 1 || !strings.Contains(out, "JUD.usfm:") || !strings.Contains(out, "byte 0xe1 is not UTF-8") {
		t.Errorf("invalid UTF-8: exit %d\n%s", code, out)
	}
}

// TestTeamBuildNeverTakesOffline: a misspelt or empty content directory
// and a build without most Bibles are refused and switch nothing; a
// second writer is refused naming the first; a killed build's lease is
// reported stale and broken by its token; a Bible broken at build keeps
// its previous build while the other publishes; rollback follows what was
// current.
func TestTeamBuildNeverTakesOffline(t *testing.T) {
	ctx := context.Background()
	dir := teamContent(t)
	web := sharedBooks(t, dir, "web", "eng-web", "95-JUDeng-web.usfm.gz", "73-JHNeng-web.usfm.gz", "94-3JNeng-web.usfm.gz")
	bsb := sharedBooks(t, dir, "bsb", "eng-bsb", "66JUDBSB.usfm.gz", "653JNBSB.usfm.gz")
	mustRun(t, dir, "import", "--content", "content", "--id", "206", "--language", "en", "--abbreviation", "WEB", "--title", "World English Bible", "--license", "1", web)
	mustRun(t, dir, "import", "--content", "content", "--id", "3034", "--language", "en", "--abbreviation", "BSB", "--title", "Berean Standard Bible", "--license", "1", bsb)
	mustRun(t, dir, "build", "--content", "content", "--store", "store")
	st, err := publish.OpenDir(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	m1, first, _ := publish.LoadCurrent(ctx, st)

	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--content", "contnet"}, "contnet: no such file or directory"},
		{[]string{"--content", "empty"}, "holds no Bible"},
	} {
		out, code := run(t, dir, append([]string{"build", "--store", "store"}, c.args...)...)
		if code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("build %v: exit %d\n%s", c.args, code, out)
		}
	}
	os.Rename(filepath.Join(dir, "content", "bibles", "3034"), filepath.Join(dir, "bsb-aside"))
	out, code := run(t, dir, "build", "--content", "content", "--store", "store")
	if code != 1 || !strings.Contains(out, "1 of the 2 Bibles of the current build are not in the content directory (3034)") {
		t.Errorf("build without the BSB: exit %d\n%s", code, out)
	}
	if cur, _ := st.Current(ctx); cur != first {
		t.Fatalf("a refused build switched: %s, was %s", cur, first)
	}
	// --allow-shrink, into a copy of the store (this one's history stays
	// as the rollbacks below expect), says what goes.
	if out, err := exec.Command("cp", "-a", filepath.Join(dir, "store"), filepath.Join(dir, "store2")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	out = mustRun(t, dir, "build", "--content", "content", "--store", "store2", "--allow-shrink")
	if !strings.Contains(out, "removed from the catalogue (not in the content directory): Bibles 3034") {
		t.Errorf("build --allow-shrink:\n%s", out)
	}
	os.Rename(filepath.Join(dir, "bsb-aside"), filepath.Join(dir, "content", "bibles", "3034"))

	// A second writer while one holds the lease.
	l, err := publish.AcquireLease(ctx, st, "build")
	if err != nil {
		t.Fatal(err)
	}
	out, code = run(t, dir, "build", "--content", "content", "--store", "store")
	if code != 1 || !strings.Contains(out, "the store has another writer: build by") || !strings.Contains(out, "publish lease --break "+l.Info().Token) {
		t.Errorf("a second writer: exit %d\n%s", code, out)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// A Bible broken by hand keeps its previous build; the WEB's change
	// is published.
	bsbJUD := filepath.Join(dir, "content", "bibles", "3034", "JUD.usfm")
	b, _ := os.ReadFile(bsbJUD)
	os.WriteFile(bsbJUD, bytes.Replace(b, []byte("Jude"), []byte("J\xffde"), 1), 0o644)
	webJUD := filepath.Join(dir, "content", "bibles", "206", "JUD.usfm")
	b, _ = os.ReadFile(webJUD)
	os.WriteFile(webJUD, bytes.Replace(b, []byte("Jude"), []byte("Judas"), 1), 0o644)
	out, code = run(t, dir, "build", "--content", "content", "--store", "store")
	if code != 1 || !strings.Contains(out, "is not UTF-8") || !strings.Contains(out, "the previous build's copy stays published") {
		t.Errorf("build with a broken BSB: exit %d\n%s", code, out)
	}
	m2, second, _ := publish.LoadCurrent(ctx, st)
	if second == first || jud(m2, 3034) != jud(m1, 3034) || jud(m2, 206) == jud(m1, 206) {
		t.Errorf("after the build: current %s (was %s); want the WEB's JUD changed and the BSB's as before", second, first)
	}

	// A build killed while it holds the lease leaves it stale.
	mustRun(t, dir, "import", "--content", "content", "--id", "3034", bsb) // the good copy back
	os.WriteFile(webJUD, bytes.Replace(b, []byte("Jude"), []byte("Judah"), 1), 0o644)
	cmd := exec.Command(binPublish(t), "build", "--content", "content", "--store", "store")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	leaseFile := filepath.Join(dir, "store", "objects", filepath.FromSlash(publish.LeaseKey))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(leaseFile); err == nil || time.Now().After(deadline) {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	info, err := publish.ReadLease(ctx, st)
	if err != nil {
		t.Fatalf("the killed build left no lease: %v", err)
	}
	out, code = run(t, dir, "build", "--content", "content", "--store", "store")
	if code != 1 || !strings.Contains(out, "no longer running on this host, so the lease is stale") {
		t.Errorf("build after a killed one: exit %d\n%s", code, out)
	}
	out = mustRun(t, dir, "lease", "--store", "store")
	if !strings.Contains(out, "token "+info.Token) {
		t.Errorf("publish lease:\n%s", out)
	}
	mustRun(t, dir, "lease", "--store", "store", "--break", info.Token)
	mustRun(t, dir, "build", "--content", "content", "--store", "store")
	third, _ := st.Current(ctx)

	// gc deletes under the lease, and collects what killed writers left.
	tmp := filepath.Join(dir, "store", "objects", "packs", ".tmp-killed")
	os.WriteFile(tmp, []byte("partial"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(tmp, old, old)
	out = mustRun(t, dir, "gc", "--store", "store", "--keep", "5", "--delete")
	if !strings.Contains(out, "removed 0 builds and 0 objects (0 B), and 1 temporary files of interrupted writes (7 B)") {
		t.Errorf("gc --delete:\n%s", out)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("gc left %s (%v)", tmp, err)
	}

	// Rollback goes to what was current before, then further back.
	for _, want := range []string{second, first} {
		out := mustRun(t, dir, "rollback", "--store", "store")
		if !strings.Contains(out, "build "+want+" is now current") {
			t.Errorf("rollback: %s; want %s (builds %s %s %s)", out, want, first, second, third)
		}
	}
}

// jud is the source hash of Bible id's JUD in m.
func jud(m *publish.Manifest, id int32) string {
	for _, b := range m.Bible(id).Books {
		if b.ID == "JUD" {
			return b.Source
		}
	}
	return ""
}

// TestTeamTwoWritersOneBucket: two builds into one S3 bucket, as from two
// machines: while the first holds the lease (stopped with SIGSTOP in the
// middle of its build), the second is refused naming it; the first then
// finishes and switches.
func TestTeamTwoWritersOneBucket(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Shared(t)
	bucket := srv.NewBucket(t)
	url := srv.URL(bucket, "prod")
	env := srv.Env()
	dir := teamContent(t)
	web := sharedBooks(t, dir, "web", "eng-web", "95-JUDeng-web.usfm.gz", "73-JHNeng-web.usfm.gz")
	mustRun(t, dir, "import", "--content", "content", "--id", "206", "--language", "en", "--abbreviation", "WEB", "--title", "World English Bible", "--license", "1", web)

	first := exec.Command(binPublish(t), "build", "--content", "content", "--store", url)
	first.Dir, first.Env = dir, append(os.Environ(), env...)
	var out1 bytes.Buffer
	first.Stdout, first.Stderr = &out1, &out1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	store := srvStore(t, srv, url)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if _, err := publish.ReadLease(ctx, store); err == nil {
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatal("the first build took no lease")
		}
	}
	first.Process.Signal(syscall.SIGSTOP)
	out, code := runEnv(t, dir, env, "build", "--content", "content", "--store", url)
	first.Process.Signal(syscall.SIGCONT)
	if err := first.Wait(); err != nil {
		t.Errorf("the first build: %v\n%s", err, out1.String())
	}
	want := fmt.Sprintf("(pid %d)", first.Process.Pid)
	if code != 1 || !strings.Contains(out, "the store has another writer: build by") || !strings.Contains(out, want) {
		t.Errorf("the second build: exit %d, want 1 naming %s\n%s", code, want, out)
	}
	if !strings.Contains(out1.String(), "is now current") {
		t.Errorf("the first build did not switch:\n%s", out1.String())
	}
	if _, err := publish.ReadLease(ctx, store); !publish.IsNotExist(err) {
		t.Errorf("the lease after both builds: %v; want none", err)
	}
}

// srvStore opens url as the test's MinIO signs.
func srvStore(t *testing.T, srv *s3test.Server, url string) publish.Store {
	t.Helper()
	cfg, err := s3store.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s3store.New(cfg, srv.Creds())
	if err != nil {
		t.Fatal(err)
	}
	return st
}
