package bible

// Bible is a version's metadata, as the API returns it (no text).
type Bible struct {
	ID                 int32  `json:"id"`
	Abbreviation       string `json:"abbreviation"`
	PromotionalContent string `json:"promotional_content"`
	Copyright          string `json:"copyright"`
	Info               string `json:"info"`
	// PublisherURL is null when the publisher has no page. The spec allows
	// "" too, but the official JS client refuses it (its schema is a
	// nullable URL) and the live service answers null (README).
	PublisherURL          *string  `json:"publisher_url"`
	LanguageTag           string   `json:"language_tag"`
	LocalizedAbbreviation string   `json:"localized_abbreviation"`
	LocalizedTitle        string   `json:"localized_title"`
	Title                 string   `json:"title"`
	Books                 []BookID `json:"books"`
	PlatformDeepLink      string   `json:"platform_deep_link"`
	OrganizationID        *string  `json:"organization_id"`
	// Versification names how the Bible numbers its verses: a standard
	// Paratext scheme (org, eng, lxx, vul, rsc, rso) or custom
	// (docs/versification.md).
	Versification string `json:"versification"`
}

// Index is the structure of one Bible: its books, chapters and verses.
type Index struct {
	TextDirection string `json:"text_direction"` // "ltr" or "rtl"
	Books         []Book `json:"books"`
}

// Book is one book of a Bible with its chapters. A book without an
// introduction has no intro key at all (DESIGN.md).
type Book struct {
	ID           BookID    `json:"id"`
	Title        string    `json:"title"`
	FullTitle    string    `json:"full_title"`
	Abbreviation string    `json:"abbreviation"`
	Canon        Canon     `json:"canon"`
	Chapters     []Chapter `json:"chapters"`
	Intro        *Intro    `json:"intro,omitempty"`
}

// Chapter is one chapter of a book. ID is a string: most are numbers, a few
// are not (PS2's "1_1", published as "151").
type Chapter struct {
	ID        string  `json:"id"`
	PassageID string  `json:"passage_id"`
	Title     string  `json:"title"`
	Verses    []Verse `json:"verses"`
}

// Verse is one verse of a chapter. A source verse range (\v 15-16, a
// bridge) is one verse whose id is the range's first number, as the live
// service indexes it, and whose End is its last.
type Verse struct {
	ID        string `json:"id"`
	PassageID string `json:"passage_id"`
	Title     string `json:"title"`
	// End is the last number of a bridge ("16" of \v 15-16), "" for a
	// verse of one number. It is not part of the API's Verse object: a
	// build keeps it in the internal entries Bridges and SetBridges read
	// and write, beside the index the API serves.
	End string `json:"-"`
}

// Intro points at a book's introduction passage (GEN.INTRO).
type Intro struct {
	ID        string `json:"id"`
	PassageID string `json:"passage_id"`
	Title     string `json:"title"`
}

// Passage is rendered text of a passage.
type Passage struct {
	ID        string `json:"id"`
	Content   string `json:"content"`
	Reference string `json:"reference"`
}

// Book returns the book with the given id, or nil.
func (x *Index) Book(id BookID) *Book {
	for i := range x.Books {
		if x.Books[i].ID == id {
			return &x.Books[i]
		}
	}
	return nil
}

// Chapter returns the chapter with the given id, or nil.
func (b *Book) Chapter(id string) *Chapter {
	for i := range b.Chapters {
		if b.Chapters[i].ID == id {
			return &b.Chapters[i]
		}
	}
	return nil
}

// VerseIndex returns the position of verse id in c, or -1.
func (c *Chapter) VerseIndex(id string) int {
	for i := range c.Verses {
		if c.Verses[i].ID == id {
			return i
		}
	}
	return -1
}
