package publish_test

import (
	"testing"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/publish/storetest"
)

func TestDirConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) publish.Store {
		d, err := publish.OpenDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}
