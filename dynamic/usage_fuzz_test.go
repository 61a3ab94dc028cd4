package dynamic

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/wire"
)

// FuzzUsageBatch: whatever an edge (or anyone holding the edge token)
// posts, checking it never panics, and a batch it accepts is one the
// store can take: a named edge, a positive number, app UUIDs, days within
// the skew, positive counts.
func FuzzUsageBatch(f *testing.F) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	for _, s := range []string{
		`{"edge":"a1","seq":1,"counts":[{"app":"5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a01","bible":9001,"day":"2026-11-26","requests":3}]}`,
		`{"edge":"a1","seq":2,"counts":[]}`,
		`{"edge":"","seq":-1,"counts":[{"app":"","bible":-5,"day":"2026-13-40","requests":0}]}`,
		`{"edge":"a1","seq":1,"counts":[{"app":"5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a01","bible":0,"day":"0001-01-01","requests":1}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var b wire.UsageBatch
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if dec.Decode(&b) != nil {
			return
		}
		if checkUsageBatch(&b, now) != nil {
			return
		}
		if b.Edge == "" || b.Seq < 1 || len(b.Counts) > wire.MaxUsageCounts {
			t.Fatalf("accepted %+v", b)
		}
		for _, c := range b.Counts {
			d, err := time.Parse(time.DateOnly, c.Day)
			if !bible.ValidUUID(c.App) || c.Bible < 0 || c.Requests < 1 || err != nil || d.Sub(now).Abs() > usageSkew {
				t.Fatalf("accepted count %+v", c)
			}
		}
	})
}
