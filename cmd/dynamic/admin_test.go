package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
)

// run parses args as the root CLI would (adminCmds embedded) and runs the
// command, returning what it printed.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var root struct {
		adminCmds `embed:""`
	}
	p, err := kong.New(&root, kong.Name("dynamic"), kong.Exit(func(int) { t.Fatal("kong exited") }))
	if err != nil {
		t.Fatal(err)
	}
	k, err := p.Parse(args)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	// Point the selected command's output at buf.
	if sel := k.Selected(); sel != nil {
		if o, ok := sel.Target.Addr().Interface().(interface{ setOut(*bytes.Buffer) }); ok {
			o.setOut(&buf)
		}
	}
	k.BindTo(context.Background(), (*context.Context)(nil))
	err = k.Run()
	return buf.String(), err
}

func (o *output) setOut(b *bytes.Buffer) { o.w = b }

func TestAppsAndKeys(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	out, err := run(t, "apps", "create", "--database-url", url, "--name", "Reader", "--website", "https://reader.example",
		"--status", "live", "--organization", "e5aaf952-2601-4eb8-af08-bc2e48aa31fc",
		"--callback-url", "https://reader.example/cb", "--rate", "5", "--burst", "10", "--key")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`app_id=(\S+)\nkey_id=(\d+)\napp_key=(\S+)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("output %q", out)
	}
	appID, keyID, key := m[1], m[2], m[3]
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keysOf := func() []string {
		d, err := db.AccessData(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range d.Apps {
			if a.ID == appID {
				return a.KeyHashes
			}
		}
		t.Fatalf("app %s missing", appID)
		return nil
	}
	if got := keysOf(); !slices.Equal(got, []string{access.HashKeyHex(key)}) {
		t.Errorf("stored %v, want the hash of the printed key", got)
	}
	out, err = run(t, "keys", "issue", "--database-url", url, "--app", appID)
	if err != nil {
		t.Fatal(err)
	}
	key2 := regexp.MustCompile(`app_key=(\S+)`).FindStringSubmatch(out)[1]
	if _, err := run(t, "keys", "revoke", "--database-url", url, "--id", keyID); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(); !slices.Equal(got, []string{access.HashKeyHex(key2)}) {
		t.Errorf("after revoking by id: %v", got)
	}
	if _, err := run(t, "keys", "revoke", "--database-url", url, "--key", key2); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(); len(got) != 0 {
		t.Errorf("after revoking by key: %v", got)
	}
	if _, err := run(t, "apps", "archive", "--database-url", url, "--app", appID); err != nil {
		t.Fatal(err)
	}
	a, err := db.App(ctx, appID)
	if err != nil || a.Status != "archived" || a.CallbackURL != "https://reader.example/cb" || a.RateBurst != 10 {
		t.Errorf("app after archive: %+v %v", a, err)
	}
	out, _ = run(t, "keys", "list", "--database-url", url, "--app", appID)
	if strings.Count(out, "revoked") != 2 || strings.Contains(out, key) {
		t.Errorf("keys list %q", out)
	}

	agreed := "2025-01-02T03:04:05Z"
	if _, err := run(t, "licenses", "agree", "--database-url", url, "--license", "2",
		"--developer", "d0d0d0d0-1111-4222-8333-444455556666", "--at", agreed); err != nil {
		t.Fatal(err)
	}
	as, err := db.DeveloperAgreements(ctx, "d0d0d0d0-1111-4222-8333-444455556666")
	if err != nil || len(as) != 1 || as[0].LicenseID != 2 || as[0].AgreedAt.UTC().Format(time.RFC3339) != agreed {
		t.Errorf("agreements %+v %v", as, err)
	}

	bad := [][]string{
		{"apps", "create", "--database-url", url, "--name", "X", "--callback-url", "javascript:alert(1)"},
		{"apps", "create", "--database-url", url, "--name", "X", "--callback-url", "http://a.com;frame-ancestors/cb"},
		{"apps", "create", "--database-url", url, "--name", "X\u202e", "--callback-url", "https://reader.example/cb"},
		{"apps", "create", "--database-url", url, "--name", "X", "--status", "gone"},
		{"apps", "create", "--database-url", url, "--name", "X", "--id", appID},
		{"keys", "revoke", "--database-url", url, "--id", "99999"},
		{"licenses", "agree", "--database-url", url, "--license", "1"},
	}
	for _, args := range bad {
		if _, err := run(t, args...); err == nil {
			t.Errorf("%v: no error", args[:3])
		}
	}
}

func TestUsersToken(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "k.pem")
	demo := filepath.Join(dir, "demo.json")
	os.WriteFile(demo, []byte(`{"app_key":"k"}`), 0o644)
	user := "7a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3"
	out, err := run(t, "users", "token", "--user", user, "--key", keyFile, "--demo-json", demo)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(out)
	pub, err := os.ReadFile(filepath.Join(dir, "k.pub.pem"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := jwt.ParsePEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	v := jwt.Verifier{Keys: keys, Issuer: "bible-platform-dev", Audience: "bible-platform"}
	c, err := v.Verify(context.Background(), tok)
	if err != nil || c.Subject != user || c.ExpiresAt.Before(time.Now().Add(23*time.Hour)) {
		t.Fatalf("token: %+v %v", c, err)
	}
	var m map[string]string
	b, _ := os.ReadFile(demo)
	json.Unmarshal(b, &m)
	if m["user_token"] != tok || m["app_key"] != "k" || m["user_id"] != user {
		t.Errorf("demo.json %s", b)
	}
	// The same key file signs the next token.
	out2, _ := run(t, "users", "token", "--user", user, "--key", keyFile)
	if _, err := v.Verify(context.Background(), strings.TrimSpace(out2)); err != nil {
		t.Errorf("second token: %v", err)
	}
}

// The seed reproduces the fixture's demo apps and keys, with licence
// agreements that give each app the restricted Bibles it lists.
func TestSeed(t *testing.T) {
	root := repotest.Root(t)
	url := pgtest.URL(t)
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeLicenses(t, store)
	args := []string{"seed", "--database-url", url, "--access", filepath.Join(root, "fixtures", "access.json"),
		"--store", store.Root()}
	out, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, args...); err != nil {
		t.Fatalf("second seed: %v", err)
	}
	snap, err := access.ReadFile(filepath.Join(root, "fixtures", "access.json"))
	if err != nil {
		t.Fatal(err)
	}
	keys := demoKeys(t, root)
	d := seededAccess(t, url)
	byID := map[string]dynamic.AccessApp{}
	for _, a := range d.Apps {
		byID[a.ID] = a
	}
	for _, a := range snap.Apps {
		got, ok := byID[a.ID]
		if !ok {
			t.Errorf("app %s not seeded", a.ID)
			continue
		}
		if got.Status != a.Status || got.Name != a.Name || !slices.Equal(got.KeyHashes, a.KeyHashes) ||
			got.RatePerSecond != a.RateLimit.PerSecond || got.RateBurst != a.RateLimit.Burst {
			t.Errorf("app %s: got %+v, want %+v", a.ID, got, a)
		}
	}
	// The demo keys authenticate their apps; the licensed app has licence
	// 2 (9002, 9003), the unlicensed one does not (it lacks 9002).
	demoApp := byID[fmt.Sprint(keys["app_id"])]
	if !slices.Contains(demoApp.KeyHashes, access.HashKeyHex(fmt.Sprint(keys["app_key"]))) {
		t.Error("demo app_key does not match the demo app")
	}
	if !slices.Equal(demoApp.Licenses, []int{2}) {
		t.Errorf("demo app licences %v, want [2]", demoApp.Licenses)
	}
	for _, a := range d.Apps {
		if slices.Contains(a.KeyHashes, access.HashKeyHex(fmt.Sprint(keys["unlicensed_app_key"]))) && len(a.Licenses) != 0 {
			t.Errorf("unlicensed app has licences %v", a.Licenses)
		}
	}
	if !strings.Contains(out, "seeded app "+demoApp.ID) {
		t.Errorf("output %q", out)
	}
}

// With --reads-all, the demo reader also gets the licence of a Bible the
// snapshot does not list (a DBL bundle imported into make run's content);
// the other apps do not.
func TestSeedReadsAll(t *testing.T) {
	root := repotest.Root(t)
	url := pgtest.URL(t)
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeLicenses(t, store, dynamic.License{ID: 3, Name: "Bundle", Version: 1, BibleIDs: []int32{9004}})
	keys := demoKeys(t, root)
	demo := fmt.Sprint(keys["app_id"])
	if _, err := run(t, "seed", "--database-url", url, "--access", filepath.Join(root, "fixtures", "access.json"),
		"--store", store.Root(), "--reads-all", demo); err != nil {
		t.Fatal(err)
	}
	d := seededAccess(t, url)
	for _, a := range d.Apps {
		want := []int{}
		switch {
		case a.ID == demo:
			want = []int{2, 3}
		case slices.Contains(a.KeyHashes, access.HashKeyHex(fmt.Sprint(keys["unlicensed_app_key"]))):
		default:
			continue
		}
		if got := append([]int{}, a.Licenses...); !slices.Equal(got, want) {
			t.Errorf("app %s licences %v, want %v", a.ID, got, want)
		}
	}
}

// writeLicenses publishes the fixtures' two licences as the build does: 1
// open (9001), 2 restricted (9002, 9003), and any more given.
func writeLicenses(t *testing.T, store publish.Store, more ...dynamic.License) {
	ctx := context.Background()
	lics := append([]dynamic.License{
		{ID: 1, Name: "Open", Version: 1, BibleIDs: []int32{9001}, Open: true},
		{ID: 2, Name: "Restricted", Version: 3, BibleIDs: []int32{9002, 9003}},
	}, more...)
	b, _ := json.Marshal(lics)
	w := publish.NewPackWriter()
	w.Add("licenses", publish.JSON, b)
	enc := publish.NewEncoder()
	data := w.Bytes(enc)
	key := w.Key()
	if err := store.Put(ctx, key, data); err != nil {
		t.Fatal(err)
	}
	m := &publish.Manifest{Site: &publish.PackRef{Key: key, Size: int64(len(data))}}
	mb, _ := json.Marshal(m)
	if err := store.Put(ctx, publish.ManifestKey(m.BuildID()), mb); err != nil {
		t.Fatal(err)
	}
	if err := store.SetCurrent(ctx, m.BuildID()); err != nil {
		t.Fatal(err)
	}
}

// demoKeys is fixtures/demo-keys.json.
func demoKeys(t *testing.T, root string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "fixtures", "demo-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	return keys
}

// seededAccess is the access data the database at url holds.
func seededAccess(t *testing.T, url string) *dynamic.AccessData {
	t.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d, err := db.AccessData(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
