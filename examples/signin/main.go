// Command signin is a small web app that signs its users in with the
// platform, the way an app developer would: the OAuth 2.0 authorization
// code flow with PKCE (S256) against the platform's /auth/authorize, asking
// for the highlights permission, then the code exchanged at /auth/token,
// a highlight written with the access token, and the tokens refreshed.
// docs/sign-in.md explains each step; `make run` starts this app.
//
//	signin --platform http://127.0.0.1:8080 --app-key KEY \
//	       --redirect-uri http://127.0.0.1:8082/callback --listen 127.0.0.1:8082
//
// The redirect URI must be registered for the app, exactly
// (dynamic apps redirect-uris --app APP_ID --set URI).
package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

var (
	listen   = flag.String("listen", "127.0.0.1:8082", "address to serve the app on")
	platform = flag.String("platform", "http://127.0.0.1:8080", "the platform's base URL (the edge)")
	appKey   = flag.String("app-key", "", "the app's App Key: its client_id")
	redirect = flag.String("redirect-uri", "http://127.0.0.1:8082/callback", "this app's callback, registered for the app")
	bibleID  = flag.Int("bible", 9001, "the Bible the example highlights a verse of")
	passage  = flag.String("passage", "", "the verse to highlight (default: the Bible's first verse, from its index)")
)

// session is one browser's state in this app, by a random cookie.
type session struct {
	// Before the callback: what /login sent, checked when the platform
	// sends the browser back.
	state, verifier, nonce string
	// After: the user and the tokens.
	name, email, sub string
	access, refresh  string
	expires          time.Time
	csrf             string
	note             string
}

var (
	mu       sync.Mutex
	sessions = map[string]*session{}
)

func random() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// current is the browser's session, created with its cookie if missing.
func current(w http.ResponseWriter, r *http.Request) *session {
	mu.Lock()
	defer mu.Unlock()
	if c, err := r.Cookie("example_session"); err == nil {
		if s, ok := sessions[c.Value]; ok {
			return s
		}
	}
	id := random()
	s := &session{csrf: random()}
	sessions[id] = s
	http.SetCookie(w, &http.Cookie{Name: "example_session", Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	return s
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in example</title></head>
<body>
<h1>Sign-in example</h1>
{{if .Note}}<p role="status">{{.Note}}</p>{{end}}
{{if .Sub}}
<p>Signed in as <strong>{{.Name}}</strong> ({{.Email}}), user id {{.Sub}}. The access token expires at {{.Expires}}.</p>
<form method="post" action="/highlight"><input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit">Highlight the first verse</button></form>
<form method="post" action="/refresh"><input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit">Refresh the tokens</button></form>
{{else}}
<p><a id="sign-in" href="/login">Sign in with the platform</a> (asks for your highlights)</p>
{{end}}
</body></html>`))

func home(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	s := current(w, r)
	mu.Lock()
	data := struct {
		Name, Email, Sub, CSRF, Note string
		Expires                      string
	}{s.name, s.email, s.sub, s.csrf, s.note, s.expires.Format(time.RFC3339)}
	s.note = ""
	mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	page.Execute(w, data)
}

// login starts the flow: a fresh PKCE verifier, state and nonce, kept in
// the session, and the browser sent to the platform.
func login(w http.ResponseWriter, r *http.Request) {
	s := current(w, r)
	mu.Lock()
	s.state, s.verifier, s.nonce = random(), random(), random()
	sum := sha256.Sum256([]byte(s.verifier))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {*appKey},
		"redirect_uri":          {*redirect},
		"scope":                 {"openid profile email"},
		"state":                 {s.state},
		"nonce":                 {s.nonce},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"requested_permissions": {"highlights"},
	}
	mu.Unlock()
	http.Redirect(w, r, *platform+"/auth/authorize?"+q.Encode(), http.StatusFound)
}

// tokenResponse is the token endpoint's answer (RFC 6749 §5.1, §5.2).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int    `json:"expires_in"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

func tokenRequest(form url.Values) (*tokenResponse, error) {
	res, err := http.PostForm(*platform+"/auth/token", form)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var t tokenResponse
	if err := json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&t); err != nil {
		return nil, fmt.Errorf("token endpoint: %s: %w", res.Status, err)
	}
	if t.Error != "" {
		return nil, fmt.Errorf("token endpoint: %s: %s", t.Error, t.Description)
	}
	return &t, nil
}

// claims reads a JWT's claims. The ID token came straight from the token
// endpoint over the connection this app opened, so its signature need not
// be checked here (OpenID Connect Core §3.1.3.7); anything that receives
// a token from elsewhere verifies it with the JWKS.
func claims(jwt string) map[string]any {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil
	}
	var c map[string]any
	json.Unmarshal(b, &c)
	return c
}

// callback receives the code (or an error), checks state, exchanges the
// code with the verifier and checks the ID token's nonce.
func callback(w http.ResponseWriter, r *http.Request) {
	s := current(w, r)
	q := r.URL.Query()
	mu.Lock()
	state, verifier, nonce := s.state, s.verifier, s.nonce
	s.state, s.verifier = "", "" // one use
	mu.Unlock()
	if state == "" || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
		http.Error(w, "This sign-in was not started here (state does not match). Start again from the home page.", http.StatusBadRequest)
		return
	}
	if e := q.Get("error"); e != "" {
		note(s, "Sign-in did not complete: "+e+" "+q.Get("error_description"))
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	t, err := tokenRequest(url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")},
		"redirect_uri": {*redirect}, "client_id": {*appKey}, "code_verifier": {verifier}})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	c := claims(t.IDToken)
	if c == nil || c["nonce"] != nonce {
		http.Error(w, "The ID token's nonce does not match this sign-in.", http.StatusBadGateway)
		return
	}
	mu.Lock()
	s.name, _ = c["name"].(string)
	s.email, _ = c["email"].(string)
	s.sub, _ = c["sub"].(string)
	s.access, s.refresh, s.expires = t.AccessToken, t.RefreshToken, time.Now().Add(time.Duration(t.ExpiresIn)*time.Second)
	s.note = "Signed in; granted permissions: " + q.Get("granted_permissions")
	mu.Unlock()
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func note(s *session, msg string) {
	mu.Lock()
	s.note = msg
	mu.Unlock()
}

// signedInPost checks a form of the signed-in page and returns the session.
func signedInPost(w http.ResponseWriter, r *http.Request) (*session, bool) {
	s := current(w, r)
	mu.Lock()
	ok := r.Method == http.MethodPost && s.sub != "" && subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.csrf)) == 1
	mu.Unlock()
	if !ok {
		http.Error(w, "Sign in first, from the home page.", http.StatusBadRequest)
	}
	return s, ok
}

// refresh exchanges the refresh token for new tokens; the old refresh
// token is spent (presenting it again would revoke every token of this
// sign-in).
func refresh(w http.ResponseWriter, r *http.Request) {
	s, ok := signedInPost(w, r)
	if !ok {
		return
	}
	mu.Lock()
	rt := s.refresh
	mu.Unlock()
	t, err := tokenRequest(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {*appKey}})
	if err != nil {
		note(s, "Refresh failed: "+err.Error())
	} else {
		mu.Lock()
		s.access, s.refresh, s.expires = t.AccessToken, t.RefreshToken, time.Now().Add(time.Duration(t.ExpiresIn)*time.Second)
		s.note = "Tokens refreshed."
		mu.Unlock()
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// api calls the platform's API with the App Key and the user's token.
func api(method, path, token string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, *platform+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-SVC-App-Key", *appKey)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, b, err
}

// highlight writes a highlight on the Bible's first verse.
func highlight(w http.ResponseWriter, r *http.Request) {
	s, ok := signedInPost(w, r)
	if !ok {
		return
	}
	mu.Lock()
	token := s.access
	mu.Unlock()
	verse, err := firstVerse()
	if err != nil {
		note(s, err.Error())
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	body, _ := json.Marshal(map[string]any{"request_id": uuid(),
		"highlight": map[string]any{"bible_id": *bibleID, "passage_id": verse, "color": "fde68a"}})
	status, b, err := api("POST", "/v1/highlights", token, body)
	if err != nil {
		note(s, "Highlight failed: "+err.Error())
	} else {
		note(s, fmt.Sprintf("POST /v1/highlights (%s): %d %s", verse, status, bytes.TrimSpace(b)))
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// firstVerse is --passage, or the Bible's first verse from its index.
func firstVerse() (string, error) {
	if *passage != "" {
		return *passage, nil
	}
	status, b, err := api("GET", fmt.Sprintf("/v1/bibles/%d/index", *bibleID), "", nil)
	var idx struct {
		Books []struct {
			Chapters []struct {
				Verses []struct {
					PassageID string `json:"passage_id"`
				} `json:"verses"`
			} `json:"chapters"`
		} `json:"books"`
	}
	if err != nil || status != 200 || json.Unmarshal(b, &idx) != nil || len(idx.Books) == 0 ||
		len(idx.Books[0].Chapters) == 0 || len(idx.Books[0].Chapters[0].Verses) == 0 {
		return "", fmt.Errorf("could not read Bible %d's index: %d %v", *bibleID, status, err)
	}
	return idx.Books[0].Chapters[0].Verses[0].PassageID, nil
}

func uuid() string {
	var b [16]byte
	rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func main() {
	flag.Parse()
	if *appKey == "" {
		log.Fatal("--app-key is required (make run prints the demo App Key)")
	}
	http.HandleFunc("/", home)
	http.HandleFunc("/login", login)
	http.HandleFunc("/callback", callback)
	http.HandleFunc("/refresh", refresh)
	http.HandleFunc("/highlight", highlight)
	log.Printf("sign-in example on http://%s/ (platform %s)", *listen, *platform)
	srv := &http.Server{Addr: *listen, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
