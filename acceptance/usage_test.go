package acceptance

import (
	"context"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic/postgres"
)

// checkUsage waits up to 5 s for the usage the edges reported for app
// today to add up to want requests.
func checkUsage(t *testing.T, dbURL, app string, want int64) {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got int64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		days, err := db.AppUsage(ctx, app, time.Now().AddDate(0, 0, -1))
		if err != nil {
			t.Fatal(err)
		}
		got = 0
		for _, d := range days {
			got += d.Requests
		}
		if got == want || time.Now().After(deadline) {
			break
		}
	}
	if got != want {
		t.Errorf("usage of app %s: %d requests counted, want %d", app, got, want)
	}
}
