package acceptance

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/paths"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/bibleplatform/platform/openapi"
)

// The OpenAPI document (openapi/openapi.yaml) is the contract every answer
// the suite receives is held to: C.doWith passes each one to conform, so
// that every rule, in every rules file, checks it without asking. The
// validator is pb33f/libopenapi-validator: it reads OpenAPI 3.1 (JSON
// Schema 2020-12, type arrays, const) where kin-openapi's filter still
// targets 3.0, and it validates the document itself too (openapi's TestLint).

type contract struct {
	v     validator.Validator
	model *v3.Document
	opts  *config.ValidationOptions
}

var theContract struct {
	once sync.Once
	c    *contract
	err  error
}

func loadContract() (*contract, error) {
	theContract.once.Do(func() {
		js, err := openapi.JSON()
		if err != nil {
			theContract.err = err
			return
		}
		doc, err := libopenapi.NewDocument(js)
		if err != nil {
			theContract.err = err
			return
		}
		m, err := doc.BuildV3Model()
		if err != nil {
			theContract.err = err
			return
		}
		opts := []config.Option{config.WithFormatAssertions()}
		v, errs := validator.NewValidator(doc, opts...)
		if len(errs) > 0 {
			theContract.err = fmt.Errorf("openapi validator: %v", errs)
			return
		}
		theContract.c = &contract{v: v, model: &m.Model, opts: config.NewValidationOptions(opts...)}
	})
	return theContract.c, theContract.err
}

// conform checks one answer against the document and reports what it does
// not allow as the rule's failures. The document's own conventions (its
// info.description) are applied here: 308 to https on any route, 404 for a
// path it does not list, 405 with Allow for a method it does not list, and
// HEAD as GET without a body.
func (c *C) conform(req *http.Request, r *resp) {
	k, err := loadContract()
	if err != nil {
		c.Errorf("OpenAPI document: %v", err)
		return
	}
	what := fmt.Sprintf("%s %s → %d", r.method, req.URL.RequestURI(), r.status)
	fail := func(format string, args ...any) {
		c.Errorf("OpenAPI: %s: %s", what, fmt.Sprintf(format, args...))
	}
	if r.status == http.StatusPermanentRedirect {
		if !strings.HasPrefix(r.h.Get("Location"), "https://") {
			fail("308 without a Location on https")
		}
		return
	}
	// Match the path with the method the document lists (HEAD as GET).
	probe := req.Clone(req.Context())
	if probe.Method == http.MethodHead {
		probe.Method = http.MethodGet
	}
	item, perrs, tmpl := paths.FindPath(probe, k.model, k.opts)
	if item == nil {
		if r.status != http.StatusNotFound {
			fail("the document lists no route %s; only 404 may answer it", req.URL.Path)
			return
		}
		if len(r.body) > 0 {
			c.wantMessage(r, fail)
		}
		return
	}
	op := item.GetOperations().GetOrZero(strings.ToLower(probe.Method))
	if len(perrs) > 0 || op == nil {
		if r.status != http.StatusMethodNotAllowed {
			fail("%s has no %s operation in the document; only 405 may answer it", tmpl, req.Method)
			return
		}
		if r.h.Get("Allow") == "" {
			fail("405 without Allow")
		}
		c.wantMessage(r, fail)
		return
	}
	want := responseFor(op, r.status)
	if want == nil {
		fail("status %d is not among %s %s's responses", r.status, probe.Method, tmpl)
		return
	}
	if req.Method == http.MethodHead || r.status == http.StatusNotModified || want.Content == nil || want.Content.Len() == 0 {
		if len(r.body) > 0 {
			fail("has a body (%d bytes) where the document has none", len(r.body))
		}
		if req.Method == http.MethodHead {
			return
		}
	}
	body, err := decoded(r)
	if err != nil {
		fail("%v", err)
		return
	}
	hr := &http.Response{StatusCode: r.status, Header: r.h, Body: io.NopCloser(bytes.NewReader(body)), Request: probe}
	if ok, errs := k.v.ValidateHttpResponse(probe, hr); !ok {
		for _, e := range errs {
			msg := e.Message
			if e.Reason != "" && e.Reason != e.Message {
				msg += ": " + e.Reason
			}
			for _, se := range e.SchemaValidationErrors {
				msg += fmt.Sprintf(" [%s: %s]", se.FieldPath, se.Reason)
			}
			fail("%s", msg)
		}
	}
}

// responseFor is the operation's response for a status: the code, its
// class (4XX) or default.
func responseFor(op *v3.Operation, status int) *v3.Response {
	if op.Responses == nil {
		return nil
	}
	if op.Responses.Codes != nil {
		if r := op.Responses.Codes.GetOrZero(strconv.Itoa(status)); r != nil {
			return r
		}
		if r := op.Responses.Codes.GetOrZero(fmt.Sprintf("%dXX", status/100)); r != nil {
			return r
		}
	}
	return op.Responses.Default
}

// wantMessage checks the {"message"} body of answers the document's
// conventions cover (404 for unlisted paths, 405).
func (c *C) wantMessage(r *resp, fail func(string, ...any)) {
	var m struct {
		Message *string `json:"message"`
	}
	if !strings.HasPrefix(r.h.Get("Content-Type"), "application/json") || json.Unmarshal(r.body, &m) != nil || m.Message == nil {
		fail("body is not {\"message\": …}: %q", r.body)
	}
}

// decoded is the body with its Content-Encoding undone: the document
// describes representations, whatever coding carried them.
func decoded(r *resp) ([]byte, error) {
	var rd io.Reader
	switch ce := r.h.Get("Content-Encoding"); ce {
	case "", "identity":
		return r.body, nil
	case "br":
		rd = brotli.NewReader(bytes.NewReader(r.body))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(r.body))
		if err != nil {
			return nil, fmt.Errorf("gzip body: %v", err)
		}
		rd = zr
	default:
		return nil, fmt.Errorf("unknown Content-Encoding %q", ce)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("%s body: %v", r.h.Get("Content-Encoding"), err)
	}
	return b, nil
}
