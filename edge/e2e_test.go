package edge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
)

// repoRoot is the directory holding go.mod.
func repoRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// TestEndToEndPublishBuild publishes the committed fixtures with the real
// `publish build`, serves them with the committed access file and demo
// keys, and checks that every verse range the edge composes is exactly what
// the build rendered for the same verses: each chapter composed as a range
// from its first to its last verse must equal the pre-rendered chapter, in
// every variant.
func TestEndToEndPublishBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/publish")
	}
	srv, keys := fixtureEdge(t, nil)
	e := &testEdge{srv: srv, client: newTestEdgeClient(t, srv)}
	key := "X-SVC-App-Key: " + keys.AppKey

	get := func(path string) (bible.Passage, int) {
		t.Helper()
		resp, body := e.do(t, "GET", path, key)
		var p bible.Passage
		if resp.StatusCode == 200 {
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		return p, resp.StatusCode
	}
	chapters := 0
	for _, be := range srv.site.Load().Manifest.Bibles {
		resp, body := e.do(t, "GET", "/v1/bibles/"+itoa(int(be.ID))+"/index", key)
		if resp.StatusCode != 200 {
			t.Fatalf("index of %d: %d", be.ID, resp.StatusCode)
		}
		var idx bible.Index
		if err := json.Unmarshal(body, &idx); err != nil {
			t.Fatal(err)
		}
		for _, book := range idx.Books {
			for _, ch := range book.Chapters {
				if len(ch.Verses) < 2 {
					continue
				}
				chapters++
				first, last := ch.Verses[0].ID, ch.Verses[len(ch.Verses)-1].ID
				base := "/v1/bibles/" + itoa(int(be.ID)) + "/passages/"
				rng := string(book.ID) + "." + ch.ID + "." + first + "-" + last
				for _, q := range []string{"?format=text", "?format=html&include_headings=false&include_notes=false",
					"?format=html&include_headings=true&include_notes=false", "?format=html&include_headings=true&include_notes=true"} {
					whole, s1 := get(base + ch.PassageID + q)
					composed, s2 := get(base + rng + q)
					if s1 != 200 || s2 != 200 {
						t.Fatalf("%d %s%s: chapter %d, range %d", be.ID, rng, q, s1, s2)
					}
					if whole.Content != composed.Content {
						t.Errorf("Bible %d %s%s: composed range differs from the pre-rendered chapter\n got  %q\n want %q",
							be.ID, rng, q, composed.Content, whole.Content)
					}
					if composed.ID != rng {
						t.Errorf("id %q, want %q", composed.ID, rng)
					}
				}
			}
		}
	}
	if chapters == 0 {
		t.Fatal("the fixtures published no chapter with two verses")
	}
	runSteps(t, e, []step{
		{name: "unlicensed app, content", path: "/v1/bibles/" + itoa(int(keys.UnlicensedBibleID)) + "/passages/JHN.3.16",
			headers: []string{"X-SVC-App-Key: " + keys.UnlicensedAppKey}, status: 403, body: []string{itoa(int(keys.UnlicensedBibleID))}},
		{name: "unlicensed app, metadata", path: "/v1/bibles/" + itoa(int(keys.UnlicensedBibleID)),
			headers: []string{"X-SVC-App-Key: " + keys.UnlicensedAppKey}, status: 200},
		{name: "archived app", path: "/v1/bibles/9001", headers: []string{"X-SVC-App-Key: " + keys.ArchivedAppKey}, status: 412},
	})
}

// fixtureEdge serves the committed fixtures, published with the real
// `publish build` (once per test binary), with the committed access file
// and demo keys; mod adjusts the configuration first.
func fixtureEdge(t testing.TB, mod func(*Config)) (*Server, demoKeys) {
	t.Helper()
	root := repoRoot(t)
	fixturePublish.once.Do(func() {
		tmp, err := os.MkdirTemp("", "edge-fixtures-")
		if err != nil {
			fixturePublish.err = err
			return
		}
		fixturePublish.dir = tmp // removed by TestMain's cleanup
		bin := filepath.Join(tmp, "publish")
		build := exec.Command("go", "build", "-o", bin, "./cmd/publish")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			fixturePublish.err = fmt.Errorf("go build ./cmd/publish: %v\n%s", err, out)
			return
		}
		pub := exec.Command(bin, "build", "--content", filepath.Join(root, "fixtures", "content"), "--store", filepath.Join(tmp, "store"))
		if out, err := pub.CombinedOutput(); err != nil {
			fixturePublish.err = fmt.Errorf("publish build: %v\n%s", err, out)
		}
	})
	if fixturePublish.err != nil {
		t.Fatal(fixturePublish.err)
	}
	store, err := publish.OpenDir(filepath.Join(fixturePublish.dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: store}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&BuildWatcher{Store: store, Server: srv, Log: srv.log}).Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap, err := access.ReadFile(filepath.Join(root, "fixtures", "access.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Tests send hundreds of requests at once; the fixture's limits are
	// for people trying the demo.
	for i := range snap.Apps {
		snap.Apps[i].RateLimit = access.Rate{PerSecond: 1e6, Burst: 1e6}
	}
	if err := srv.SetAccess(snap); err != nil {
		t.Fatal(err)
	}
	var keys demoKeys
	b, err := os.ReadFile(filepath.Join(root, "fixtures", "demo-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	return srv, keys
}

var fixturePublish struct {
	once sync.Once
	dir  string
	err  error
}
