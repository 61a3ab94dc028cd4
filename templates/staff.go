package templates

import "time"

// StaffPage is "staff.html", the operator's staff page (docs/portal.md):
// every organization's apps, with the forms that move an app between
// development and live. It shows the portal's header and problem line.
type StaffPage struct {
	PortalPage
	Filter  string   // the status listed, or "all"
	Filters []string // the statuses the page can list
	Apps    []StaffApp
	More    bool // more apps match than are listed
}

// StaffApp is one app on the staff page.
type StaffApp struct {
	ID, Name, Status             string
	Organization, OrganizationID string // "" when the app has none
	Website, UseCase             string
	RegisteredBy                 string // "" for an app the operator made
	Created                      time.Time
	MoveTo                       string // the status its form moves it to; "" for none
}
