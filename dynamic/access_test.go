package dynamic_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/dynamic"
)

func (e *env) snapshot(version int64) (resp, *access.Snapshot) {
	e.t.Helper()
	path := "/internal/access"
	if version >= 0 {
		path += fmt.Sprintf("?version=%d", version)
	}
	r := e.do(req{method: "GET", path: path, app: "-"})
	if r.status != 200 {
		return r, nil
	}
	s, err := access.Decode(r.body)
	if err != nil {
		e.t.Fatal(err)
	}
	return r, s
}

func appIn(s *access.Snapshot, id string) *access.App {
	for i := range s.Apps {
		if s.Apps[i].ID == id {
			return &s.Apps[i]
		}
	}
	return nil
}

func TestAccessRequiresEdgeToken(t *testing.T) {
	e := newEnv(t)
	for _, tok := range []string{"-", "wrong", edgeToken + "x"} {
		r := e.do(req{method: "GET", path: "/internal/access", edge: tok, app: "-"})
		if r.status != 401 {
			t.Errorf("edge token %q: status %d, want 401", tok, r.status)
		}
		var f struct {
			Fault struct {
				Detail struct {
					Errorcode string `json:"errorcode"`
				} `json:"detail"`
			} `json:"fault"`
		}
		r.json(t, &f)
		if f.Fault.Detail.Errorcode == "" {
			t.Errorf("edge token %q: body %s is not a fault envelope", tok, r.body)
		}
		for k := range r.header {
			if len(k) > 15 && k[:15] == "Access-Control-" {
				t.Errorf("401 carries %s", k)
			}
		}
	}
	// A forged app id without the edge's token is refused too.
	if r := e.do(req{method: "GET", path: "/v1/apps/" + appID, edge: "-"}); r.status != 401 {
		t.Errorf("app route without edge token: %d, want 401", r.status)
	}
}

func TestAccessSnapshotFollowsChanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, s := e.snapshot(-1)
	if s == nil {
		t.Fatal("no snapshot")
	}
	if got, want := fmt.Sprint(s.OpenBibles), "[9001]"; got != want {
		t.Errorf("open bibles %s, want %s", got, want)
	}
	a := appIn(s, appID)
	if a == nil || len(a.Bibles) != 0 || len(a.KeyHashes) != 0 || a.RateLimit != (access.Rate{PerSecond: 5, Burst: 10}) ||
		a.Status != "live" || a.OrganizationID != orgID {
		t.Fatalf("app before changes: %+v", a)
	}

	// Each change wakes a long poll at once with a newer version.
	key := "demo-key-1"
	sum := sha256.Sum256([]byte(key))
	changes := []struct {
		name  string
		do    func() error
		check func(*access.App) bool
	}{
		{"issue a key", func() error { _, err := e.db.AddKey(ctx, appID, sum[:], "demo"); return err },
			func(a *access.App) bool { return len(a.KeyHashes) == 1 && a.KeyHashes[0] == hex.EncodeToString(sum[:]) }},
		{"agree to licence 2", func() error {
			return e.db.Agree(ctx, dynamic.Agreement{LicenseID: 2, OrganizationID: orgID, AgreedAt: time.Now()})
		}, func(a *access.App) bool { return fmt.Sprint(a.Bibles) == "[9002 9003]" }},
		{"revoke the key", func() error { return e.db.RevokeKeyHash(ctx, sum[:], time.Now()) },
			func(a *access.App) bool { return len(a.KeyHashes) == 0 }},
		{"archive the app", func() error { return e.db.SetAppStatus(ctx, appID, "archived") },
			func(a *access.App) bool { return a.Status == "archived" }},
	}
	version := s.Version
	for _, c := range changes {
		done := make(chan struct{})
		var r resp
		var got *access.Snapshot
		start := time.Now()
		go func() { defer close(done); r, got = e.snapshot(version) }()
		time.Sleep(100 * time.Millisecond) // let the poll start waiting
		if err := c.do(); err != nil {
			t.Fatal(err)
		}
		<-done
		if got == nil {
			t.Fatalf("%s: long poll answered %d", c.name, r.status)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", c.name, d)
		}
		if got.Version <= version {
			t.Errorf("%s: version %d, want > %d", c.name, got.Version, version)
		}
		if a := appIn(got, appID); a == nil || !c.check(a) {
			t.Errorf("%s: app now %+v", c.name, a)
		}
		version = got.Version
	}
}

func TestAccessLongPollTimesOut(t *testing.T) {
	e := newEnv(t)
	// A short long-poll server on the same database.
	srv := dynamic.New(dynamic.Config{DB: e.db, Store: e.store, EdgeToken: edgeToken, LongPoll: 300 * time.Millisecond})
	if err := srv.Open(context.Background(), "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, s := e.snapshot(-1)
	e2 := *e
	e2.srv = srv
	start := time.Now()
	r := e2.do(req{method: "GET", path: fmt.Sprintf("/internal/access?version=%d", s.Version), app: "-"})
	if r.status != 304 || len(r.body) != 0 {
		t.Errorf("unchanged: %d %q, want 304 and no body", r.status, r.body)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("answered after %v, want a wait", d)
	}
	if r := e2.do(req{method: "GET", path: "/internal/access?version=x", app: "-"}); r.status != 422 {
		t.Errorf("bad version: %d, want 422", r.status)
	}
	// Versions live in the database: a second server starts where the
	// first is, never lower.
	if _, s2 := e2.snapshot(0); s2 == nil || s2.Version < s.Version {
		t.Errorf("second server's version %v, first %d", s2, s.Version)
	}
}

func TestAccessFollowsNewBuild(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.db.Agree(ctx, dynamic.Agreement{LicenseID: 2, OrganizationID: orgID, AgreedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	_, s := e.snapshot(-1)
	if cur, _ := e.store.Current(ctx); s.Build == "" || s.Build != cur {
		t.Fatalf("the snapshot names build %q, the store's current is %q", s.Build, cur)
	}
	first := s.Build
	// Licence 2 now also covers 9001, and licence 1 is no longer open.
	lics := []dynamic.License{testLicenses[0], testLicenses[1]}
	lics[0].Open = false
	lics[1].BibleIDs = []int32{9001, 9002, 9003}
	publishContent(t, e.store, lics)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r, got := e.snapshot(s.Version)
		if got == nil {
			t.Fatalf("long poll: %d", r.status)
		}
		if a := appIn(got, appID); fmt.Sprint(a.Bibles) == "[9001 9002 9003]" && len(got.OpenBibles) == 0 {
			// Edges compare it with the build they serve.
			if got.Build == first {
				t.Errorf("the snapshot of the new build still names the old one, %s", first)
			}
			return
		}
		s = got
	}
	t.Error("the snapshot did not follow the new build")
}
