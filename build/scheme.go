package build

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/versification"
)

// settleScheme decides the versification an import writes to bible.json.
// A .vrs file given to the import (--versification FILE, or a DBL
// bundle's release/versification.vrs) wins: when it numbers every verse
// as a standard scheme does, the Bible names that scheme; otherwise it is
// custom and the file is kept as VRSFile beside bible.json (in extra,
// which the import writes). Without a file, the name the flags, the
// metadata or an earlier import gave stands, and a custom one needs the
// file an earlier import kept; a Bible that names none gets
// versification.Default.
func settleScheme(dir string, meta *BibleMeta, opt ImportOptions, extra map[string][]byte, rep *ImportReport) (map[string][]byte, error) {
	switch {
	case opt.VRS != nil:
		s, warns, err := versification.ParseVRS(opt.VRSName, versification.Custom, opt.VRS)
		if err != nil {
			return nil, fmt.Errorf("import: versification: %w", err)
		}
		rep.Warnings = append(rep.Warnings, warns...)
		if name := versification.Identify(s); name != "" {
			meta.Versification = name
			return extra, nil
		}
		meta.Versification = versification.Custom
		if extra == nil {
			extra = map[string][]byte{}
		}
		extra[VRSFile] = opt.VRS
	case meta.Versification == versification.Custom:
		if _, err := meta.loadScheme(dir); err != nil {
			return nil, fmt.Errorf("import: a custom versification needs its .vrs file (--versification FILE.vrs): %w", err)
		}
	case meta.Versification == "":
		meta.Versification = versification.Default
	}
	return extra, nil
}

// schemeFit warns when a Bible's chapters hold more verses than its
// versification gives them: a sign that bible.json names the wrong scheme
// (the UHB's \v numbers are English; its \va ones Hebrew), under which
// those verses would map to the wrong text. It names the standard scheme
// that fits best when that one fits better. Fewer verses than the scheme
// are common (verses a translation omits) and not reported.
func schemeFit(meta *BibleMeta, s *versification.Scheme, idx *bible.Index) error {
	beyond := func(s *versification.Scheme) (n int, examples []string) {
		for _, b := range idx.Books {
			if s.Chapters(b.ID) == 0 {
				continue
			}
			for _, c := range b.Chapters {
				ch, err := strconv.Atoi(c.ID)
				if err != nil {
					continue
				}
				last := 0
				for _, v := range c.Verses {
					if k, err := strconv.Atoi(v.ID); err == nil {
						last = max(last, k)
					}
				}
				if want := s.LastVerse(b.ID, ch); last > want {
					n++
					if len(examples) < 3 {
						examples = append(examples, fmt.Sprintf("%s %d has %d, %s %d", b.ID, ch, last, s.Name, want))
					}
				}
			}
		}
		return n, examples
	}
	n, examples := beyond(s)
	if n == 0 {
		return nil
	}
	msg := fmt.Sprintf("bible %d: its versification %s gives %d of its chapters fewer verses than they have (%s)",
		meta.ID, meta.Scheme(), n, strings.Join(examples, "; "))
	best, bestN := "", n
	for _, name := range versification.Names {
		std, _ := versification.Standard(name)
		if k, _ := beyond(std); k < bestN {
			best, bestN = name, k
		}
	}
	if best != "" {
		msg += fmt.Sprintf("; %s fits better (%d such chapters): check versification in bible.json", best, bestN)
	}
	return errors.New(msg)
}
