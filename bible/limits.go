package bible

// Caps on what one book may hold. Real Bibles stay far below them (the
// largest book has 150 chapters, Psalm 119 has 176 verses, and the longest
// verse of the five shared Bibles renders to 5.1 KB with its notes, the
// WEB's ESG 8:13); a source beyond them is hostile or broken, and
// importing it would make the build and the edge hold huge objects. Import
// refuses such a book with the place of the first verse or chapter beyond
// the cap.
const (
	MaxChapters   = 1000     // chapters per book, and the largest chapter number
	MaxVerses     = 1000     // verses per chapter
	MaxVerseBytes = 64 << 10 // rendered bytes of one verse (its HTML with notes)
	// MaxBookVerses bounds the verses of one book: Psalms, the longest,
	// has 2,461. A book within the other caps could otherwise hold a
	// million verses, and the build would spend minutes and gigabytes on
	// it before refusing it.
	MaxBookVerses = 10000
)
