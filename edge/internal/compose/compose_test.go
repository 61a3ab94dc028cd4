package compose

import (
	"bytes"
	"testing"
	"time"

	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// A composed body gets each coding that is smaller than itself, each with
// its own strong ETag; a body too short to gain is served as it is.
func TestNewResource(t *testing.T) {
	long := bytes.Repeat([]byte(`{"id":"JHN.3.16","content":"For God so loved the world"}`), 20)
	for _, tc := range []struct {
		name      string
		body      []byte
		codecs    *Codecs
		wantCoded bool
	}{
		{"long, kept", long, Kept, true},
		{"long, quick", long, Quick, true},
		{"short", []byte(`{}`), Kept, false},
	} {
		r := NewResource(tc.body, publish.JSON, time.Unix(1e9, 0), tc.codecs)
		if got := r.Reps[represent.CodingIdentity].Body(); !bytes.Equal(got, tc.body) {
			t.Errorf("%s: identity body %q, want the body", tc.name, got)
		}
		etags := map[string]bool{}
		for _, c := range []int{represent.CodingIdentity, represent.CodingBrotli, represent.CodingGzip} {
			if c != represent.CodingIdentity && r.Has(c) != tc.wantCoded {
				t.Errorf("%s: coding %d present %v, want %v", tc.name, c, r.Has(c), tc.wantCoded)
			}
			if !r.Has(c) {
				continue
			}
			if c != represent.CodingIdentity && len(r.Reps[c].Body()) >= len(tc.body) {
				t.Errorf("%s: coding %d is not smaller than the body", tc.name, c)
			}
			etags[string(r.Reps[c].ETag())] = true
		}
		if tc.wantCoded && len(etags) != 3 {
			t.Errorf("%s: %d distinct ETags for three codings", tc.name, len(etags))
		}
	}
}
