package usfm

import "fmt"

// maxWarnings caps the diagnostics kept for one file; a file that breaks
// every line would otherwise bury its first, useful, ones.
const maxWarnings = 1000

// Diags collects the diagnostics of one file, for the USFM parser and the
// USX reader alike. It keeps the first maxWarnings and counts the rest;
// Close adds a line saying how many were left out, with the worst severity
// among them, so that damage is never lost in a count.
type Diags struct {
	list    []Diag
	dropped int
	worst   Severity
	seen    map[string]bool
}

// Add keeps d.
func (c *Diags) Add(d Diag) {
	if len(c.list) >= maxWarnings {
		c.dropped++
		c.worst = max(c.worst, d.Sev)
		return
	}
	c.list = append(c.list, d)
}

// Damage keeps d as damage.
func (c *Diags) Damage(d Diag) {
	d.Sev = Damage
	c.Add(d)
}

// Repair keeps d as a repair of the given class.
func (c *Diags) Repair(d Diag, class string) {
	d.Sev, d.Class = Repaired, class
	c.Add(d)
}

// Once keeps d the first time its message comes: a systematic habit of a
// file (such as verses straight after \iex) is reported once.
func (c *Diags) Once(d Diag) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if !c.seen[d.Msg] {
		c.seen[d.Msg] = true
		d.Msg += " (reported once per file)"
		c.Add(d)
	}
}

// Close returns what was kept, and at end (a Diag naming the end of the
// file) how many were not.
func (c *Diags) Close(end Diag) []Diag {
	if c.dropped > 0 {
		end.Msg, end.Sev = fmt.Sprintf("%d more warnings not reported", c.dropped), c.worst
		c.list = append(c.list, end)
	}
	return c.list
}
