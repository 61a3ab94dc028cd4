package publish

import (
	"strings"

	"github.com/bibleplatform/platform/internal/diskread"
)

// KeepOpen makes ReadRange keep the n pack files it read last open (none
// by default), for the store's life, so that a reader of a pack's ranges
// (an edge: the pack's header, then the entry asked for) opens it once and
// reads through the file descriptor alone. The first call decides; later
// ones change nothing.
//
// Only packs: a pack is named by its content, so a file kept open never
// goes stale (a pack deleted and written again holds the same bytes; one
// deleted stays readable until it leaves the set), while other keys
// (CURRENT, a build's manifest) are replaced by rename.
func (d *Dir) KeepOpen(n int) { d.packs.KeepOpen(n) }

// filesFor is what reads key: the packs' files, or the others'.
func (d *Dir) filesFor(key string) *diskread.Files {
	if strings.HasPrefix(key, PackPrefix) {
		return &d.packs
	}
	return &d.files
}
