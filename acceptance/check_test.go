package acceptance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// result is one rule checked in one pass.
type result struct {
	pass  string // "dir", "minio", …
	group string // the part of the rule name before "/"
	name  string
	ok    bool
	why   string
}

func (r result) line() string {
	if r.ok {
		return fmt.Sprintf("PASS [%s] %s/%s", r.pass, r.group, r.name)
	}
	return fmt.Sprintf("FAIL [%s] %s/%s: %s", r.pass, r.group, r.name, r.why)
}

// report collects results and prints one line per rule as it goes.
type report struct {
	mu      sync.Mutex
	out     io.Writer
	results []result
	notes   []string
}

func (r *report) add(res result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, res)
	fmt.Fprintln(r.out, res.line())
}

// note records something that is neither a pass nor a fail: a place where
// the spec and the live service's client disagree.
func (r *report) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, s)
	fmt.Fprintln(r.out, "NOTE "+s)
}

func (r *report) counts() (passed, failed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range r.results {
		if res.ok {
			passed++
		} else {
			failed++
		}
	}
	return passed, failed
}

// env is what the rules of one pass run against.
type env struct {
	pass   string
	base   string
	demo   demo
	client *http.Client
	rep    *report
}

func newClient() *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		// Redirects (301, 303, 308) are what some rules check.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		// Encodings are checked by hand; the transport must not add
		// Accept-Encoding and decode behind the suite's back.
		Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16},
	}
}

// abort stops a rule after a failure that makes the rest meaningless.
type abort struct{}

// C is the context of one rule: its failures and its requests.
type C struct {
	e    *env
	errs []string
	// noRetry turns off the polite client: by default a 429 is waited out
	// (Retry-After) and the request sent again, as a real client does, so
	// that the suite's own pace never decides a rule. The 429 rule sets it.
	noRetry bool
}

// rule runs fn as one named rule and records the outcome.
func (e *env) rule(name string, fn func(c *C)) {
	group, rest, ok := strings.Cut(name, "/")
	if !ok {
		panic("rule name without a group: " + name)
	}
	c := &C{e: e}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(abort); !ok {
					c.errs = append(c.errs, fmt.Sprintf("panic: %v", p))
				}
			}
		}()
		fn(c)
	}()
	res := result{pass: e.pass, group: group, name: rest, ok: len(c.errs) == 0}
	if !res.ok {
		why := c.errs
		if len(why) > 4 {
			why = append(why[:4:4], fmt.Sprintf("… and %d more", len(c.errs)-4))
		}
		res.why = strings.Join(why, "; ")
	}
	e.rep.add(res)
}

func (c *C) Errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *C) Fatalf(format string, args ...any) {
	c.Errorf(format, args...)
	panic(abort{})
}

// hdr are request headers. The demo app's key is sent unless hdr names
// X-SVC-App-Key; an empty value there sends no key at all.
type hdr map[string]string

type resp struct {
	method, path string
	status       int
	h            http.Header
	body         []byte
}

func (r *resp) String() string {
	b := r.body
	if len(b) > 200 {
		b = append(b[:200:200], "…"...)
	}
	return fmt.Sprintf("%s %s → %d %q", r.method, r.path, r.status, b)
}

func (c *C) get(path string, h hdr) *resp { return c.do("GET", path, h, "") }

// do sends one request to the pass's edge (or to an absolute URL).
func (c *C) do(method, path string, h hdr, body string) *resp {
	return c.doWith(c.e.client, method, path, h, body)
}

// newRequest is a request to the pass's edge (or to an absolute URL) with
// the headers hdr says and, with a body, JSON's Content-Type unless hdr
// names another.
func (e *env) newRequest(method, path string, h hdr, body string) (*http.Request, error) {
	u := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		u = e.base + path
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return nil, err
	}
	if _, ok := h["X-SVC-App-Key"]; !ok {
		req.Header.Set("X-SVC-App-Key", e.demo.AppKey)
	}
	for k, v := range h {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

func (c *C) doWith(client *http.Client, method, path string, h hdr, body string) *resp {
	req, err := c.e.newRequest(method, path, h, body)
	if err != nil {
		c.Fatalf("%s %s: %v", method, path, err)
	}
	for try := 0; ; try++ {
		if body != "" {
			req.Body = io.NopCloser(strings.NewReader(body))
		}
		r, err := client.Do(req)
		if err != nil {
			c.Fatalf("%s %s: %v", method, path, err)
		}
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			c.Fatalf("%s %s: read body: %v", method, path, err)
		}
		if r.StatusCode == http.StatusTooManyRequests && !c.noRetry && try < 5 {
			wait, err := strconv.Atoi(r.Header.Get("Retry-After"))
			if err != nil || wait < 1 {
				wait = 1
			}
			time.Sleep(time.Duration(wait) * time.Second)
			continue
		}
		res := &resp{method: method, path: path, status: r.StatusCode, h: r.Header, body: b}
		// Every answer, whatever the rule asks of it, must be one the
		// OpenAPI document allows (acceptance/openapi_test.go).
		c.conform(req, res)
		return res
	}
}

// status checks the status code and stops the rule when it is wrong: what
// follows reads a body of the expected kind.
func (c *C) status(r *resp, want ...int) {
	for _, w := range want {
		if r.status == w {
			return
		}
	}
	c.Fatalf("%s, want status %v", r, want)
}

// json checks that r is JSON, decodes it (numbers kept exact) and
// validates it against s. It stops the rule when the body is not JSON.
func (c *C) json(r *resp, s schema) any {
	if ct := r.h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		c.Errorf("%s %s: Content-Type %q, want application/json", r.method, r.path, ct)
	}
	v, err := decode(r.body)
	if err != nil {
		c.Fatalf("%s %s: body is not JSON: %v: %q", r.method, r.path, err, r.body)
	}
	if s != nil {
		var errs []string
		s.validate("$", v, &errs)
		for _, e := range errs {
			c.Errorf("%s %s: %s", r.method, r.path, e)
		}
	}
	return v
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// noCORS checks the spec's rule for 401 and 429: no Access-Control-*
// header, so that browser scripts cannot read the answer.
func (c *C) noCORS(r *resp) {
	for k := range r.h {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			c.Errorf("%s %s → %d carries %s", r.method, r.path, r.status, k)
		}
	}
}

func (c *C) header(r *resp, name, want string) {
	if got := r.h.Get(name); got != want {
		c.Errorf("%s %s: %s = %q, want %q", r.method, r.path, name, got, want)
	}
}

func (c *C) emptyBody(r *resp) {
	if len(r.body) != 0 {
		c.Errorf("%s %s → %d has a body %q, want none", r.method, r.path, r.status, r.body)
	}
}

// errMessage is the body of most API errors.
func (c *C) errMessage(r *resp, want int) string {
	c.status(r, want)
	v := c.json(r, messageSchema)
	m, _ := v.(map[string]any)["message"].(string)
	return m
}

// errDetail is the 422 body; it returns the loc entries joined by ".".
func (c *C) errDetail(r *resp) []string {
	c.status(r, 422)
	v := c.json(r, detailSchema)
	var locs []string
	for _, d := range v.(map[string]any)["detail"].([]any) {
		var parts []string
		for _, p := range d.(map[string]any)["loc"].([]any) {
			parts = append(parts, fmt.Sprint(p))
		}
		locs = append(locs, strings.Join(parts, "."))
	}
	return locs
}

// wantLoc checks that one 422 entry names the parameter.
func (c *C) wantLoc(r *resp, param string) {
	locs := c.errDetail(r)
	for _, l := range locs {
		// loc is a path such as body.requested_permissions.0 or
		// query.language_ranges[]: one of its parts must be the parameter.
		for _, part := range strings.Split(l, ".") {
			if part == param {
				return
			}
		}
	}
	c.Errorf("%s %s: 422 detail locs %v, want one naming %q", r.method, r.path, locs, param)
}

// obj, arr, str and num read decoded JSON without ceremony; a wrong type
// reads as the zero value (the schema check reports the type).
func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }
func num(v any) int64 {
	n, _ := v.(json.Number)
	i, _ := n.Int64()
	return i
}

// schema validates decoded JSON against the spec's field tables.
type schema interface {
	validate(path string, v any, errs *[]string)
}

func fail(errs *[]string, path, format string, args ...any) {
	*errs = append(*errs, path+": "+fmt.Sprintf(format, args...))
}

type tString struct {
	re    *regexp.Regexp
	enum  []string
	check func(string) error // a format: uuid, URL, timestamp
}

func (s tString) validate(path string, v any, errs *[]string) {
	x, ok := v.(string)
	if !ok {
		fail(errs, path, "want a string, got %s", kind(v))
		return
	}
	if s.re != nil && !s.re.MatchString(x) {
		fail(errs, path, "%q does not match %s", x, s.re)
	}
	if s.enum != nil {
		found := false
		for _, e := range s.enum {
			found = found || e == x
		}
		if !found {
			fail(errs, path, "%q is not one of %v", x, s.enum)
		}
	}
	if s.check != nil {
		if err := s.check(x); err != nil {
			fail(errs, path, "%q: %v", x, err)
		}
	}
}

// tInt is an integer; int32 unless wide.
type tInt struct{ wide bool }

func (s tInt) validate(path string, v any, errs *[]string) {
	n, ok := v.(json.Number)
	if !ok {
		fail(errs, path, "want an integer, got %s", kind(v))
		return
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		fail(errs, path, "want an integer, got %s", n)
		return
	}
	if !s.wide && (i < -1<<31 || i > 1<<31-1) {
		fail(errs, path, "%d is outside int32", i)
	}
}

type tNumber struct{}

func (tNumber) validate(path string, v any, errs *[]string) {
	if _, ok := v.(json.Number); !ok {
		fail(errs, path, "want a number, got %s", kind(v))
	}
}

type tArray struct {
	of  schema
	min int
}

func (s tArray) validate(path string, v any, errs *[]string) {
	a, ok := v.([]any)
	if !ok {
		fail(errs, path, "want an array, got %s", kind(v))
		return
	}
	if len(a) < s.min {
		fail(errs, path, "has %d items, want at least %d", len(a), s.min)
	}
	for i, x := range a {
		s.of.validate(fmt.Sprintf("%s[%d]", path, i), x, errs)
	}
}

type tNullable struct{ of schema }

func (s tNullable) validate(path string, v any, errs *[]string) {
	if v != nil {
		s.of.validate(path, v, errs)
	}
}

// tMap is an object with free keys (display_names).
type tMap struct{ of schema }

func (s tMap) validate(path string, v any, errs *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		fail(errs, path, "want an object, got %s", kind(v))
		return
	}
	for k, x := range m {
		s.of.validate(path+"."+k, x, errs)
	}
}

// tAny accepts one of several schemas (a 422 loc entry: string or index).
type tAny []schema

func (s tAny) validate(path string, v any, errs *[]string) {
	var first []string
	for _, o := range s {
		var e []string
		o.validate(path, v, &e)
		if len(e) == 0 {
			return
		}
		if first == nil {
			first = e
		}
	}
	*errs = append(*errs, first...)
}

// tObject is a resource: required and optional fields, and, unless open,
// no field the spec does not list (an internal field leaking out is a bug).
type tObject struct {
	req, opt map[string]schema
	open     bool
}

func (s tObject) validate(path string, v any, errs *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		fail(errs, path, "want an object, got %s", kind(v))
		return
	}
	for k, f := range s.req {
		x, ok := m[k]
		if !ok {
			fail(errs, path, "required field %q missing", k)
			continue
		}
		f.validate(path+"."+k, x, errs)
	}
	for k, x := range m {
		if _, ok := s.req[k]; ok {
			continue
		}
		if f, ok := s.opt[k]; ok {
			f.validate(path+"."+k, x, errs)
		} else if !s.open {
			fail(errs, path, "field %q is not in the spec", k)
		}
	}
}

// only narrows an object schema to the fields a fields[] request named:
// each must be present with its type, and nothing else.
func only(s tObject, fields ...string) tObject {
	out := tObject{req: map[string]schema{}}
	for _, f := range fields {
		if x, ok := s.req[f]; ok {
			out.req[f] = x
		} else if x, ok := s.opt[f]; ok {
			out.req[f] = x
		}
	}
	return out
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func isURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("not an absolute http(s) URL")
	}
	return nil
}

func isTimestamp(s string) error {
	_, err := time.Parse(time.RFC3339, s)
	return err
}
