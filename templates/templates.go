// Package templates holds the HTML pages the services render, embedded in
// the binary: the data-exchange approval page and its error page,
// and the platform's sign-in pages.
package templates

import (
	"embed"
	"html/template"
)

//go:embed *.html
var files embed.FS

// Pages are the parsed templates: "approval.html" (ApprovalPage),
// "error.html" (ErrorPage), "signin.html" (SignInPage), "signup.html"
// (SignUpPage), "account.html" (AccountPage), "continue.html"
// (ContinuePage) and "switch.html" (SwitchPage).
var Pages = template.Must(template.ParseFS(files, "*.html"))

// ApprovalPage is what the approval page shows.
type ApprovalPage struct {
	Nonce       string // CSP nonce of the inline stylesheet
	AppName     string
	AppWebsite  string // "" when the app has none
	Permissions []Permission
	Action      string // the form's target, relative to the page
	CSRF        string
}

// Permission is one permission the app asks for.
type Permission struct {
	Name        string
	Description string
}

// ErrorPage explains why the flow cannot go on.
type ErrorPage struct {
	Nonce   string
	Title   string
	Message string
}

// SignInPage is the sign-in form.
type SignInPage struct {
	Nonce     string
	Action    string
	CSRF      string
	Return    string // where to go once signed in (a path on this origin)
	AppName   string // the app the sign-in is for, "" when none
	Email     string
	Problem   string // why the last attempt failed
	Notice    string
	SignUpURL string
	// PasskeyCSRF is the passkey button's csrf value ("" hides it).
	PasskeyCSRF string
}

// SignUpPage is the account creation form.
type SignUpPage struct {
	Nonce       string
	Action      string
	CSRF        string
	Return      string
	AppName     string
	DisplayName string
	Email       string
	Problem     string
	MinPassword int
	SignInURL   string
}

// AccountPage shows who is signed in, with the sign-out buttons.
type AccountPage struct {
	Nonce string
	CSRF  string
	Name  string
	Email string
	// PasskeyCSRF is the "add a passkey" button's csrf value.
	PasskeyCSRF string
}

// ContinuePage is the explicit step of a sign-in for an app: the
// permissions asked for, or a plain continue.
type ContinuePage struct {
	Nonce        string
	Action       string
	CSRF         string
	AppName      string
	AccountName  string
	AccountEmail string
	Permissions  []Permission
	SwitchCSRF   string // the "use another account" form's (a sign-out)
	Return       string // where that form comes back to
}

// SwitchPage says that a request is for another account than the one
// signed in, and offers to sign in with another.
type SwitchPage struct {
	Nonce        string
	CSRF         string
	AppName      string
	AccountName  string
	AccountEmail string
	Return       string
}
