package dynamic_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
	"github.com/bibleplatform/platform/publish"
)

const (
	edgeToken = "edge-secret-for-tests"
	appID     = "5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a01"
	otherApp  = "5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a02"
	orgID     = "e5aaf952-2601-4eb8-af08-bc2e48aa31fc"
	userID    = "7a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3"
	otherUser = "7a1b2c3d-4e5f-4a6b-8c7d-000000000002"
	developer = "d0d0d0d0-1111-4222-8333-444455556666"
	issuer    = "https://id.test"
	audience  = "bible-platform"
)

// clock is an injectable clock the tests move forward.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type env struct {
	t     *testing.T
	db    *postgres.DB
	dbURL string
	users *jwt.Verifier // verifies what token signs
	store *publish.Dir
	srv   *dynamic.Server
	clock *clock
	key   ed25519.PrivateKey
}

// testIndex is a small Bible: GEN 1 (1-3), JHN 3 (16-18), JHN 4 (1-2).
func testIndex() bible.Index {
	verses := func(book, ch string, ids ...string) bible.Chapter {
		c := bible.Chapter{ID: ch, PassageID: book + "." + ch, Title: ch}
		for _, v := range ids {
			c.Verses = append(c.Verses, bible.Verse{ID: v, PassageID: book + "." + ch + "." + v, Title: v})
		}
		return c
	}
	return bible.Index{TextDirection: "ltr", Books: []bible.Book{
		{ID: "GEN", Title: "Genesis", Canon: bible.Canon("old_testament"), Chapters: []bible.Chapter{verses("GEN", "1", "1", "2", "3")}},
		{ID: "JHN", Title: "John", Canon: bible.Canon("new_testament"), Chapters: []bible.Chapter{
			verses("JHN", "3", "16", "17", "18"), verses("JHN", "4", "1", "2")}},
	}}
}

var testLicenses = []dynamic.License{
	{ID: 1, Name: "Open", Version: 1, OrganizationID: "e88fbc6b-9864-482f-a534-0f2e0251faeb",
		HTML: "<p>Open text</p>", BibleIDs: []int32{9001}, URI: "https://open.example/1", Open: true},
	{ID: 2, Name: "Reader Licence", Version: 3, OrganizationID: orgID,
		HTML: "<p>Reader text</p>", BibleIDs: []int32{9002, 9003}, URI: "https://reader.example/3"},
}

// publishContent writes a build with Bibles 9001-9003 and the licences,
// as the build does: packs, a manifest, then the current pointer.
func publishContent(t *testing.T, store publish.Store, lics []dynamic.License) {
	t.Helper()
	ctx := context.Background()
	enc := publish.NewEncoder()
	put := func(w *publish.PackWriter) publish.PackRef {
		b := w.Bytes(enc)
		key := w.Key()
		if err := store.Put(ctx, key, b); err != nil {
			t.Fatal(err)
		}
		return publish.PackRef{Key: key, Size: int64(len(b))}
	}
	m := &publish.Manifest{Created: time.Now()}
	idx, _ := json.Marshal(testIndex())
	for _, id := range []int32{9001, 9002, 9003} {
		w := publish.NewPackWriter()
		w.Add(publish.NameIndex, publish.JSON, idx)
		m.Bibles = append(m.Bibles, publish.BibleEntry{ID: id, Pack: put(w)})
	}
	w := publish.NewPackWriter()
	lb, _ := json.Marshal(lics)
	w.Add("licenses", publish.JSON, lb)
	ref := put(w)
	m.Site = &ref
	mb, _ := json.Marshal(m)
	build := m.BuildID()
	if err := store.Put(ctx, publish.ManifestKey(build), mb); err != nil {
		t.Fatal(err)
	}
	if err := store.SetCurrent(ctx, build); err != nil {
		t.Fatal(err)
	}
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	dbURL := pgtest.URL(t)
	db, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	publishContent(t, store, testLicenses)
	for _, a := range []dynamic.App{
		{ID: appID, Name: "Demo Reader", Description: "Reads", WebsiteURL: "https://reader.example",
			Status: "live", OrganizationID: orgID, CallbackURL: "https://reader.example/callback?from=dx", RatePerSecond: 5, RateBurst: 10},
		{ID: otherApp, Name: "Other", Status: "development", CallbackURL: "https://other.example/cb"},
	} {
		if err := db.CreateApp(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	pem, _ := jwt.EncodePublicPEM(pub)
	keys, err := jwt.ParsePEM(pem)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Now()}
	users := &jwt.Verifier{Keys: keys, Issuer: issuer, Audience: audience}
	srv := dynamic.New(dynamic.Config{DB: db, Store: store, EdgeToken: edgeToken, Now: c.Now, Users: users,
		Accounts: db, OAuth: db, Colors: db, Passkeys: db, Portal: db, Staff: db})
	if err := srv.Open(ctx, "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &env{t: t, db: db, dbURL: dbURL, users: users, store: store, srv: srv, clock: c, key: key}
}

func (e *env) token(user string) string {
	tok, err := jwt.Sign(e.key, "", jwt.Claims{Subject: user, Issuer: issuer, Audience: []string{audience},
		ExpiresAt: e.clock.Now().Add(time.Hour), IssuedAt: e.clock.Now()})
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

func (e *env) grant(user, app string) {
	if err := e.db.Grant(context.Background(), user, app, []string{"highlights"}, time.Now()); err != nil {
		e.t.Fatal(err)
	}
}

// req describes one request as the edge forwards it.
type req struct {
	method, path, body string
	app                string // X-Verified-App-Id; "-" for none
	user               string // bearer token's subject; "" for none
	bearer             string // raw Authorization value, overrides user
	edge               string // X-Edge-Token; "" for the right one, "-" for none
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
}

func (e *env) do(q req) resp {
	e.t.Helper()
	return e.doWith(http.DefaultClient, q)
}

func (e *env) doWith(c *http.Client, q req) resp {
	e.t.Helper()
	var body io.Reader
	if q.body != "" {
		body = strings.NewReader(q.body)
	}
	r, err := http.NewRequest(q.method, e.srv.URL()+q.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	switch q.edge {
	case "":
		r.Header.Set("X-Edge-Token", edgeToken)
	case "-":
	default:
		r.Header.Set("X-Edge-Token", q.edge)
	}
	switch q.app {
	case "":
		r.Header.Set("X-Verified-App-Id", appID)
	case "-":
	default:
		r.Header.Set("X-Verified-App-Id", q.app)
	}
	if q.bearer != "" {
		r.Header.Set("Authorization", q.bearer)
	} else if q.user != "" {
		r.Header.Set("Authorization", "Bearer "+e.token(q.user))
	}
	if strings.HasPrefix(q.body, "{") {
		r.Header.Set("Content-Type", "application/json")
	} else if q.body != "" {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, b}
}

// browser is a client that keeps cookies and does not follow redirects.
func browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// plainServer opens a server on a fresh database (its URL returned too)
// and a store holding publishContent's build, configured as cfg says
// besides; for tests that need the server's configuration or database
// beyond what newEnv sets up.
func plainServer(t *testing.T, cfg dynamic.Config) (srv *dynamic.Server, dbURL string, store *publish.Dir) {
	t.Helper()
	ctx := context.Background()
	dbURL = pgtest.URL(t)
	db, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if store, err = publish.OpenDir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	publishContent(t, store, testLicenses)
	cfg.DB, cfg.Store, cfg.EdgeToken = db, store, edgeToken
	srv = dynamic.New(cfg)
	if err := srv.Open(ctx, "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, dbURL, store
}
