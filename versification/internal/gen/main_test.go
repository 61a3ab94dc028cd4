package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

// TestGenerate checks that the committed standard_data.go is what the
// generator writes from the shared files, header and all.
func TestGenerate(t *testing.T) {
	got, err := Generate(repotest.Shared(t, "bibles", "versification"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../standard_data.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("versification/standard_data.go is stale: run make versification")
	}
}
