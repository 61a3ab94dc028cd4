package represent

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// A shared head's prepared block and an unshared head's fields set one by
// one give the same header, and either starts it afresh.
func TestHeaderBlock(t *testing.T) {
	mod := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
	shared := SharedHead("application/json; charset=utf-8", mod)
	if !shared.shared {
		t.Fatal("the first head of its kind is not shared")
	}
	own := Head{ctype: shared.ctype, lastMod: shared.lastMod, mod: shared.mod}
	for c := range NumCodings {
		for _, private := range []bool{false, true} {
			var want string
			for i, hd := range []*Head{&own, shared, shared} { // the shared one twice: built, then reused
				var h fasthttp.ResponseHeader
				h.Set("X-Before", "dropped")
				hd.writeBlock(&h, c, private)
				got := string(h.Header())
				if strings.Contains(got, "X-Before") {
					t.Errorf("coding %d private %v head %d: a field set before is kept:\n%s", c, private, i, got)
				}
				if i == 0 {
					want = got
					for _, f := range []string{"Content-Type: application/json; charset=utf-8\r\n",
						"Last-Modified: Tue, 24 Nov 2026 09:30:00 GMT\r\n", "Vary: Accept-Encoding\r\n",
						"Accept-Ranges: bytes\r\n", "Cache-Control: " + string(CacheControl(private)) + "\r\n"} {
						if !strings.Contains(got, f) {
							t.Errorf("coding %d private %v: no %q in\n%s", c, private, f, got)
						}
					}
					if enc := "Content-Encoding: " + string(codingNamesB[c]) + "\r\n"; (c != CodingIdentity) != strings.Contains(got, enc) {
						t.Errorf("coding %d: Content-Encoding wrong in\n%s", c, got)
					}
				} else if got != want {
					t.Errorf("coding %d private %v: the block gives\n%s\nthe fields one by one\n%s", c, private, got, want)
				}
			}
		}
	}
}

// Answers building and copying a head's block at the same moment all get
// the same, whole block (under -race, as make test runs it: the block is
// published by compare-and-swap and only read after).
func TestHeaderBlockConcurrent(t *testing.T) {
	hd := SharedHead("text/html; charset=utf-8", time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	var want fasthttp.ResponseHeader
	hd.setFixed(&want, CodingBrotli, true)
	wantS := string(want.Header())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var h fasthttp.ResponseHeader
			hd.writeBlock(&h, CodingBrotli, true)
			if got := string(h.Header()); got != wantS {
				t.Errorf("got\n%s\nwant\n%s", got, wantS)
			}
		})
	}
	wg.Wait()
}
