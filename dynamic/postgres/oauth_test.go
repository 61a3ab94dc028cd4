package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/oauth"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// PurgeOAuth forgets authorization requests older than a day before its
// time, keeps newer ones, and its other statements run too (each of them
// compares a column with its time parameter).
func TestPurgeOAuth(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	newApp(t, db)
	now := time.Now().UTC().Truncate(time.Second)
	req := func(age time.Duration) string {
		r := oauth.AuthRequest{ID: bible.NewUUID(), AppID: appID, ClientID: "key", RedirectURI: "https://app.example/cb",
			State: "s", Nonce: "n", Scopes: []string{"openid"}, ResponseType: "code", ResponseMode: "query",
			CodeChallenge: "c", CodeChallengeMethod: "S256", RequestedPermissions: []string{}, CreatedAt: now.Add(-age)}
		if err := db.CreateAuthRequest(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	old, recent := req(49*time.Hour), req(time.Hour)
	if err := db.PurgeOAuth(ctx, now); err != nil {
		t.Fatalf("PurgeOAuth: %v", err)
	}
	for _, tt := range []struct {
		name, id string
		want     error
	}{
		{"a request two days old", old, dynamic.ErrNotFound},
		{"a request an hour old", recent, nil},
	} {
		if _, err := db.AuthRequest(ctx, tt.id); !errors.Is(err, tt.want) {
			t.Errorf("%s after purge: %v, want %v", tt.name, err, tt.want)
		}
	}
}
