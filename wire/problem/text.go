package problem

import (
	"errors"
	"strconv"

	"github.com/bibleplatform/platform/bible"
)

// The texts of particular mistakes, by subject. A text that names the
// request's own values is a function of them; nothing here is built from
// an error's text.

// Requests neither service could read (wire.UnreadRequest), and routes.
const (
	TooLarge         Text = "The request body is larger than 64 KiB, the most any route takes."
	HeadersTooLarge  Text = "The request's headers are too large."
	RequestTimeout   Text = "The request did not arrive in time."
	NotHTTP          Text = "The request is not valid HTTP/1.1."
	NoRoute          Text = "Not found: no such route."
	UseHTTPS         Text = "Use HTTPS."
	HostNotAHostName Text = "The Host header is not a host name."
	// Starting: a service that has not loaded what it serves yet (the edge
	// before its first build or access snapshot).
	Starting        Text = "This edge is starting and has no content yet; retry shortly."
	CatalogueDown   Text = "The catalogue is temporarily unavailable; retry shortly."
	NoDynamic       Text = "This route is served by the dynamic service, which is not configured on this edge yet."
	NoReaderKey     Text = "This edge has no reader key; the page asks for an App Key."
	AssetNotFound   Text = "Asset not found."
	PassageNotFound Text = "Passage not found."
	// VerseNotFound is the edge's verse route's 404, which cannot name
	// the verse as bible.MissingError does: the text is handed to the
	// lookup before it is known to be needed, and the route's success
	// must not allocate.
	VerseNotFound    Text = "Verse not found."
	FontNotFound     Text = "Font not found."
	FontFileNotFound Text = "Font file not found."
	OrgNotFound      Text = "Organization not found."
	LanguageNotFound Text = "Language not found."
	NoVOTDCalendar   Text = "No verse-of-the-day calendar is published."
	NoSuchDay        Text = "No such day: days are 1 to 366, written without sign or leading zero."
	// Page tokens (next_page_token).
	PageTokenForged Text = "The page_token is not one this service issued; use next_page_token from the previous page as it is."
	PageTokenStale  Text = "The page_token belongs to another query or to content that has since been republished; start again without page_token."
)

// Apps, keys and users.
const (
	AppArchived        Text = "The app is archived."
	AppUnknown         Text = "The app is unknown."
	OwnPermissionsOnly Text = "An app may only read its own permissions."
	BearerRequired     Text = "A user bearer token is required (Authorization: Bearer …)."
	NoCallbackURL      Text = "The app has no registered callback URL."
	FirstPartyOnly     Text = "Only apps the platform's operator marks first-party may grant permissions " +
		"with the user's bearer token alone; every other app asks the user on the approval page: create a token with " +
		"POST /data-exchange/token and open GET /data-exchange?token=… in the user's browser."
	// The 429 bodies (text/plain, so they end with a newline).
	TooManyByKey  Text = "Too many requests: this App Key's allowance is used up; retry after the number of seconds in Retry-After.\n"
	TooManyByID   Text = "Too many requests: requests that name the app only by its id are limited per client address; retry after the number of seconds in Retry-After.\n"
	TooManyByAddr Text = "Too many requests from this address; retry after the number of seconds in Retry-After.\n"
)

// Highlights and passkeys.
const (
	IntroNotHighlightable Text = "An introduction cannot be highlighted: give a verse or a range of verses."
	ChapterNotHighlight   Text = "Give a verse or a range of verses, not a whole chapter."
	HighlightExists       Text = "The user already has this highlight."
	PasskeysOff           Text = "Passkeys are not available."
	PageExpired           Text = "The page had expired; reload it and try again."
	PasskeyExpired        Text = "The passkey request had expired; try again."
	SignInFirst           Text = "Sign in first."
	PasskeyUnverified     Text = "The passkey could not be verified."
	PasskeyRefused        Text = "The passkey was not accepted."
)

// The server-rendered pages' texts that more than one page shows.
const (
	FormExpired     Text = "The form had expired. Please try again."
	PageFailedTitle Text = "Something went wrong"
	PageFailed      Text = "The request could not be completed. Please try again later."
)

// NotLicensed: the app may not read Bible id (spec: the 403 names the
// refused Bible).
func NotLicensed(id int32) Text {
	return Text("This app is not licensed for Bible " + strconv.Itoa(int(id)) + ".")
}

// BibleNotFound: no Bible id is published. BiblePathNotFound says it of
// an id as the path spells it (a signed or zero id names no Bible).
func BibleNotFound(id int32) Text { return BiblePathNotFound(strconv.Itoa(int(id))) }

func BiblePathNotFound(id string) Text { return Text("Bible " + id + " is not published.") }

// NoSearchIndex: Bible id is published without its search index.
func NoSearchIndex(id int32) Text {
	return Text("Bible " + strconv.Itoa(int(id)) + " has no search index yet.")
}

// BookNotFound and ChapterNotFound: the Bible has no such book, or the
// book no such chapter, said as bible.MissingError says it.
func BookNotFound(book bible.BookID) Text {
	return Text((&bible.MissingError{Book: book}).Message())
}

func ChapterNotFound(book bible.BookID, chapter string) Text {
	return Text((&bible.MissingError{Book: book, Chapter: chapter}).Message())
}

// NoVerseOfDay: the calendar has no entry for day.
func NoVerseOfDay(day int) Text {
	return Text("No verse of the day for day " + strconv.Itoa(day) + "; days are 1 to 366.")
}

// RangeTooLong: a passage range longer than the most one answer holds.
func RangeTooLong(r bible.Ref, n, max int) Text {
	return Text("The passage range " + r.String() + " spans " + strconv.Itoa(n) + " verses; at most " +
		strconv.Itoa(max) + " can be requested at once.")
}

// BadLanguageRange: a language_ranges[] value with characters a range
// cannot hold (spec, Errors: 400).
func BadLanguageRange(r string) Text {
	return Text("The language range " + strconv.Quote(r) + " may hold only letters, digits, hyphens and *.")
}

// BadSearchRange: a language_ranges[] value of search that is not "*"
// nor a range as the clients check it
// (^[A-Za-z]{1,8}(-[0-9A-Za-z]{1,8})*$).
func BadSearchRange(r string) Text {
	return Text("The language range " + strconv.Quote(r) + " should be * or letters, then parts of letters and digits after hyphens, as en or zh-Hant-TW.")
}

// CanonicalLanguage is the body of the redirect to a language's canonical
// id.
func CanonicalLanguage(id string) Text {
	return Text("The canonical id of this language is " + id + ".")
}

// NoApp: no app has id.
func NoApp(id string) Text { return Text("No app has the id " + id + ".") }

// NotGranted: the user has not granted perm to the calling app.
func NotGranted(perm string) Text {
	return Text("The user has not granted the " + perm + " permission to this app.")
}

// InternalRef is the 500 text that names the failure's id in the log.
func InternalRef(id string) Text { return Text("Internal error (request " + id + ").") }

// Passage is the answer to a passage that a Bible's index refused
// (bible.Book.Span, or a book the index does not have): a missing book,
// chapter or verse is 404, a range running backwards 400, each in the
// words of its bible error. ok is false for any other error.
func Passage(err error) (p *Problem, ok bool) {
	var missing *bible.MissingError
	var back *bible.BackwardsError
	switch {
	case errors.As(err, &missing):
		return New(NotFound, Text(missing.Message())), true
	case errors.As(err, &back):
		return New(Unacceptable, Text(back.Message())), true
	}
	return nil, false
}
