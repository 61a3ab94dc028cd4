package acceptance

import "regexp"

// The spec's field tables ("Resources and their fields"), as schemas. A
// field the spec marks "if available", "if provided" or "present if" is
// optional; a field whose table says "required" is required. Where a table
// says nothing, the field is required for the resources our content always
// has (Bible, Book, Chapter, Verse, Passage, Index) and optional otherwise.

var (
	s       = tString{}
	i32     = tInt{}
	uuid    = tString{re: uuidRE}
	anyURL  = tString{check: isURL}
	bookID  = tString{re: regexp.MustCompile(`^[0-9A-Z]{3}$`)}
	langTag = tString{re: regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)}

	// USFM chapter and verse references: <BOOK>.<chapter>[.<verse>].
	chapterRef = tString{re: regexp.MustCompile(`^[0-9A-Z]{3}\.[0-9A-Za-z_]{1,7}$`)}
	verseRef   = tString{re: regexp.MustCompile(`^[0-9A-Z]{3}\.[0-9A-Za-z_]{1,7}\.[0-9A-Za-z_]{1,7}$`)}
	shortID    = tString{re: regexp.MustCompile(`^.{1,7}$`)}

	colour = tString{re: regexp.MustCompile(`^[0-9a-f]{6}$`)}

	// Language ids: language, language+script, or one of six region
	// variants (spec, Language.id).
	languageID = tString{re: regexp.MustCompile(`^[a-z]{2,3}(-[A-Z][a-z]{3})?$|^(es-419|es-ES|pt-BR|pt-PT|zh-Hant-HK|zh-Hant-TW)$`)}
	scriptCode = tString{re: regexp.MustCompile(`^[A-Z][a-z]{3}$`)}
)

// publisherURL is a link, or null when the publisher has none. The spec
// also allows "", which the official client refuses; rule
// edge/bible.publisher-url holds us to null (README).
var publisherURL = tNullable{tString{check: isURL}}

var bibleSchema = tObject{req: map[string]schema{
	"id":                     i32,
	"abbreviation":           s,
	"promotional_content":    s,
	"copyright":              s,
	"info":                   s,
	"publisher_url":          publisherURL,
	"language_tag":           langTag,
	"localized_abbreviation": s,
	"localized_title":        s,
	"title":                  s,
	"books":                  tArray{of: bookID},
	"platform_deep_link":     anyURL,
	"organization_id":        tNullable{uuid},
}, opt: map[string]schema{
	// Beyond the spec: the single Bible carries it; the collection's
	// items will once the catalogue lists it.
	"versification": tString{enum: []string{"org", "eng", "lxx", "vul", "rsc", "rso", "custom"}},
}}

var verseSchema = tObject{req: map[string]schema{
	"id": shortID, "passage_id": verseRef, "title": s,
}}

var chapterSchema = tObject{req: map[string]schema{
	"id": shortID, "passage_id": chapterRef, "title": s, "verses": tArray{of: verseSchema},
}}

var introSchema = tObject{req: map[string]schema{"id": s, "passage_id": s, "title": s}}

var bookSchema = tObject{
	req: map[string]schema{
		"id":       bookID,
		"title":    s,
		"canon":    tString{enum: []string{"new_testament", "old_testament", "deuterocanon"}},
		"chapters": tArray{of: chapterSchema},
	},
	opt: map[string]schema{
		"full_title":   s,
		"abbreviation": s,
		"intro":        tNullable{introSchema},
	},
}

var indexSchema = tObject{req: map[string]schema{
	"text_direction": tString{enum: []string{"ltr", "rtl"}},
	"books":          tArray{of: bookSchema},
}}

var passageSchema = tObject{req: map[string]schema{"id": s, "content": s, "reference": s}}

var highlightSchema = tObject{req: map[string]schema{
	"bible_id": i32, "passage_id": verseRef, "color": colour,
}}

var fontSchema = tObject{req: map[string]schema{
	"id":     i32,
	"slug":   tString{re: regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)},
	"family": s,
	"variants": tArray{min: 1, of: tObject{req: map[string]schema{
		"weight": i32,
		"style":  s,
		"sources": tArray{min: 1, of: tObject{req: map[string]schema{
			"format": s, "url": anyURL,
		}}},
	}}},
}}

var licenseSchema = tObject{
	req: map[string]schema{
		"id":              tInt{wide: true},
		"name":            s,
		"version":         tInt{wide: true},
		"organization_id": uuid,
		"html":            s,
		"bible_ids":       tArray{of: tInt{wide: true}},
		"uri":             anyURL,
	},
	opt: map[string]schema{
		"agreed_dt":   tString{check: isTimestamp},
		"svc_user_id": uuid,
	},
}

var placePart = tObject{req: map[string]schema{"short_name": s, "long_name": s}}

var organizationSchema = tObject{
	req: map[string]schema{"id": uuid, "name": s},
	opt: map[string]schema{
		"parent_organization_id": tNullable{uuid},
		"description":            s,
		"email":                  tNullable{s},
		"phone":                  tNullable{s},
		"primary_language":       s,
		"website_url":            s,
		"address": tObject{opt: map[string]schema{
			"formatted_address":           s,
			"formatted_locality":          s,
			"place_id":                    s,
			"latitude":                    tNumber{},
			"longitude":                   tNumber{},
			"administrative_area_level_1": placePart,
			"locality":                    placePart,
			"country":                     placePart,
		}},
	},
}

var languageSchema = tObject{
	req: map[string]schema{
		"id":       languageID,
		"language": tString{re: regexp.MustCompile(`^[a-z]{2,3}$`)},
	},
	opt: map[string]schema{
		"script":              tNullable{scriptCode},
		"script_name":         tNullable{s},
		"aliases":             tArray{of: s},
		"display_names":       tMap{of: s},
		"localized_name":      tNullable{s},
		"scripts":             tArray{of: scriptCode},
		"variants":            tArray{of: s},
		"countries":           tArray{of: s},
		"text_direction":      tString{enum: []string{"ltr", "rtl"}},
		"writing_population":  i32,
		"speaking_population": i32,
		"default_bible_id":    i32,
	},
}

var appSchema = tObject{
	req: map[string]schema{"app_id": uuid, "name": s},
	opt: map[string]schema{
		"description": s,
		"website_url": s,
		"status":      tString{enum: []string{"development", "live", "archived"}},
	},
}

var permissionsSchema = tObject{req: map[string]schema{
	"permissions": tArray{of: tString{enum: []string{"highlights"}}},
}}

var exchangeTokenSchema = tObject{req: map[string]schema{
	"token":      s,
	"token_type": tString{enum: []string{"data_exchange"}},
	"expires_in": i32,
}}

// collection is the envelope: data, and where paginated next_page_token and
// (Bibles, languages, organization Bibles) total_size.
func collection(of schema, paged, total bool) tObject {
	c := tObject{req: map[string]schema{"data": tArray{of: of}}, opt: map[string]schema{}}
	if paged {
		c.opt["next_page_token"] = s
	}
	if total {
		c.req["total_size"] = i32
	}
	return c
}

// Error bodies (spec, Errors: "Body shapes differ by layer").
var (
	messageSchema = tObject{req: map[string]schema{"message": s}, open: true}
	detailSchema  = tObject{req: map[string]schema{"detail": tArray{min: 1, of: tObject{
		req:  map[string]schema{"loc": tArray{min: 1, of: tAny{s, tInt{wide: true}}}, "msg": s},
		opt:  map[string]schema{"type": s},
		open: true,
	}}}, open: true}
	faultSchema = tObject{req: map[string]schema{"fault": tObject{
		req: map[string]schema{
			"faultstring": s,
			"detail":      tObject{req: map[string]schema{"errorcode": s}, open: true},
		},
		open: true,
	}}, open: true}
)

// votdSchema is the verse of the day as DESIGN.md names it ({day,
// passage_id}); the spec leaves its fields out.
var votdSchema = tObject{req: map[string]schema{
	"day": i32, "passage_id": verseRef,
}}
