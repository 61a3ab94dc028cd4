package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// cutProxy relays TCP to a PostgreSQL server until cut: then it closes
// every connection and refuses new ones, as a crashed server would, until
// restored.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { io.Copy(up, c); up.Close() }()
		go func() { io.Copy(c, up); c.Close() }()
	}
}

func (p *cutProxy) cut(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestUnavailableTranslated: with the server gone, every call fails with
// dynamic.ErrUnavailable (503 with Retry-After, not 500), and the pool
// serves again once the server is back, without reopening.
func TestUnavailableTranslated(t *testing.T) {
	ctx := context.Background()
	raw := pgtest.URL(t)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p := &cutProxy{ln: ln, target: u.Host}
	go p.serve()
	u.Host = ln.Addr().String()
	db, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	read := func() error {
		_, err := db.Highlights(ctx, user, 9001, []string{"JHN.3.16"})
		return err
	}
	if err := read(); err != nil {
		t.Fatal(err)
	}
	p.cut(true)
	for i := range 3 {
		if err := read(); !errors.Is(err, dynamic.ErrUnavailable) {
			t.Errorf("read %d with the server gone: %v, want ErrUnavailable", i+1, err)
		}
	}
	write := db.CreateHighlights
	if _, err := write(ctx, dynamic.HighlightRequest{UserID: user, RequestID: "00000000-0000-4000-8000-000000000001",
		BibleID: 9001, Verses: []string{"JHN.3.16"}, Color: "aabbcc"}); !errors.Is(err, dynamic.ErrUnavailable) {
		t.Errorf("write with the server gone: %v, want ErrUnavailable", err)
	}
	p.cut(false)
	deadline := time.Now().Add(10 * time.Second)
	for err := read(); err != nil; err = read() {
		if time.Now().After(deadline) {
			t.Fatalf("the pool did not serve again after the server came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
