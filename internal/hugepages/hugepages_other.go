//go:build !linux

package hugepages

import (
	"context"
	"log/slog"
	"time"
)

// Advise does nothing outside Linux, where the kernel decides
// about huge pages itself.
func Advise(ctx context.Context, every time.Duration, reserve int64, log *slog.Logger) string {
	return ""
}
