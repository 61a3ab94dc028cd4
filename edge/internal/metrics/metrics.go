// Package metrics holds the edge's request figures: route classes, the
// statuses counted, counters that the hot path only adds to (sharded where
// every request adds), the request latency histograms, and their export in
// the Prometheus text format beside the Go runtime's collectors.
package metrics

import (
	"strconv"
	"sync/atomic"
)

// Counter is a counter written by few requests (errors, evictions).
type Counter struct{ atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.Add(1) }

// Class groups requests for metrics and logs.
type Class uint8

const (
	ClassOther Class = iota // unknown paths, redirects
	ClassBible
	ClassIndex
	ClassBooks
	ClassBook
	ClassChapters
	ClassChapter
	ClassVerses
	ClassVerse
	ClassPassage
	ClassPassageRange
	ClassGateway
	ClassOps
	ClassSearch
	// The catalogue's route families (docs/catalogue.md): answers composed
	// on request, whose cost the Bibles routes' classes do not show.
	ClassBibles        // the /v1/bibles collection
	ClassLanguages     // /v1/languages and one language
	ClassOrganizations // /v1/organizations, one, and its Bibles
	ClassFonts         // /v1/fonts, one font and its stylesheet
	ClassFontFiles     // the font files themselves
	ClassVOTD          // /v1/verse-of-the-days (and its alias) and one day
	ClassDev           // the OpenAPI document and the reader page
	NumClasses
)

var classNames = [NumClasses]string{"other", "bible", "index", "books", "book", "chapters",
	"chapter", "verses", "verse", "passage", "passage_range", "gateway", "ops", "search",
	"bibles", "languages", "organizations", "fonts", "font_files", "votd", "dev"}

func (c Class) String() string { return classNames[c] }

// statuses the edge produces; anything else is counted as "other".
var statusCodes = [...]int{200, 204, 206, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405,
	409, 412, 413, 416, 422, 429, 500, 502, 503, 504}

const NumStatus = len(statusCodes) + 1

func StatusIndex(code int) int {
	for i, c := range statusCodes {
		if c == code {
			return i
		}
	}
	return len(statusCodes)
}

// StatusLabel is the code label of status index i.
func StatusLabel(i int) string {
	if i < len(statusCodes) {
		return strconv.Itoa(statusCodes[i])
	}
	return "other"
}
