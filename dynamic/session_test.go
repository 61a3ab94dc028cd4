package dynamic_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/accounts"
)

// account makes sure an account with this id exists (password "correct
// horse battery", email <id>@example.test).
func (e *env) account(id string) accounts.Account {
	e.t.Helper()
	a := accounts.Account{ID: id, Email: id + "@example.test", DisplayName: "User " + id[len(id)-4:],
		PasswordHash: testPasswordHash, CreatedAt: e.clock.Now()}
	if err := e.db.CreateAccount(context.Background(), a); err != nil && !errors.Is(err, dynamic.ErrConflict) {
		e.t.Fatal(err)
	}
	return a
}

const testPassword = "correct horse battery"

var testPasswordHash = accounts.HashPassword(testPassword)

// signedIn is a browser (cookies, no redirects followed) with a session of
// the account id, started as the sign-in form starts one; the form itself
// is tested in signin_test.go.
func (e *env) signedIn(id string) *http.Client {
	e.t.Helper()
	e.account(id)
	sid, hash := accounts.NewSessionID()
	now := e.clock.Now()
	if err := e.db.CreateSession(context.Background(), accounts.Session{Hash: hash, AccountID: id, CreatedAt: now,
		LastSeen: now, ExpiresAt: now.Add(accounts.AbsoluteLifetime)}); err != nil {
		e.t.Fatal(err)
	}
	b := browser()
	u, _ := url.Parse(e.srv.URL())
	b.Jar.SetCookies(u, []*http.Cookie{{Name: "platform_session", Value: sid, Path: "/"}})
	return b
}
