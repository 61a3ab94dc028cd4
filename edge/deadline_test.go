package edge

import (
	"bufio"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestCoarseDeadlinesApplied checks which deadlines reach the connection:
// a later one within the slack is skipped, anything earlier, cleared or
// further is applied.
func TestCoarseDeadlinesApplied(t *testing.T) {
	t0 := time.Now()
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	cases := []struct {
		name string
		set  []time.Time
		want uint64 // deadlines applied
	}{
		{"first", []time.Time{at(30 * time.Second)}, 1},
		{"same again", []time.Time{at(30 * time.Second), at(30 * time.Second)}, 1},
		{"later within slack", []time.Time{at(30 * time.Second), at(30*time.Second + 999*time.Millisecond)}, 1},
		{"later by the slack", []time.Time{at(30 * time.Second), at(31 * time.Second)}, 2},
		{"earlier", []time.Time{at(30 * time.Second), at(30*time.Second - time.Millisecond)}, 2},
		{"cleared", []time.Time{at(30 * time.Second), {}}, 2},
		{"set after clear", []time.Time{{}, at(time.Second)}, 2},
		{"busy connection", []time.Time{at(30 * time.Second), at(30*time.Second + 300*time.Millisecond),
			at(30*time.Second + 900*time.Millisecond), at(31*time.Second + 100*time.Millisecond), at(31*time.Second + 200*time.Millisecond)}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := net.Pipe()
			defer a.Close()
			defer b.Close()
			c := &coarseConn{Conn: a, slack: time.Second}
			for _, d := range tc.set {
				if err := c.SetReadDeadline(d); err != nil {
					t.Fatal(err)
				}
				if err := c.SetWriteDeadline(d); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.rdN; got != tc.want {
				t.Errorf("read deadlines applied: got %d, want %d", got, tc.want)
			}
			if got := c.wdN; got != tc.want {
				t.Errorf("write deadlines applied: got %d, want %d", got, tc.want)
			}
			if got, want := c.rd, tc.set[len(tc.set)-1]; got.After(want) {
				t.Errorf("read deadline in force %v is later than the last asked for %v", got, want)
			}
		})
	}
}

// TestCoarseDeadlinesSlowloris serves with fasthttp as cmd/edge does
// (ReadTimeout = IdleTimeout) over CoarseDeadlines: a client that trickles
// a request's headers is dropped within ReadTimeout, while one that keeps
// sending whole requests is served throughout.
func TestCoarseDeadlinesSlowloris(t *testing.T) {
	const timeout = 400 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{
		Handler:     func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") },
		ReadTimeout: timeout, WriteTimeout: timeout, IdleTimeout: timeout,
	}
	go srv.Serve(CoarseDeadlines(ln, 100*time.Millisecond))
	defer srv.Shutdown()

	slow, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	start := time.Now()
	var closedAfter time.Duration
	for _, b := range []byte("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 40)) {
		if _, err := slow.Write([]byte{b}); err != nil {
			closedAfter = time.Since(start)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if closedAfter == 0 {
		// The server may have closed without the writes noticing yet.
		slow.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := slow.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("a request trickled over %v was not dropped (read: %v)", time.Since(start), err)
		}
		closedAfter = time.Since(start)
	}
	if closedAfter > timeout+time.Second {
		t.Errorf("slow client dropped after %v, want about %v", closedAfter, timeout)
	}

	busy, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	r := bufio.NewReader(busy)
	for end := time.Now().Add(3 * timeout); time.Now().Before(end); time.Sleep(timeout / 8) {
		if _, err := busy.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatalf("busy connection: %v", err)
		}
		var resp fasthttp.Response
		if err := resp.Read(r); err != nil {
			t.Fatalf("busy connection: %v", err)
		}
		if got, want := string(resp.Body()), "ok"; got != want {
			t.Fatalf("body %q, want %q", got, want)
		}
	}
}
