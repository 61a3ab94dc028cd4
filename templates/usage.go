package templates

// UsagePage is the portal's usage pages (docs/portal.md):
// "portal-usage.html", an app's requests per day and Bible with its rate
// limit, and "portal-licensor.html", the requests per month and licensee
// app of the Bibles an organization licenses to the platform.
type UsagePage struct {
	PortalPage
	Period string // the period shown, in words
	Rate   string // portal-usage: the app's rate limit, in words
	Chart  UsageChart
	Rows   []UsageRow
	Totals []UsageRow // per Bible over the period
	Total  int64

	Licenses []UsageLicense // portal-licensor: the licences the organization owns
}

// UsageRow is one line of a usage table.
type UsageRow struct {
	Period   string // a day (YYYY-MM-DD) or a month (YYYY-MM)
	Bible    string
	App      string
	Licensee string
	Requests int64
}

// UsageLicense is a licence an organization owns and its Bibles.
type UsageLicense struct {
	ID     int
	Name   string
	Bibles []int32
}

// UsageChart is a bar chart drawn on the server as inline SVG: its
// geometry is computed, the template only places it.
type UsageChart struct {
	Title         string
	Width, Height int
	// PlotLeft, PlotBottom and PlotRight frame the bars (the axis line).
	PlotLeft, PlotBottom, PlotRight int
	Bars                            []UsageBar
	Ticks                           []UsageTick // the value axis
}

// UsageBar is one bar, its label under it (when Label is not empty) and
// the text a pointer shows over it.
type UsageBar struct {
	X, Y, W, H int
	LabelX     int
	Label      string
	Title      string
}

// UsageTick is one mark of the value axis.
type UsageTick struct {
	Y     int
	Label string
}
