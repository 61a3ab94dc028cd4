package postgres_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

const (
	appID = "6f1d7c0e-2a4b-4c51-9e0a-1b2c3d4e5f60"
	orgID = "0a0b0c0d-1111-4222-8333-444455556666"
	user  = "9d3e2b1a-0000-4000-8000-00000000c0de"
)

func newApp(t *testing.T, db *postgres.DB) {
	t.Helper()
	err := db.CreateApp(context.Background(), dynamic.App{ID: appID, Name: "Reader", Status: "live",
		OrganizationID: orgID, CallbackURL: "https://reader.example/cb", RatePerSecond: 10, RateBurst: 20})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMigrateTwice(t *testing.T) {
	db := pgtest.New(t)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
}

func TestErrorsTranslated(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	newApp(t, db)
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"duplicate app", db.CreateApp(ctx, dynamic.App{ID: appID, Name: "x", Status: "live"}), dynamic.ErrConflict},
		{"bad status", db.CreateApp(ctx, dynamic.App{ID: orgID, Name: "x", Status: "gone"}), dynamic.ErrUnacceptable},
		{"unknown app status", db.SetAppStatus(ctx, orgID, "archived"), dynamic.ErrNotFound},
		{"key for unknown app", func() error { _, err := db.AddKey(ctx, orgID, make([]byte, 32), ""); return err }(), dynamic.ErrNotFound},
		{"unknown key", db.RevokeKey(ctx, 12345, time.Now()), dynamic.ErrNotFound},
		{"unknown app", func() error { _, err := db.App(ctx, orgID); return err }(), dynamic.ErrNotFound},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.err, tt.want)
		}
	}
}

func TestAccessDataAndVersion(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	v0, err := db.AccessVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	notified := make(chan int64, 16)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan struct{})
	go db.ListenAccess(lctx, func() { close(ready) }, func(v int64) { notified <- v })
	<-ready

	newApp(t, db)
	h1 := sha256.Sum256([]byte("key-one"))
	h2 := sha256.Sum256([]byte("key-two"))
	k1, err := db.AddKey(ctx, appID, h1[:], "key-")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddKey(ctx, appID, h2[:], "key-"); err != nil {
		t.Fatal(err)
	}
	if err := db.Agree(ctx, dynamic.Agreement{LicenseID: 2, OrganizationID: orgID, AgreedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeKey(ctx, k1, time.Now()); err != nil {
		t.Fatal(err)
	}
	d, err := db.AccessData(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d.Version <= v0 {
		t.Errorf("version %d after writes, was %d", d.Version, v0)
	}
	if len(d.Apps) != 1 {
		t.Fatalf("got %d apps, want 1", len(d.Apps))
	}
	a := d.Apps[0]
	if got, want := a.KeyHashes, []string{hexOf(h2[:])}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("active keys: got %v, want %v", got, want)
	}
	if len(a.Licenses) != 1 || a.Licenses[0] != 2 {
		t.Errorf("licences: got %v, want [2]", a.Licenses)
	}
	select {
	case v := <-notified:
		if v <= v0 {
			t.Errorf("notified version %d, want > %d", v, v0)
		}
	case <-time.After(5 * time.Second):
		t.Error("no notification after a write")
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestConcurrentHighlightLeavesOneRow(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	const n = 50
	outcomes := make([]dynamic.HighlightOutcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := dynamic.HighlightRequest{UserID: user, RequestID: uuidN(i), BibleID: 9001,
				Verses: []string{"JHN.3.16"}, Color: "ffcc00"}
			out, err := db.CreateHighlights(ctx, req)
			if err != nil {
				t.Error(err)
			}
			outcomes[i] = out
		}()
	}
	wg.Wait()
	created := 0
	for _, out := range outcomes {
		if out.Changed {
			created++
		}
	}
	if created != 1 {
		t.Errorf("%d creations changed something, want 1", created)
	}
	hs, err := db.Highlights(ctx, user, 9001, []string{"JHN.3.15", "JHN.3.16", "JHN.3.17"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0] != (dynamic.Highlight{BibleID: 9001, PassageID: "JHN.3.16", Color: "ffcc00"}) {
		t.Errorf("got %+v, want one highlight on JHN.3.16", hs)
	}
}

// TestHighlightRetryReturnsFirstOutcome: a retry is told what the first
// attempt did, not what applying the request again would do (nothing).
func TestHighlightRetryReturnsFirstOutcome(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	req := dynamic.HighlightRequest{UserID: user, RequestID: uuidN(1), BibleID: 9001,
		Verses: []string{"JHN.3.16", "JHN.3.17"}, Color: "aabbcc"}
	for _, attempt := range []string{"first", "retry"} {
		got, err := db.CreateHighlights(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if want := (dynamic.HighlightOutcome{Changed: true}); got != want {
			t.Errorf("%s: got %+v, want %+v", attempt, got, want)
		}
	}
	// The same highlight under a new id changes nothing, and says so.
	req.RequestID = uuidN(2)
	if got, err := db.CreateHighlights(ctx, req); err != nil || got.Changed {
		t.Errorf("same highlight, new id: got %+v, %v, want unchanged", got, err)
	}
	// The same id with another colour is not a retry: refused, and
	// nothing changes either.
	req.RequestID, req.Color = uuidN(1), "000000"
	if _, err := db.CreateHighlights(ctx, req); !errors.Is(err, dynamic.ErrRequestReused) {
		t.Errorf("reused request id: %v, want ErrRequestReused", err)
	}
	hs, _ := db.Highlights(ctx, user, 9001, []string{"JHN.3.16"})
	if len(hs) != 1 || hs[0].Color != "aabbcc" {
		t.Errorf("after retry: got %+v, want colour aabbcc", hs)
	}
}

func TestConsumeTokenOnce(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	newApp(t, db)
	now := time.Now().UTC().Truncate(time.Microsecond)
	hash := sha256.Sum256([]byte("tok"))
	tok := dynamic.ExchangeToken{Hash: hash[:], AppID: appID, UserID: user, Permissions: []string{"highlights"},
		CreatedAt: now, ExpiresAt: now.Add(300 * time.Second)}
	if err := db.CreateExchangeToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.ConsumeExchangeToken(ctx, hash[:], now.Add(time.Second), true)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, dynamic.ErrTokenUsed):
			t.Errorf("got %v, want ErrTokenUsed", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d consumptions succeeded, want 1", ok)
	}
	perms, err := db.Grants(ctx, user, appID)
	if err != nil || len(perms) != 1 || perms[0] != "highlights" {
		t.Errorf("grants: got %v %v, want [highlights]", perms, err)
	}

	late := sha256.Sum256([]byte("late"))
	tok.Hash = late[:]
	if err := db.CreateExchangeToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ConsumeExchangeToken(ctx, late[:], now.Add(301*time.Second), true); !errors.Is(err, dynamic.ErrTokenExpired) {
		t.Errorf("expired token: got %v, want ErrTokenExpired", err)
	}
	missing := sha256.Sum256([]byte("missing"))
	if _, err := db.ConsumeExchangeToken(ctx, missing[:], now, true); !errors.Is(err, dynamic.ErrNotFound) {
		t.Errorf("unknown token: got %v, want ErrNotFound", err)
	}
}

func uuidN(i int) string {
	const digits = "0123456789abcdef"
	b := []byte("00000000-0000-4000-8000-000000000000")
	for p := len(b) - 1; i > 0; p-- {
		b[p] = digits[i%16]
		i /= 16
	}
	return string(b)
}
