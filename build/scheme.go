package build

import (
	"fmt"

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
