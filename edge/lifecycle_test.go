package edge

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenClose opens the edge on a loopback port from an access file, as
// cmd/edge does, serves a passage through it, and checks that Close stops
// the listener.
func TestOpenClose(t *testing.T) {
	store, _ := sharedStore(t)
	dir := t.TempDir()
	accessFile := writeAccessFile(t, dir)
	cases := []struct {
		name string
		cfg  Config
		err  bool
	}{
		{name: "no access source", cfg: Config{Store: store}, err: true},
		{name: "serves", cfg: Config{Store: store, Access: accessFile, AccessCache: filepath.Join(dir, "cache.json")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = srv.Open(context.Background(), "127.0.0.1:0")
			if tc.err {
				if err == nil {
					srv.Close()
					t.Fatal("Open succeeded, want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			base := "http://" + srv.Addr()
			for _, c := range []struct {
				path, key string
				want      int
			}{
				{"/readyz", "", 200},
				{"/v1/bibles/9001/passages/JHN.3.16", keyDemo, 200},
				{"/v1/bibles/9001/passages/JHN.3.16", "", 401},
			} {
				req, _ := http.NewRequest("GET", base+c.path, nil)
				if c.key != "" {
					req.Header.Set("X-SVC-App-Key", c.key)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if got := resp.StatusCode; got != c.want {
					t.Errorf("GET %s = %d, want %d", c.path, got, c.want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "cache.json")); err != nil {
				t.Errorf("access cache not written: %v", err)
			}
			if err := srv.Close(); err != nil {
				t.Fatal(err)
			}
			c := &http.Client{Timeout: 2 * time.Second}
			if resp, err := c.Get(base + "/healthz"); err == nil {
				resp.Body.Close()
				t.Errorf("GET /healthz after Close answered %d", resp.StatusCode)
			}
		})
	}
}
