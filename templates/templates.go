// Package templates holds the HTML pages the services render, embedded in
// the binary: the data-exchange approval page and its error page.
package templates

import (
	"embed"
	"html/template"
)

//go:embed *.html
var files embed.FS

// Pages are the parsed templates: "approval.html" (ApprovalPage) and
// "error.html" (ErrorPage).
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
