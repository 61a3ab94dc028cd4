package metrics

import (
	"fmt"
	"io"
)

// WriteScalar writes one metric without labels in Prometheus's text
// format: its HELP and TYPE lines, then its value. typ is "counter" or
// "gauge".
func WriteScalar(w io.Writer, name, typ, help string, v any) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %v\n", name, help, name, typ, name, v)
}
