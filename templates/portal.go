package templates

import (
	"html/template"
	"time"
)

// PortalPage is every page of the developer portal (docs/portal.md):
// "portal-home.html", "portal-org.html", "portal-newapp.html",
// "portal-app.html", "portal-key.html", "portal-invited.html",
// "portal-join.html", "portal-licenses.html" and "portal-error.html". Each uses the fields it
// needs.
type PortalPage struct {
	Nonce   string
	CSRF    string // every form's (bound to the signed-in account)
	Account string // display name of the signed-in account
	Problem string // why the last form was not taken; nothing changed
	Notice  string

	Title, Message string // portal-error: why the request was refused

	Orgs  []PortalOrg // portal-home
	Org   PortalOrg
	Owner bool // the account owns Org: the forms that change it are shown

	Members []PortalMember
	Apps    []PortalApp
	App     PortalApp
	Keys    []PortalKey
	Form    PortalAppForm // the registration form's values, kept on a problem

	Licenses []PortalLicense

	NewKey string // the key, shown once
	Curl   string // the first request to make with it

	InviteLink  string
	InviteEmail string
	InviteRole  string
}

// PortalOrg is an organization and the account's role in it.
type PortalOrg struct {
	ID, Name, Role string
}

// PortalMember is one member of an organization.
type PortalMember struct {
	AccountID, Name, Email, Role string
	Self                         bool
}

// PortalApp is one app.
type PortalApp struct {
	ID, Name, Description, Website, UseCase, Status string
	CallbackURLs                                    []string
	Created                                         time.Time
}

// PortalKey is one App Key, by its first characters.
type PortalKey struct {
	ID      int64
	Hint    string
	Created time.Time
	Revoked *time.Time
}

// PortalAppForm is what the registration form was given.
type PortalAppForm struct {
	Name, Description, Website, UseCase, Callbacks string
}

// PortalLicense is one licence with the organization's agreement.
type PortalLicense struct {
	ID       int
	Name     string
	Version  int
	Open     bool
	Text     template.HTML // the published licence text
	Bibles   []int32
	AgreedAt *time.Time
	AgreedBy string
}
