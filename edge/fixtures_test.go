package edge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge/internal/authz"
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
	az := authz.New(authz.Config{DefaultRate: access.Rate{PerSecond: 1, Burst: 1}, Edges: 1})
	if err := az.Set(snap); err != nil {
		t.Fatal(err)
	}
	tbl := az.Table()
	app := func(key string) *authz.App {
		a := tbl.Lookup([]byte(key))
		if a == nil {
			t.Fatalf("key %q is in no app", key)
		}
		return a
	}
	demo := app(keys.AppKey)
	if demo.ID() != keys.AppID || demo.Archived() {
		t.Errorf("demo app = %s archived=%v; want %s, not archived", demo.ID(), demo.Archived(), keys.AppID)
	}
	for _, id := range []int32{9001, 9002, 9003} {
		if !tbl.Licensed(demo, id) {
			t.Errorf("demo app not licensed for %d", id)
		}
	}
	un := app(keys.UnlicensedAppKey)
	if un.Archived() || tbl.Licensed(un, keys.UnlicensedBibleID) || !tbl.Licensed(un, 9001) {
		t.Errorf("unlicensed app: archived=%v licensed(%d)=%v licensed(9001)=%v; want false, false, true",
			un.Archived(), keys.UnlicensedBibleID, tbl.Licensed(un, keys.UnlicensedBibleID), tbl.Licensed(un, 9001))
	}
	if !app(keys.ArchivedAppKey).Archived() {
		t.Error("archived key's app is not archived")
	}
}
