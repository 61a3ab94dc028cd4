package main

import (
	"fmt"
	"io"

	"github.com/bibleplatform/platform/build"
)

// brokenBibles prints the Bibles a build left out and fails the command
// when there are any: the other Bibles are published, but the operator
// must hear of it.
func brokenBibles(w io.Writer, rep *build.Report) error {
	for _, err := range rep.Broken {
		fmt.Fprintln(w, "error:", err)
	}
	if len(rep.Broken) > 0 {
		return fmt.Errorf("%d problems left Bibles out of the build (the others are published)", len(rep.Broken))
	}
	return nil
}
