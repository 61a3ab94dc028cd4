package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/cmd/internal/command"
)

// An edge that would forward to dynamic, or load its access data from it,
// refuses to start without the edge token, saying which flag is missing.
func TestServeNeedsEdgeToken(t *testing.T) {
	cases := []struct {
		name    string
		cmd     serveCmd
		wantErr string // "" : Run gets past the check
	}{
		{"dynamic without token", serveCmd{Dynamic: "http://127.0.0.1:9", Access: "access.json"}, "--dynamic needs --edge-token"},
		{"access on dynamic without token", serveCmd{Access: "http://127.0.0.1:9/internal/access"}, "--access on dynamic needs --edge-token"},
		{"dynamic with token", serveCmd{Dynamic: "http://127.0.0.1:9", Access: "access.json", EdgeToken: "s"}, ""},
		{"file access, no dynamic", serveCmd{Access: "access.json"}, ""},
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cmd
			c.Store, c.PublicURL = t.TempDir(), "not a URL" // stops Run at the next check when this one passes
			err := c.Run(context.Background(), log, &command.Logging{})
			if tc.wantErr == "" {
				if err == nil || strings.Contains(err.Error(), "edge-token") {
					t.Errorf("Run = %v, want it past the edge-token check", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Run = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
