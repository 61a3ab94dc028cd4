// Package versification maps verse numbers between the numbering schemes
// Bibles use (Paratext versifications): English Bibles put "Create in me a
// clean heart" at Psalm 51:10, the Hebrew Bible at 51:12, because it counts
// the psalm's title as verses 1–2.
//
// A Scheme is read from a Paratext .vrs file (ParseVRS): the last verse of
// every chapter, and mapping lines that name, for a verse or a run of
// verses of the scheme, the verses of the original numbering (org, the
// hub) that hold the same text. Map answers a verse, a range or a chapter
// of one scheme in another by going through the hub; a verse that is
// several verses in the other numbering (a title counted as verses, a
// merged or a split verse) answers all of them, as runs of consecutive
// verses.
//
// The six standard schemes (org, eng, lxx, vul, rsc, rso) are compiled
// from SIL's libpalaso .vrs files (MIT; data/LICENSE-libpalaso) into
// standard_data.go by ./internal/gen; Standard returns them. A Bible's own
// scheme is compiled at build time with Encode into its published objects
// and read back with Decode, so that nothing parses .vrs at request time.
//
// The package depends on the standard library and package bible only.
package versification
