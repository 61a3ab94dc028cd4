package dynamic

import (
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

func TestAppValidate(t *testing.T) {
	ok := App{ID: "e5aaf952-2601-4eb8-af08-bc2e48aa31fc", Name: "Reader", WebsiteURL: "https://reader.example",
		CallbackURL: "http://localhost:3000/cb", OrganizationID: "d0d0d0d0-1111-4222-8333-444455556666"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid app: %v", err)
	}
	for name, change := range map[string]func(*App){
		"id":           func(a *App) { a.ID = "reader" },
		"organization": func(a *App) { a.OrganizationID = "acme" },
		"website":      func(a *App) { a.WebsiteURL = "reader.example" },
		"callback":     func(a *App) { a.CallbackURL = "javascript:alert(1)" },
		"fragment":     func(a *App) { a.CallbackURL = "https://reader.example/#x" },
		"rate":         func(a *App) { a.RatePerSecond = -1 },
		"burst":        func(a *App) { a.RateBurst = -1 },
	} {
		a := ok
		change(&a)
		if err := a.Validate(); err == nil {
			t.Errorf("%s: no error for %+v", name, a)
		}
	}
}

func TestAppValidateURLs(t *testing.T) {
	for _, c := range []struct {
		url  string
		want string // part of the error; "" for none
	}{
		{"https://reader.example/cb", ""},
		{"http://localhost:3000/callback", ""},
		{"HTTPS://Reader.Example:8443/a/b-c_d.e~f/%7E?x=1&y=(2)", ""},
		{"http://127.0.0.1:8080/cb", ""},
		{"http://[::1]:8080/cb", ""},
		{"https://reader.example", ""},
		{"http://a.com;frame-ancestors/cb", "not allowed in a DNS name"},
		{"http://a.com/cb;x", `character ';'`},
		{"http://a.com/c'b", `character '\''`},
		{`http://a.com/c"b`, `character '"'`},
		{"http://a.com/c b", `character ' '`},
		{"http://a.com/a,b", `character ','`},
		{"http://*.a.com/cb", "not allowed in a DNS name"},
		{"http://a.com/*", `character '*'`},
		{"https://reader.example/#x", "fragment"},
		{"http://user@a.com/cb", "user information"},
		{"javascript:alert(1)", "absolute http"},
		{"ftp://a.com/cb", "absolute http"},
		{"http:///cb", "no host"},
		{"http://:8080/cb", "no host"},
		{"http://:0]/cb", "no host"},
		{"http://[::1]x/cb", "after the host"},
		{"http://[1.2.3.4]/cb", "IPv6"},
		{"http://a.com:+80/cb", "port"},
		{"http://a.com:99999/cb", "port"},
		{"http://a.com:/cb", "port"},
		{"http://[::1/cb", "unclosed"},
		{"http://[nope]/cb", "IPv6"},
		{"http://a.com/%zz", "hex digits"},
		{"http://a.com/\u202e", "non-ASCII"},
		{"http://a..com/", "DNS name"},
		{"http://-a.com/", "DNS name"},
		{"http://a.com/" + strings.Repeat("a", MaxURLLen), "longer than"},
	} {
		a := App{ID: "e5aaf952-2601-4eb8-af08-bc2e48aa31fc", Name: "Reader", CallbackURL: c.url}
		err := a.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: got %v, want no error", c.url, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v, want an error with %q", c.url, err, c.want)
		}
		if got, want := httpURL(c.url), c.want == ""; got != want {
			t.Errorf("httpURL(%q) = %v, want %v (the consent flow checks as registration does)", c.url, got, want)
		}
	}
}

func TestAppValidateName(t *testing.T) {
	for _, c := range []struct {
		name string
		want string // part of the error; "" for none
	}{
		{"Reader", ""},
		{"Lectura bíblica — 聖書 👩‍💻", ""},
		{strings.Repeat("é", MaxAppNameLen), ""},
		{"", "empty"},
		{"   ", "empty"},
		{strings.Repeat("a", MaxAppNameLen+1), "at most 100"},
		{"Reader\u202egnp.exe", "U+202E"},
		{"Reader\u2066x\u2069", "U+2066"},
		{"Reader\u200f", "U+200F"},
		{"Reader\x00", "U+0000"},
		{"Reader\nApproved", "U+000A"},
		{"Reader\u2028", "U+2028"},
		{"Reader\xff", "UTF-8"},
	} {
		a := App{ID: "e5aaf952-2601-4eb8-af08-bc2e48aa31fc", Name: c.name}
		err := a.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: got %v, want no error", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

func TestAgreementValidate(t *testing.T) {
	for _, c := range []struct {
		a    Agreement
		want bool
	}{
		{Agreement{LicenseID: 1, OrganizationID: "d0d0d0d0-1111-4222-8333-444455556666"}, true},
		{Agreement{LicenseID: 1, DeveloperID: "d0d0d0d0-1111-4222-8333-444455556666"}, true},
		{Agreement{LicenseID: 1}, false},
		{Agreement{LicenseID: 1, DeveloperID: "dev"}, false},
	} {
		if got := c.a.Validate() == nil; got != c.want {
			t.Errorf("%+v: valid %v, want %v", c.a, got, c.want)
		}
	}
}

func TestUUIDs(t *testing.T) {
	a, b := derivedUUID("demo-organization:x"), derivedUUID("demo-organization:x")
	if a != b || !bible.ValidUUID(a) || a[14] != '8' {
		t.Errorf("derived %s, %s", a, b)
	}
}

// Sign-in redirect URIs follow the callback rule of App.Validate, plus a
// native app's own scheme.
func TestCheckRedirectURI(t *testing.T) {
	for _, tt := range []struct {
		uri string
		ok  bool
	}{
		{"https://app.example/callback", true},
		{"http://127.0.0.1:3000/callback", true},
		{"com.example.app:/callback", true},
		{"com.example.app:/callback?from=sign-in", true},
		{"https://app.example/callback?from=sign-in", true},
		{"/callback", false},
		{"https://app.example/callback#x", false},
		{"https:///callback", false},
		{"javascript:alert(1)", false},
		{"data:/x", false},
		{"https://app.example/call back", false},
		{"https://app.example/cb;frame-ancestors", false},
		{"com.example.app://host/callback", false},
		{"com.example.app:callback", false},
		{"Com.Example.App:/callback", false},
		{"com.example.app:/call back", false},
		{"com.example.app:/cb#x", false},
	} {
		if err := CheckRedirectURI(tt.uri); (err == nil) != tt.ok {
			t.Errorf("CheckRedirectURI(%q) = %v, want ok %v", tt.uri, err, tt.ok)
		}
	}
}
