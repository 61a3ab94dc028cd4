package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

// TestLint validates the document against the OpenAPI 3.1 schema and
// checks what a schema cannot: every $ref resolves, every operation has an
// id and a tag, and ids are unique.
func TestLint(t *testing.T) {
	js, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := libopenapi.NewDocument(js)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	for _, e := range errs {
		t.Errorf("validator: %v", e)
	}
	if v == nil {
		t.FailNow()
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("  %s (line %d): %s", se.FieldPath, se.Line, se.Reason)
			}
		}
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatalf("model: %v", err)
	}
	if model.Index != nil {
		for _, e := range model.Index.GetReferenceIndexErrors() {
			t.Errorf("reference: %v", e)
		}
	}

	var raw struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(js, &raw); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for path, item := range raw.Paths {
		for method, op := range item {
			if method == "parameters" || strings.HasPrefix(method, "x-") {
				continue
			}
			var o struct {
				OperationID string   `json:"operationId"`
				Tags        []string `json:"tags"`
			}
			if err := json.Unmarshal(op, &o); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			if o.OperationID == "" || len(o.Tags) == 0 {
				t.Errorf("%s %s: needs an operationId and a tag", method, path)
			}
			if prev, dup := ids[o.OperationID]; dup {
				t.Errorf("operationId %q used by %s and %s %s", o.OperationID, prev, method, path)
			}
			ids[o.OperationID] = method + " " + path
		}
	}
}

// FuzzToJSON: whatever YAML the converter accepts comes out as valid JSON.
func FuzzToJSON(f *testing.F) {
	f.Add(YAML[:2000])
	f.Add([]byte("a: &x [1, 2.5, true, null, 'q']\nb: *x\nc: {d: \"e\\n\"}\n"))
	f.Add([]byte("- !!binary aGk=\n- 0x1F\n- .inf\n"))
	f.Add([]byte("<<: {a: 1}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		js, err := toJSON(src)
		if err != nil {
			return
		}
		if !json.Valid(js) {
			t.Fatalf("invalid JSON %q from %q", js, src)
		}
	})
}
