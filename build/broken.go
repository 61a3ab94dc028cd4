package build

import (
	"fmt"

	"github.com/bibleplatform/platform/publish"
)

// bookError is a book whose source cannot be rendered: its Bible is left
// out of the build, and the other Bibles are published.
type bookError struct{ err error }

func (e bookError) Error() string { return e.err.Error() }

// broken reports whether a book of bj could not be rendered. Such a Bible
// is reported in Report.Broken with every reason (file:line:col), and the
// new build keeps what the previous build published of it (nothing, for a
// Bible never published), so that one broken Bible neither stops the other
// Bibles from publishing nor disappears from the API.
func (b *builder) broken(bj *bibleJob, prev *publish.Manifest) bool {
	cb := bj.bible
	var errs []error
	if bj.err != nil {
		errs = append(errs, bj.err)
	}
	for _, j := range bj.books {
		if j.err != nil {
			errs = append(errs, j.err)
		}
	}
	if len(errs) == 0 {
		return false
	}
	kept := "it is not published"
	if prev != nil {
		if be := prev.Bible(cb.Meta.ID); be != nil {
			*bj.slot = *be
			kept = "the previous build's copy stays published"
		}
	}
	for _, err := range errs {
		b.rep.Broken = append(b.rep.Broken, fmt.Errorf("bible %d (%s): %w; %s", cb.Meta.ID, cb.Dir, err, kept))
	}
	return true
}
