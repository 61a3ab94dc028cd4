package usfm

import "strings"

// norm applies the USFM text rules to raw source text: a run of spaces,
// tabs and line breaks is one space, '~' is a no-break space (U+00A0) and
// '//' (an optional line break) is dropped. Text that needs no change is
// returned as is, without copying.
func norm(raw string) string {
	clean := true
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '\n', '\r', '\t', '~':
			clean = false
		case ' ':
			if i+1 < len(raw) && isSpace(raw[i+1]) {
				clean = false
			}
		case '/':
			if i+1 < len(raw) && raw[i+1] == '/' {
				clean = false
			}
		}
		if !clean {
			break
		}
	}
	if clean {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw))
	space := false // a space is pending
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case isSpace(c):
			space = true
			continue
		case c == '/' && i+1 < len(raw) && raw[i+1] == '/':
			i++
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if c == '~' {
			b.WriteString("\u00A0")
		} else {
			b.WriteByte(c)
		}
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// parseAttrs parses a USFM 3 attribute list (the text after '|'):
// name="value" pairs, or a lone value for the marker's default attribute
// def. It returns what it could parse and a message when the list is
// malformed.
func parseAttrs(raw, def string) (map[string]string, string) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, "empty attribute list"
	}
	if !strings.Contains(s, "=") {
		if def == "" {
			return nil, "attribute without a name and no default attribute"
		}
		return map[string]string{def: s}, ""
	}
	attrs := make(map[string]string, strings.Count(s, "="))
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return attrs, ""
		}
		i := 0
		for i < len(s) && isNameByte(s[i]) {
			i++
		}
		name := s[:i]
		s = strings.TrimLeft(s[i:], " \t\r\n")
		if name == "" || !strings.HasPrefix(s, "=") {
			return attrs, "malformed attribute list"
		}
		s = strings.TrimLeft(s[1:], " \t\r\n")
		if !strings.HasPrefix(s, `"`) {
			return attrs, "attribute value not in quotes"
		}
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return attrs, "unterminated attribute value"
		}
		attrs[name] = s[1 : 1+end]
		s = s[2+end:]
	}
}
