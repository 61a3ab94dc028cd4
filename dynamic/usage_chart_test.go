package dynamic

import "testing"

func TestRoundUp(t *testing.T) {
	for _, tc := range []struct{ v, want int64 }{
		{0, 2}, {1, 2}, {2, 2}, {3, 4}, {5, 6}, {6, 6}, {9, 10}, {10, 10}, {11, 20}, {20, 20}, {21, 50}, {999, 1000}, {1001, 2000},
	} {
		if got := roundUp(tc.v); got != tc.want {
			t.Errorf("roundUp(%d) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

func TestBarChart(t *testing.T) {
	labels := make([]string, 30)
	values := make([]int64, 30)
	for i := range labels {
		labels[i] = string(rune('a' + i%26))
	}
	values[29], values[0], values[5] = 100, 1, 50
	c := barChart("t", "requests", labels, values)
	if len(c.Bars) != 30 {
		t.Fatalf("%d bars, want 30", len(c.Bars))
	}
	last, first, mid := c.Bars[29], c.Bars[0], c.Bars[5]
	if last.H != chartBottom-chartTop || last.Y != chartTop {
		t.Errorf("the highest bar is %d high at %d, want the plot's height %d", last.H, last.Y, chartBottom-chartTop)
	}
	if first.H != 1 || c.Bars[1].H != 0 || mid.H != (chartBottom-chartTop)/2 {
		t.Errorf("heights %d, %d, %d; want 1 (one request shows), 0, half", first.H, c.Bars[1].H, mid.H)
	}
	if last.X+last.W > chartRight || first.X < chartLeft {
		t.Errorf("bars outside the plot: first at %d, last ends at %d", first.X, last.X+last.W)
	}
	labelled := 0
	for _, b := range c.Bars {
		if b.Label != "" {
			labelled++
		}
	}
	if labelled > chartLabels || last.Label == "" || last.Title != "d: 100 requests" {
		t.Errorf("%d labels (at most %d), the last %q titled %q", labelled, chartLabels, last.Label, last.Title)
	}
	if got := []string{c.Ticks[0].Label, c.Ticks[1].Label, c.Ticks[2].Label}; got[0] != "0" || got[1] != "50" || got[2] != "100" {
		t.Errorf("ticks %v, want 0 50 100", got)
	}
	if empty := barChart("t", "requests", nil, nil); len(empty.Bars) != 0 || len(empty.Ticks) != 3 {
		t.Errorf("empty chart: %+v", empty)
	}
}
