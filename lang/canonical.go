package lang

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/text/language"
)

var (
	// ErrMalformed is wrapped by Canonical's error for an id that is not a
	// well-formed BCP 47 tag (RFC 5646 §2.1).
	ErrMalformed = errors.New("not a well-formed language tag")
	// ErrUnknown is wrapped by Canonical's error for a well-formed tag that
	// names no language in the catalogue.
	ErrUnknown = errors.New("no such language")
)

// maxTagLen bounds the work spent on an id from a URL. Real tags are far
// shorter; RFC 5646 §4.4.1 only asks implementations to handle 35
// characters without extensions.
const maxTagLen = 256

// Canonical returns the catalogue id for a requested language id, following
// the API's id rules: case is normalised; legacy, deprecated and ISO
// 639-2/3 codes become their replacement (iw → he, tl → fil, por → pt);
// variants and extensions are dropped; a region is dropped unless the
// result is one of the region variants (es-419, es-ES, pt-BR, pt-PT,
// zh-Hant-HK, zh-Hant-TW); and a script is dropped when it is the
// language's default (zh-Hans → zh, sr-Cyrl → sr). A region also implies a
// script before it is dropped (zh-TW → zh-Hant-TW, zh-MO → zh-Hant,
// sr-ME → sr-Latn). The caller redirects whenever the result differs from
// the request, even by case only.
func Canonical(id string) (string, error) {
	return data().canonical(id)
}

func (c *catalogue) canonical(id string) (string, error) {
	if id == "" || len(id) > maxTagLen {
		return "", fmt.Errorf("lang: %q: %w", id, ErrMalformed)
	}
	// language.Parse applies BCP 47 deprecated mappings and CLDR's legacy
	// ones (iw → he, tl → fil, sh → sr-Latn) and folds ISO 639-2/3 codes
	// onto their ISO 639-1 form (por → pt). Its macrolanguage option is not
	// used: x/text folds nb into no, which CLDR (and the catalogue) keep
	// apart; the CLDR alias table below covers cmn → zh and the like.
	t, err := language.Parse(id)
	if err != nil {
		return "", fmt.Errorf("lang: %q: %w", id, ErrMalformed)
	}
	b, conf := t.Base()
	if conf != language.Exact {
		// "und", private use (x-…): language.Base guesses, we do not.
		return "", fmt.Errorf("lang: %q: %w", id, ErrUnknown)
	}
	base := b.String()
	script, region := "", ""
	if s, conf := t.Script(); conf == language.Exact {
		script = s.String()
	}
	if r, conf := t.Region(); conf == language.Exact {
		region = r.String()
	}

	// The data's CLDR alias table can be newer than x/text's (cnr →
	// sr-ME). A replacement's script or region applies only where the
	// request had none. Aliases do not chain in CLDR, but bound the loop
	// anyway.
	for range 3 {
		repl, ok := c.aliases[base]
		if !ok {
			break
		}
		parts := strings.Split(repl, "-")
		base = parts[0]
		for _, p := range parts[1:] {
			switch {
			case len(p) == 4 && script == "":
				script = p
			case len(p) != 4 && region == "":
				region = p
			}
		}
	}

	implied := false
	if script == "" && region != "" {
		// A region implies a script (CLDR likely subtags): Chinese in
		// Taiwan is written in Traditional characters.
		script, implied = c.regionScripts[base+"-"+region], true
	}
	if script == c.defaults[base] {
		script = ""
	}
	canon := base
	if script != "" {
		canon += "-" + script
	}
	if region != "" {
		if _, ok := c.byID[canon+"-"+region]; ok {
			return canon + "-" + region, nil
		}
	}
	if _, ok := c.byID[canon]; ok {
		return canon, nil
	}
	if implied {
		if _, ok := c.byID[base]; ok {
			return base, nil
		}
	}
	return "", fmt.Errorf("lang: %q: %w", id, ErrUnknown)
}
