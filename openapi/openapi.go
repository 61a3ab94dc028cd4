// Package openapi holds the API's OpenAPI 3.1 document, openapi.yaml: the
// one description of every route the edge serves, which the edge publishes
// at /v1/openapi.json and /v1/openapi.yaml and the acceptance suite checks
// every answer against. See docs/clients.md.
package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// YAML is the document as written.
//
//go:embed openapi.yaml
var YAML []byte

// JSON converts the document to JSON, keeping the order of its keys and
// expanding its YAML anchors (JSON has none), so that every JSON tool reads
// the same document.
func JSON() ([]byte, error) {
	js, err := toJSON(YAML)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return js, nil
}

func toJSON(src []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("empty document")
	}
	var b bytes.Buffer
	if err := writeJSON(&b, &doc); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		return writeJSON(b, n.Content[0])
	case yaml.AliasNode:
		return writeJSON(b, n.Alias)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Tag == "!!merge" {
				return fmt.Errorf("line %d: merge keys are not supported", k.Line)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k.Value)
			b.Write(kb)
			b.WriteByte(':')
			if err := writeJSON(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			b.WriteString("null")
		case "!!bool":
			v, err := strconv.ParseBool(n.Value)
			if err != nil {
				return fmt.Errorf("line %d: %w", n.Line, err)
			}
			b.WriteString(strconv.FormatBool(v))
		case "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				return fmt.Errorf("line %d: %w", n.Line, err)
			}
			nb, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("line %d: %w", n.Line, err)
			}
			b.Write(nb)
		default:
			sb, _ := json.Marshal(n.Value)
			b.Write(sb)
		}
	default:
		return fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	return nil
}
