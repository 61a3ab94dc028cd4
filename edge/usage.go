package edge

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/outage"
	"github.com/bibleplatform/platform/edge/internal/searchapi"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/edge/internal/usage"
	"github.com/bibleplatform/platform/wire"
)

// Usage (docs/portal.md): every request admitted for an app is counted per
// app, Bible and UTC day (edge/internal/usage) and reported to dynamic
// every UsageReportInterval, with the edge token, as counted searches are.
// Without a dynamic service nothing is counted.

// DefaultUsageReportInterval is how often usage is reported when
// Config.UsageReportInterval is zero.
const DefaultUsageReportInterval = 10 * time.Second

// edgeUsage is the edge's side of usage: the reporter, its outage log,
// and the build whose Bibles are counted.
type edgeUsage struct {
	*usage.Reporter
	every  time.Duration
	outage outage.Log
	site   *atomic.Pointer[site.Site]
}

// newEdgeUsage is the usage reporter of an edge with cfg, posting through
// trends' calls to dynamic; nil without a dynamic service.
func newEdgeUsage(cfg Config, trends *searchapi.Trends, st *atomic.Pointer[site.Site]) *edgeUsage {
	if cfg.DynamicURL == "" {
		return nil
	}
	every := cfg.UsageReportInterval
	if every <= 0 {
		every = DefaultUsageReportInterval
	}
	post := func(ctx context.Context, body []byte) error {
		_, err := trends.Internal(ctx, http.MethodPost, wire.UsagePath, body)
		return err
	}
	return &edgeUsage{Reporter: usage.NewReporter(post), every: every, site: st}
}

// count counts a request admitted for an app, on the UTC day it arrived,
// under the Bible its path names, or 0: for a route of no Bible, an id the
// build lacks (a client cannot fill the table with made-up ids), and a
// read the app's licences refused (403), which read nothing of the Bible
// and is not its licensor's business.
func (u *edgeUsage) count(adm *authz.Admission, at time.Time, status int) {
	if u == nil || adm.App() == nil {
		return
	}
	bible := int32(0)
	if st := u.site.Load(); status != fasthttp.StatusForbidden && st != nil && st.Bibles[adm.Bible()] != nil {
		bible = adm.Bible()
	}
	u.Counter.Add(adm.App().ID(), bible, usage.Day(at))
}

// RunUsage reports counted usage until ctx ends; without a dynamic service
// it returns at once.
func (s *Server) RunUsage(ctx context.Context) {
	if s.usage == nil {
		return
	}
	u := s.usage
	u.Run(ctx, u.every,
		func(err error) { u.outage.Failed(s.log, "cannot report usage; kept for the next report", "err", err) },
		func() { u.outage.OK(s.log, "usage reported again") })
}

// ReportUsage sends what was counted to dynamic now (tests, shutdown).
func (s *Server) ReportUsage(ctx context.Context) error {
	if s.usage == nil {
		return nil
	}
	return s.usage.Report(ctx)
}
