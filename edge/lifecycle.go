package edge

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/conn"
	"github.com/bibleplatform/platform/wire"
)

// DefaultPoll is how often an open edge looks for a new build and a
// changed access file when Config.Poll is zero.
const DefaultPoll = time.Second

// shutdownGrace is how long Close waits for requests in flight.
const shutdownGrace = 10 * time.Second

// running is what Open starts and Close stops.
type running struct {
	ln, tln net.Listener // tln: the TLS listener, nil without TLS
	srv     *fasthttp.Server
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

// Open loads the access data and the current build, keeps both current,
// and serves HTTP on addr ("127.0.0.1:0" picks a port), and HTTPS on
// Config.TLSAddr when Config.TLSCertFile is set.
//
// An edge opens without access data or a build when their sources do not
// answer (it logs why): /readyz then says what is missing, the watchers
// retry, and what the disk cache holds is served meanwhile. Only what the
// operator must fix fails Open: no access source, an address that cannot
// be listened on, a TLS key pair that cannot be read.
func (s *Server) Open(ctx context.Context, addr string) error {
	if s.run != nil {
		return errors.New("edge: already open")
	}
	if s.cfg.Access == "" {
		return errors.New("edge: no access source")
	}
	src, err := NewAccessSource(s.cfg.Access, s.cfg.EdgeToken)
	if err != nil {
		return err
	}
	var cert tls.Certificate
	if s.cfg.TLSCertFile != "" {
		if cert, err = tls.LoadX509KeyPair(s.cfg.TLSCertFile, s.cfg.TLSKeyFile); err != nil {
			return fmt.Errorf("edge: load TLS key pair: %w", err)
		}
	}
	r := &running{}
	if r.ln, err = net.Listen("tcp", addr); err != nil {
		return fmt.Errorf("edge: listen: %w", err)
	}
	if s.cfg.TLSCertFile != "" {
		if r.tln, err = net.Listen("tcp", s.cfg.TLSAddr); err != nil {
			r.ln.Close()
			return fmt.Errorf("edge: listen (TLS): %w", err)
		}
		if !s.httpsPortSet {
			// Redirects name the port actually listened on (":0" picks one).
			_, p, _ := net.SplitHostPort(r.tln.Addr().String())
			s.cfg.HTTPSPort, _ = strconv.Atoi(p)
		}
	}

	// The run context outlives ctx's cancellation: Close ends it.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	aw := &AccessWatcher{Source: src, CachePath: s.cfg.AccessCache, Interval: s.cfg.Poll, Server: s, Log: s.log}
	if err := aw.Init(ctx); err != nil {
		// Keep running: /readyz says not ready, and the watcher retries.
		s.log.Error("no access data yet", "err", err)
	}
	bw := &BuildWatcher{Store: s.cfg.Store, Server: s, Interval: s.cfg.Poll, Log: s.log}
	// Check has logged a build it restored from the disk cache.
	if err := bw.Check(ctx); err != nil && s.Build() == "" {
		s.log.Error("no build yet", "err", err)
	}
	r.done.Add(4)
	go func() { defer r.done.Done(); aw.Run(runCtx) }()
	go func() { defer r.done.Done(); bw.Run(runCtx) }()
	// Reports counted searches to dynamic and refreshes trending queries;
	// returns at once without a dynamic service.
	go func() { defer r.done.Done(); s.RunSearchQueries(runCtx) }()
	go func() { defer r.done.Done(); s.RunUsage(runCtx) }()

	r.srv = s.httpServer()
	s.log.Info("edge listening", "addr", r.ln.Addr().String(), "access", src.String(), "dynamic", s.cfg.DynamicURL)
	go r.srv.Serve(Listener(r.ln))
	if r.tln != nil {
		// Below TLS, so that fasthttp still sees a TLS connection.
		tln := tls.NewListener(Listener(r.tln),
			&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		s.log.Info("edge listening (TLS)", "addr", r.tln.Addr().String())
		go r.srv.Serve(tln)
	}
	s.run = r
	return nil
}

// httpServer is the fasthttp server Open serves the handler with.
func (s *Server) httpServer() *fasthttp.Server {
	return &fasthttp.Server{
		Handler:               s.Handler,
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		Concurrency:           s.cfg.Concurrency,
		// No ReadTimeout, WriteTimeout or IdleTimeout: CoarseDeadlines
		// bounds requests and answers (slowloris protection) without the
		// clock reads and poller updates fasthttp would make three times a
		// request.
		MaxRequestBodySize: conn.MaxRequestBody,
		// Request headers are read into one buffer of this size: a bearer
		// token of several KB forwarded to dynamic must fit (431 past it).
		ReadBufferSize: wire.MaxRequestHeader,
		ErrorHandler:   conn.RequestError,
		Logger:         fasthttpLogger{s},
		// A request that fails to parse is logged without its bytes: they
		// carry App Keys and users' bearer tokens.
		SecureErrorLogMessage: true,
	}
}

// Listener wraps ln as Open wraps its listeners: each connection bounds
// its requests and answers itself (conn.CoarseDeadlines, the edge's
// slowloris protection). Wrap a TCP listener below TLS.
func Listener(ln net.Listener) net.Listener {
	return conn.CoarseDeadlines(ln, conn.DefaultRequestTimeout, conn.DefaultAnswerTimeout, conn.DefaultDeadlineSlack)
}

// Addr is the address Open listens on for HTTP.
func (s *Server) Addr() string { return s.run.ln.Addr().String() }

// TLSAddr is the address Open listens on for HTTPS; "" without TLS.
func (s *Server) TLSAddr() string {
	if s.run == nil || s.run.tln == nil {
		return ""
	}
	return s.run.tln.Addr().String()
}

// Close stops serving, waiting a little for requests in flight, and stops
// the watchers; the search counts not yet reported go to dynamic first.
func (s *Server) Close() error {
	r := s.run
	if r == nil {
		return nil
	}
	r.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := r.srv.ShutdownWithContext(ctx)
	r.done.Wait()
	return err
}

// fasthttpLogger sends the HTTP server's own messages (malformed requests)
// to the edge's log.
type fasthttpLogger struct{ s *Server }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.s.log.Warn("edge: http server: " + fmt.Sprintf(format, args...))
}
