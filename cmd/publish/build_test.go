package main

import (
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/publish"
)

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p       build.Progress
		elapsed time.Duration
		want    string
	}{
		{build.Progress{Done: 0, Total: 332, Bible: "206 WEB"}, 0, "[                              ] 0/332 books  Bible 206 WEB  ETA --"},
		{build.Progress{Done: 83, Total: 332, Bible: "3034 BSB"}, 10 * time.Second, "[=======                       ] 83/332 books  Bible 3034 BSB  ETA 30s"},
		{build.Progress{Done: 332, Total: 332, Bible: "8001 UHB"}, 52 * time.Second, "[==============================] 332/332 books  Bible 8001 UHB  done in 52s"},
	} {
		if got := progressLine(c.p, c.elapsed); got != c.want {
			t.Errorf("progressLine(%+v, %s) =\n%q, want\n%q", c.p, c.elapsed, got, c.want)
		}
	}
}

// TestSummary: one line whose counts agree with each other; no second,
// contradicting count of skipped objects.
func TestSummary(t *testing.T) {
	rep := &build.Report{Build: "abc", Switched: false, Written: 0, Skipped: 1727, Reused: 332,
		Warnings: []error{nil, nil}, Duration: 1500 * time.Millisecond}
	got := summary(rep, publish.SyncReport{}, false)
	want := "build abc unchanged, already current: 0 objects written (0 B), 1727 unchanged; 0 books rendered, 332 reused; 2 warnings (--warnings lists them); 1.5s"
	if got != want {
		t.Errorf("summary =\n%q, want\n%q", got, want)
	}
	rep.Switched, rep.Written, rep.Bytes, rep.Volumes, rep.Repacked = true, 2, 3<<20, 1, 7
	got = summary(rep, publish.SyncReport{Retries: 3}, true)
	if !strings.Contains(got, "is now current: 2 objects written (3.0 MiB)") || !strings.Contains(got, "; 3 uploads retried") ||
		!strings.Contains(got, "; packs in 1 new volume, 7 of them moved from volumes") || strings.Contains(got, "--warnings") {
		t.Errorf("summary = %q", got)
	}
}

func TestInterrupted(t *testing.T) {
	err := interrupted(publish.SyncReport{Uploaded: 120, UploadedBytes: 5 << 20}, "e3b0c44298fc1c149afb")
	want := "interrupted: build e3b0c44298fc1c149afb is still current; the 120 objects written (5.0 MiB) are kept and the next build reuses them"
	if err == nil || err.Error() != want {
		t.Errorf("interrupted = %v, want %s", err, want)
	}
	if err := interrupted(publish.SyncReport{}, ""); !strings.Contains(err.Error(), "there is still no current build") {
		t.Errorf("interrupted with no build before = %v", err)
	}
}
