package publish

import "encoding/json"

// The site pack (Manifest.Site) holds the catalogues that are not one
// Bible's. Its entries are JSON arrays of the types below (organizations and
// fonts as the content directory writes them), read by the edge and by
// dynamic.
const (
	NameOrganizations = "organizations"
	NameLicenses      = "licenses"
	NameFonts         = "fonts"
	// NameVerseOfDays is {"data": [VerseOfTheDay…]}, by day.
	NameVerseOfDays = "verse_of_the_days"
	// NameCatalogBibles is an internal entry, [CatalogBible…] by id: every
	// Bible object of the build with its licence, so that the edge lists
	// and filters Bibles (/v1/bibles) without opening every Bible's pack.
	NameCatalogBibles = "catalog/bibles"
)

// CatalogBible is one element of NameCatalogBibles: the Bible object its
// own pack holds, and its licence.
type CatalogBible struct {
	LicenseID int             `json:"license_id"`
	Bible     json.RawMessage `json:"bible"`
}

// License is a published licence: the spec's License without the
// agreement fields (dynamic adds those), plus whether it is open.
type License struct {
	ID             int     `json:"id"`
	Name           string  `json:"name"`
	Version        int     `json:"version"`
	OrganizationID string  `json:"organization_id"`
	HTML           string  `json:"html"`
	BibleIDs       []int32 `json:"bible_ids"` // every Bible offered under the licence
	URI            string  `json:"uri"`
	// Open licences need no agreement: every app may read their Bibles.
	Open bool `json:"open"`
}

// VerseOfTheDay is one day of the calendar.
type VerseOfTheDay struct {
	Day       int    `json:"day"` // 1..366
	PassageID string `json:"passage_id"`
}
