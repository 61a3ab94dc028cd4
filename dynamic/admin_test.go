package dynamic

import (
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
