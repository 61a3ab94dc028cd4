package outage

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A failure that repeats is logged once an interval with the count of
// those not logged, and its end once.
func TestOutageLog(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	o := Log{Every: time.Hour}
	for range 5 {
		o.Failed(log, "store down", "err", "refused")
	}
	o.OK(log, "store answers again")
	o.OK(log, "store answers again") // no failure since: nothing logged
	o.Failed(log, "store down", "err", "refused")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`level=WARN msg="store down" err=refused`,
		`level=INFO msg="store answers again" suppressed=4`,
		`level=WARN msg="store down" err=refused`, // a new outage is logged at once
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !strings.HasSuffix(lines[i], w) {
			t.Errorf("line %d = %q, want it to end with %q", i, lines[i], w)
		}
	}

	// Past the interval, the next failure is logged with the count.
	buf.Reset()
	o = Log{Every: time.Nanosecond}
	o.Failed(log, "store down")
	time.Sleep(time.Millisecond)
	o.Failed(log, "store down")
	if got := strings.Count(buf.String(), `msg="store down"`); got != 2 {
		t.Errorf("%d warnings past the interval, want 2:\n%s", got, buf.String())
	}
}
