// Package lang is the language catalogue behind the API's Language resource:
// canonical language ids and their redirects, display names in every CLDR
// locale, populations, the prominent languages of a country, Accept-Language
// negotiation and RFC 4647 filtering of language_ranges[].
//
// The data is generated from pinned Unicode CLDR JSON releases by
// ./internal/gen (`make languages`) and embedded; see docs/languages.md.
// Parsing and canonicalisation of tags at run time use
// golang.org/x/text/language, corrected by the newer CLDR alias table
// shipped with the data.
//
// Catalogue ids are a language subtag, a language and a script that CLDR
// distinguishes and that is not the language's default (sr-Latn, zh-Hant),
// or one of the region variants es-419, es-ES, pt-BR, pt-PT, zh-Hant-HK and
// zh-Hant-TW.
package lang
