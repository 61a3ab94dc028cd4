package dynamic

import (
	"strconv"

	"github.com/bibleplatform/platform/templates"
)

// Geometry of the usage charts, in SVG user units: the page scales the
// whole drawing to its width.
const (
	chartWidth  = 640
	chartHeight = 220
	chartLeft   = 48 // room for the value axis's labels
	chartRight  = 632
	chartTop    = 8
	chartBottom = 190 // the axis line; the labels go under it
	// chartLabels is the most bar labels drawn: with more bars, every
	// k-th is labelled, and every bar still has its title.
	chartLabels = 10
)

// barChart lays out one bar per value, labelled by labels (same length),
// scaled to a round maximum, with a value axis of three ticks. unit names
// what the values count, for each bar's title.
func barChart(title, unit string, labels []string, values []int64) templates.UsageChart {
	c := templates.UsageChart{Title: title, Width: chartWidth, Height: chartHeight,
		PlotLeft: chartLeft, PlotBottom: chartBottom, PlotRight: chartRight}
	top := int64(0)
	for _, v := range values {
		top = max(top, v)
	}
	top = roundUp(top)
	plotH := chartBottom - chartTop
	for i := range 3 {
		v := top * int64(i) / 2
		c.Ticks = append(c.Ticks, templates.UsageTick{Y: chartBottom - int(v*int64(plotH)/top), Label: strconv.FormatInt(v, 10)})
	}
	n := len(values)
	if n == 0 {
		return c
	}
	slot := (chartRight - chartLeft) / n
	every := (n + chartLabels - 1) / chartLabels
	for i, v := range values {
		h := int(v * int64(plotH) / top)
		if v > 0 && h == 0 {
			h = 1 // a request is never drawn as none
		}
		b := templates.UsageBar{X: chartLeft + i*slot + slot/8, Y: chartBottom - h, W: max(1, slot*3/4), H: h,
			LabelX: chartLeft + i*slot + slot/2, Title: labels[i] + ": " + strconv.FormatInt(v, 10) + " " + unit}
		if (n-1-i)%every == 0 {
			b.Label = labels[i]
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}

// roundUp is the top of a value axis for values up to v: the even number
// at or above it up to 10, else the smallest of 1, 2 or 5 times a power of
// ten at or above it. Its half, the middle tick, is then a whole number.
func roundUp(v int64) int64 {
	if v <= 10 {
		return max(2, v+v%2)
	}
	for p := int64(10); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= v && m*p >= 2 {
				return m * p
			}
		}
	}
}
