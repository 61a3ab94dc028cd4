// Package portal holds the developer portal's organizations, their members
// and invitations, and the rules of app registration that need no HTTP: the
// storage role (Store) and the checks on what the forms give. The pages are
// dynamic's; apps, keys and agreements are stored through dynamic's DB, so
// the access snapshot the edges follow sees them (docs/portal.md).
package portal

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Role is what a member may do: an owner manages members, apps, keys and
// licence agreements; a developer sees them.
type Role string

// The roles.
const (
	Owner     Role = "owner"
	Developer Role = "developer"
)

// ParseRole reads a role from a form; anything else is not a role.
func ParseRole(s string) (Role, bool) {
	switch r := Role(s); r {
	case Owner, Developer:
		return r, true
	}
	return "", false
}

// Organization is a licensee: the party apps belong to and licences are
// agreed for.
type Organization struct {
	ID        string
	Name      string
	CreatedAt time.Time
}

// Membership is an account's place in one organization.
type Membership struct {
	Organization
	Role Role
}

// Member is one member of an organization.
type Member struct {
	AccountID   string
	Email       string
	DisplayName string
	Role        Role
	JoinedAt    time.Time
}

// Invitation is an owner's invitation of an email address into an
// organization, stored by the hash of the token its link carries (made
// and hashed as a session id is: accounts.NewSessionID).
type Invitation struct {
	Hash             []byte
	OrganizationID   string
	OrganizationName string // filled in by lookups
	EmailKey         string // accounts.EmailKey of the invited address
	Role             Role
	InvitedBy        string
	CreatedAt        time.Time
	ExpiresAt        time.Time
	AcceptedAt       *time.Time
}

// InvitationLifetime is how long an invitation link can be accepted.
const InvitationLifetime = 7 * 24 * time.Hour

// Registration is an app registered on the portal: the apps row, its
// sign-in callback URLs and what only the portal records, stored together.
type Registration struct {
	AppID          string
	OrganizationID string
	Name           string
	Description    string
	WebsiteURL     string
	UseCase        string
	CallbackURLs   []string
	// ConsentCallback is the apps row's callback_url (the data-exchange
	// flow's): the first http(s) callback URL, or "".
	ConsentCallback string
	RegisteredBy    string
	At              time.Time
}

// App is an organization's app as the portal lists it.
type App struct {
	ID             string
	OrganizationID string
	Name           string
	Description    string
	WebsiteURL     string
	UseCase        string
	Status         string
	CallbackURLs   []string
	CreatedAt      time.Time
}

// Agreement is an organization's agreement to a licence: who agreed, when.
type Agreement struct {
	LicenseID int
	AccountID string // the spec's svc_user_id
	AgreedAt  time.Time
}

// Store is the storage the portal needs. dynamic/postgres implements it.
// Lookups of something absent return an error wrapping dynamic's
// ErrNotFound; a database that cannot be reached, dynamic's ErrUnavailable.
type Store interface {
	// CreateOrganization stores an organization with owner as its owner.
	CreateOrganization(ctx context.Context, o Organization, owner string) error
	// Memberships lists the organizations an account belongs to, by name.
	Memberships(ctx context.Context, accountID string) ([]Membership, error)
	// Membership is an account's membership of one organization; not a
	// member wraps ErrNotFound.
	Membership(ctx context.Context, orgID, accountID string) (*Membership, error)
	// Members lists an organization's members, owners first.
	Members(ctx context.Context, orgID string) ([]Member, error)
	// RemoveMember removes a member, unless it would leave the
	// organization without an owner (ErrLastOwner); in one transaction
	// that locks the organization's members, so two owners removing each
	// other cannot both succeed.
	RemoveMember(ctx context.Context, orgID, accountID string) error

	CreateInvitation(ctx context.Context, inv Invitation) error
	// Invitation finds an invitation by hash, with its organization's
	// name.
	Invitation(ctx context.Context, hash []byte) (*Invitation, error)
	// AcceptInvitation makes accountID a member with the invitation's
	// role and marks it accepted, once: an invitation accepted or expired
	// by now wraps ErrNotFound; an account already a member keeps its
	// role.
	AcceptInvitation(ctx context.Context, hash []byte, accountID string, now time.Time) error

	// RegisterApp stores a new app in development, its callback URLs and
	// its registration, in one transaction.
	RegisterApp(ctx context.Context, r Registration) error
	// OrganizationApps lists an organization's apps, newest first.
	OrganizationApps(ctx context.Context, orgID string) ([]App, error)
	// PortalApp finds one app with what its registration recorded.
	PortalApp(ctx context.Context, appID string) (*App, error)

	// OrganizationAgreements lists an organization's licence agreements:
	// the first one per licence.
	OrganizationAgreements(ctx context.Context, orgID string) ([]Agreement, error)
	// Withdraw removes an organization's agreement to a licence (nothing
	// when there is none).
	Withdraw(ctx context.Context, orgID string, licenseID int) error
}

// Problem is a reason a form cannot be taken, worded for the person who
// filled it in (pages show it as it is).
type Problem string

func (p Problem) Error() string { return string(p) }

// Limits on what the forms take.
const (
	MaxName         = 100
	MaxDescription  = 2000
	MaxUseCase      = 2000
	MaxURL          = 2000
	MaxCallbackURLs = 10
	// MaxActiveKeys is how many unrevoked keys an app may have: one in
	// use and one to rotate to.
	MaxActiveKeys = 2
	// MaxOrganizations is how many organizations one account may belong
	// to, and MaxApps how many apps one organization may register: far
	// beyond real use, they bound what one account can make the database
	// hold.
	MaxOrganizations = 20
	MaxApps          = 50
)

// Problems with what a form gave.
const (
	ErrOrgName      Problem = "Enter an organization name of at most 100 characters."
	ErrAppName      Problem = "Enter an app name of at most 100 characters."
	ErrDescription  Problem = "Enter a description of at most 2000 characters."
	ErrUseCase      Problem = "Say what the app will do with the Bibles (its use case), in at most 2000 characters."
	ErrWebsite      Problem = "Enter the website as an absolute http or https address, such as https://example.com, or leave it empty."
	ErrManyCallback Problem = "Enter at most 10 callback URLs."
	ErrLastOwner    Problem = "An organization needs an owner: invite another owner before removing the last one."
	ErrRole         Problem = "Choose the role owner or developer."
	ErrTooManyKeys  Problem = "The app has two keys already: revoke one before creating another."
	ErrArchived     Problem = "The app is archived: nothing about it can change any more."
	ErrManyOrgs     Problem = "You are in 20 organizations already, the most an account can be in."
	ErrManyApps     Problem = "The organization has 50 apps already, the most it can register. Archived apps count."
)

// text checks one line or paragraph a form gave: valid UTF-8, at most max
// characters, and (when required) not empty after trimming.
func text(s string, max int, required bool) bool {
	s = strings.TrimSpace(s)
	return utf8.ValidString(s) && utf8.RuneCountInString(s) <= max && (s != "" || !required) &&
		!strings.ContainsRune(s, 0)
}

// CheckOrganizationName checks an organization's name.
func CheckOrganizationName(name string) error {
	if !text(name, MaxName, true) || strings.ContainsAny(name, "\r\n") {
		return ErrOrgName
	}
	return nil
}

// AppForm is what the registration form gives, trimmed.
type AppForm struct {
	Name, Description, WebsiteURL, UseCase string
	CallbackURLs                           []string
}

// ParseAppForm checks the registration form's fields. Callback URLs come
// one a line and are checked by checkCallback: the caller passes
// dynamic.CheckRedirectURI, the rule every sign-in callback is held to
// (this package is below dynamic and cannot name it). The website's rule is dynamic.App.Validate,
// which the caller applies to the app it builds.
func ParseAppForm(name, description, website, useCase, callbacks string, checkCallback func(string) error) (AppForm, error) {
	f := AppForm{Name: strings.TrimSpace(name), Description: strings.TrimSpace(description),
		WebsiteURL: strings.TrimSpace(website), UseCase: strings.TrimSpace(useCase)}
	switch {
	case !text(f.Name, MaxName, true) || strings.ContainsAny(f.Name, "\r\n"):
		return f, ErrAppName
	case !text(f.Description, MaxDescription, false):
		return f, ErrDescription
	case !text(f.UseCase, MaxUseCase, true):
		return f, ErrUseCase
	case len(f.WebsiteURL) > MaxURL:
		return f, ErrWebsite
	}
	for _, line := range strings.Split(callbacks, "\n") {
		u := strings.TrimSpace(line)
		if u == "" {
			continue
		}
		if len(f.CallbackURLs) == MaxCallbackURLs {
			return f, ErrManyCallback
		}
		if len(u) > MaxURL {
			return f, Problem("A callback URL is longer than 2000 characters.")
		}
		if err := checkCallback(u); err != nil {
			return f, Problem(fmt.Sprintf("Callback URL not accepted: %v.", err))
		}
		f.CallbackURLs = append(f.CallbackURLs, u)
	}
	return f, nil
}
