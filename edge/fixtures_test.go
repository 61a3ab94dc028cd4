package edge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/access"
)

// demoKeys is fixtures/demo-keys.json, the clear keys of the fixture apps.
type demoKeys struct {
	AppKey            string `json:"app_key"`
	AppID             string `json:"app_id"`
	ArchivedAppKey    string `json:"archived_app_key"`
	UnlicensedAppKey  string `json:"unlicensed_app_key"`
	UnlicensedBibleID int32  `json:"unlicensed_bible_id"`
}

// TestFixtureAccess checks that the committed access file and demo keys
// agree: each demo key resolves to an app with the promised status and
// licences.
func TestFixtureAccess(t *testing.T) {
	snap, err := access.ReadFile(filepath.Join("..", "fixtures", "access.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("..", "fixtures", "demo-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	var keys demoKeys
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	l := &limiters{byApp: map[string]*limiter{}, def: access.Rate{PerSecond: 1, Burst: 1}, share: 1}
	tbl, err := l.compile(snap)
	if err != nil {
		t.Fatal(err)
	}
	app := func(key string) *appEntry {
		a := tbl.byKey[access.HashKey([]byte(key))]
		if a == nil {
			t.Fatalf("key %q is in no app", key)
		}
		return a
	}
	demo := app(keys.AppKey)
	if demo.id != keys.AppID || demo.archived {
		t.Errorf("demo app = %s archived=%v; want %s, not archived", demo.id, demo.archived, keys.AppID)
	}
	for _, id := range []int32{9001, 9002, 9003} {
		if !tbl.licensed(demo, id) {
			t.Errorf("demo app not licensed for %d", id)
		}
	}
	un := app(keys.UnlicensedAppKey)
	if un.archived || tbl.licensed(un, keys.UnlicensedBibleID) || !tbl.licensed(un, 9001) {
		t.Errorf("unlicensed app: archived=%v licensed(%d)=%v licensed(9001)=%v; want false, false, true",
			un.archived, keys.UnlicensedBibleID, tbl.licensed(un, keys.UnlicensedBibleID), tbl.licensed(un, 9001))
	}
	if !app(keys.ArchivedAppKey).archived {
		t.Error("archived key's app is not archived")
	}
}
