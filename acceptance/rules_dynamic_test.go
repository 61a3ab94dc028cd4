package acceptance

import (
	"crypto/rand"
	"fmt"
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// The demo apps' callback (dynamic seed's default), where the consent flow
// lands.
const callback = "http://localhost:3000/callback"

var (
	formAction = regexp.MustCompile(`<form[^>]*action="([^"]*)"`)
	csrfField  = regexp.MustCompile(`name="csrf" value="([^"]*)"`)
)

// consent drives the browser half of the data-exchange flow over HTTP with
// a cookie jar: open the approval page, submit the form with decision, and
// return the page and the answer to the submission.
func consent(c *C, token, appParam, decision string) (page, done *resp) {
	browser := signedInBrowser(c)
	page, target, csrf := approvalPage(c, browser, token, appParam)
	return page, submitApproval(c, browser, target, csrf, decision)
}

// newBrowser is a client with a cookie jar.
func newBrowser() *http.Client {
	jar, _ := cookiejar.New(nil)
	browser := newClient()
	browser.Jar = jar
	return browser
}

// signedInBrowser is a browser signed in on the platform's own sign-in
// page as the demo user, whose consent the approval page takes
// (docs/dynamic.md: only the token's user can answer it).
func signedInBrowser(c *C) *http.Client {
	browser := newBrowser()
	page := c.doWith(browser, "GET", "/auth/sign-in", noKey, "")
	c.status(page, 200)
	m := csrfField.FindSubmatch(page.body)
	if m == nil {
		c.Fatalf("sign-in page without a csrf field: %.300q", page.body)
	}
	form := url.Values{"csrf": {string(m[1])}, "email": {c.e.demo.AccountEmail}, "password": {c.e.demo.AccountPassword}}
	done := c.doWith(browser, "POST", "/auth/sign-in", hdr{"X-SVC-App-Key": "", "Content-Type": "application/x-www-form-urlencoded"},
		form.Encode())
	c.status(done, 303)
	return browser
}

// submitApproval posts the approval form as the browser would.
func submitApproval(c *C, browser *http.Client, target, csrf, decision string) *resp {
	form := url.Values{"csrf": {csrf}, "decision": {decision}}.Encode()
	return c.doWith(browser, "POST", target, hdr{"X-SVC-App-Key": "", "Content-Type": "application/x-www-form-urlencoded"}, form)
}

// approvalPage opens the approval page in browser and returns it with its
// form's target and csrf value.
func approvalPage(c *C, browser *http.Client, token, appParam string) (page *resp, target, csrf string) {
	page = c.doWith(browser, "GET", "/data-exchange?token="+url.QueryEscape(token)+"&"+appParam, noKey, "")
	c.status(page, 200)
	if ct := page.h.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		c.Errorf("approval page Content-Type %q, want text/html", ct)
	}
	am, cm := formAction.FindSubmatch(page.body), csrfField.FindSubmatch(page.body)
	if am == nil || cm == nil {
		c.Fatalf("approval page without a form action or a csrf field: %.300q", page.body)
	}
	action := html.UnescapeString(string(am[1]))
	target = "/data-exchange"
	switch {
	case strings.HasPrefix(action, "?"):
		target += action
	case strings.HasPrefix(action, "/"):
		target = action
	case action == "":
		target += "?token=" + url.QueryEscape(token) + "&" + appParam
	default:
		c.Fatalf("form action %q is neither relative nor absolute-path", action)
	}
	return page, target, string(cm[1])
}

// callbackQuery checks a 303 to the app's callback and returns its query.
func callbackQuery(c *C, r *resp) url.Values {
	c.status(r, 303)
	loc, err := url.Parse(r.h.Get("Location"))
	if err != nil {
		c.Fatalf("Location %q: %v", r.h.Get("Location"), err)
	}
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != callback {
		c.Errorf("redirect to %s, want the app's callback %s", got, callback)
	}
	return loc.Query()
}

// dynamicRules: user data behind the gateway. They run in order: the grant
// the consent rules obtain is what the highlight rules use.
func dynamicRules(e *env, fx *fixtures) {
	user := hdr{"Authorization": "Bearer " + e.demo.UserToken}
	with := func(h hdr, kv ...string) hdr {
		out := hdr{}
		for k, v := range h {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	const otherApp = "5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a02" // fixtures/access.json: the unlicensed app

	e.rule("dynamic/apps.summary", func(c *C) {
		r := c.get("/v1/apps/"+e.demo.AppID, nil)
		c.status(r, 200)
		a := obj(c.json(r, appSchema))
		if str(a["app_id"]) != e.demo.AppID {
			c.Errorf("app_id %q, want %q", a["app_id"], e.demo.AppID)
		}
	})
	// Unknown paths and methods under the routes the edge forwards answer
	// in the spec's JSON shape, like every other error.
	e.rule("dynamic/404-405-are-json", func(c *C) {
		for _, tc := range []struct {
			method, path string
			status       int
		}{
			{"GET", "/v1/highlights/JHN.3.16/x?bible_id=9001", 404},
			{"GET", "/v1/apps/" + e.demo.AppID + "/nothing", 404},
			{"GET", "/data-exchange/nothing", 404},
			{"PATCH", "/v1/highlights", 405},
		} {
			r := c.do(tc.method, tc.path, user, "")
			if m := c.errMessage(r, tc.status); m == "" {
				c.Errorf("%s %s: %d without a message", tc.method, tc.path, tc.status)
			}
		}
	})
	e.rule("dynamic/apps.404-unknown", func(c *C) {
		c.errMessage(c.get("/v1/apps/"+newUUID(), nil), 404)
	})
	e.rule("dynamic/apps.422-not-a-uuid", func(c *C) {
		c.wantLoc(c.get("/v1/apps/not-a-uuid", nil), "app_id")
	})
	e.rule("dynamic/permissions.none-granted-yet", func(c *C) {
		r := c.get("/v1/apps/"+e.demo.AppID+"/permissions", user)
		c.status(r, 200)
		if p := arr(obj(c.json(r, permissionsSchema))["permissions"]); len(p) != 0 {
			c.Errorf("permissions %v before any consent, want []", p)
		}
	})
	e.rule("dynamic/permissions.401-without-user-token", func(c *C) {
		if r := c.get("/v1/apps/"+e.demo.AppID+"/permissions", nil); r.status != 401 {
			c.Errorf("%s, want 401", r)
		}
	})
	e.rule("dynamic/permissions.403-for-another-app", func(c *C) {
		c.errMessage(c.get("/v1/apps/"+otherApp+"/permissions", user), 403)
	})
	e.rule("dynamic/gateway.client-cannot-claim-an-app", func(c *C) {
		// The gateway injects the verified app id; a client's own claim
		// must not get it another app's answer.
		r := c.get("/v1/apps/"+otherApp+"/permissions", with(user, "X-Verified-App-Id", otherApp))
		if r.status != 403 {
			c.Errorf("%s, want 403: the edge must drop a client's X-Verified-App-Id", r)
		}
	})
	hl := func(passage, color string) string {
		return fmt.Sprintf(`{"request_id":%q,"highlight":{"bible_id":9001,"passage_id":%q,"color":%q}}`, newUUID(), passage, color)
	}
	e.rule("dynamic/highlights.401-without-user-token", func(c *C) {
		if r := c.do("POST", "/v1/highlights", nil, hl("JHN.3.16", "ffcc00")); r.status != 401 {
			c.Errorf("%s, want 401", r)
		}
		if r := c.get("/v1/highlights?bible_id=9001&passage_id=JHN.3", nil); r.status != 401 {
			c.Errorf("%s, want 401", r)
		}
	})
	e.rule("dynamic/highlights.403-without-grant", func(c *C) {
		c.errMessage(c.do("POST", "/v1/highlights", user, hl("JHN.3.16", "ffcc00")), 403)
		c.errMessage(c.get("/v1/highlights?bible_id=9001&passage_id=JHN.3", user), 403)
	})

	token := func(c *C, key string) string {
		r := c.do("POST", "/data-exchange/token", with(user, "X-SVC-App-Key", key), `{"requested_permissions":["highlights"]}`)
		c.status(r, 201)
		return str(obj(c.json(r, exchangeTokenSchema))["token"])
	}
	e.rule("dynamic/exchange-token.201", func(c *C) {
		r := c.do("POST", "/data-exchange/token", user, `{"requested_permissions":["highlights"]}`)
		c.status(r, 201)
		v := obj(c.json(r, exchangeTokenSchema))
		if num(v["expires_in"]) != 300 || str(v["token"]) == "" {
			c.Errorf("token %v, want a token that expires in 300 s", v)
		}
	})
	e.rule("dynamic/exchange-token.401-without-user-token", func(c *C) {
		if r := c.do("POST", "/data-exchange/token", nil, `{"requested_permissions":["highlights"]}`); r.status != 401 {
			c.Errorf("%s, want 401", r)
		}
	})
	e.rule("dynamic/exchange-token.422", func(c *C) {
		for _, body := range []string{`{"requested_permissions":[]}`, `{"requested_permissions":["photos"]}`, `{}`, `{"requested_permissions":"highlights"}`} {
			c.wantLoc(c.do("POST", "/data-exchange/token", user, body), "requested_permissions")
		}
	})
	e.rule("dynamic/exchange-token.412-archived-app", func(c *C) {
		r := c.do("POST", "/data-exchange/token", with(user, "X-SVC-App-Key", e.demo.ArchivedAppKey), `{"requested_permissions":["highlights"]}`)
		c.errMessage(r, 412)
	})
	e.rule("dynamic/consent.cancel-303", func(c *C) {
		_, done := consent(c, token(c, e.demo.AppKey), "x-svc-app-id="+e.demo.AppID, "cancel")
		q := callbackQuery(c, done)
		if q.Get("data_exchange_status") != "cancelled" || q.Get("denied_permissions") != "highlights" || q.Get("error") != "access_denied" {
			c.Errorf("callback query %v, want data_exchange_status=cancelled, denied_permissions=highlights, error=access_denied", q)
		}
		r := c.get("/v1/apps/"+e.demo.AppID+"/permissions", user)
		if p := arr(obj(c.json(r, permissionsSchema))["permissions"]); len(p) != 0 {
			c.Errorf("permissions %v after a cancel, want []", p)
		}
	})
	// Two approval tabs in one browser: answering one must not spend the
	// other (one csrf cookie per browser, not per page).
	e.rule("dynamic/consent.two-tabs", func(c *C) {
		browser := signedInBrowser(c)
		_, t1, csrf1 := approvalPage(c, browser, token(c, e.demo.AppKey), "x-svc-app-id="+e.demo.AppID)
		_, t2, csrf2 := approvalPage(c, browser, token(c, e.demo.AppKey), "x-svc-app-id="+e.demo.AppID)
		for i, f := range []struct{ target, csrf string }{{t1, csrf1}, {t2, csrf2}} {
			if q := callbackQuery(c, submitApproval(c, browser, f.target, f.csrf, "cancel")); q.Get("data_exchange_status") != "cancelled" {
				c.Errorf("tab %d: callback query %v, want data_exchange_status=cancelled", i+1, q)
			}
		}
	})
	// Completing the flow with the user's bearer token and no exchange
	// token would let the app consent for the user: refused in the spec's
	// {message} shape (docs/dynamic.md).
	// Sign-in (docs/sign-in.md): discovery and the keys are public; the
	// token endpoint answers OAuth 2.0's JSON errors; an authorization
	// request for an unregistered redirect URI is a page, never a redirect.
	e.rule("dynamic/sign-in.discovery", func(c *C) {
		d := obj(c.json(c.get("/.well-known/openid-configuration", noKey), nil))
		if str(d["issuer"]) == "" || str(d["token_endpoint"]) != str(d["issuer"])+"/auth/token" ||
			str(d["jwks_uri"]) != str(d["issuer"])+"/.well-known/jwks.json" {
			c.Errorf("discovery %v", d)
		}
		keys := arr(obj(c.json(c.get("/.well-known/jwks.json", noKey), nil))["keys"])
		if len(keys) == 0 {
			c.Errorf("the JWKS has no key")
		}
	})
	e.rule("dynamic/sign-in.token-errors", func(c *C) {
		form := hdr{"X-SVC-App-Key": "", "Content-Type": "application/x-www-form-urlencoded"}
		r := c.do("POST", "/auth/token", form, url.Values{"grant_type": {"authorization_code"}, "code": {"nothing"},
			"client_id": {e.demo.AppKey}, "redirect_uri": {e.demo.RedirectURI}, "code_verifier": {strings.Repeat("v", 43)}}.Encode())
		c.status(r, 400)
		if v := obj(c.json(r, nil)); str(v["error"]) != "invalid_grant" {
			c.Errorf("unknown code: %v, want invalid_grant", v)
		}
		q := url.Values{"response_type": {"code"}, "client_id": {e.demo.AppKey}, "redirect_uri": {e.demo.RedirectURI + "x"},
			"scope": {"openid"}, "state": {"s"}, "code_challenge": {strings.Repeat("c", 43)}, "code_challenge_method": {"S256"}}
		r = c.get("/auth/authorize?"+q.Encode(), noKey)
		c.status(r, 400)
		if r.h.Get("Location") != "" || !strings.HasPrefix(r.h.Get("Content-Type"), "text/html") {
			c.Errorf("unregistered redirect_uri: Location %q, Content-Type %q; want a page", r.h.Get("Location"), r.h.Get("Content-Type"))
		}
	})
	e.rule("dynamic/consent.bearer-only-refused", func(c *C) {
		r := c.do("POST", "/data-exchange?x-svc-app-id="+e.demo.AppID,
			with(user, "X-SVC-App-Key", "", "Content-Type", "application/x-www-form-urlencoded"), "decision=approve")
		if m := c.errMessage(r, 403); m == "" {
			c.Errorf("403 without a message")
		}
		p := arr(obj(c.json(c.get("/v1/apps/"+e.demo.AppID+"/permissions", user), permissionsSchema))["permissions"])
		if len(p) != 0 {
			c.Errorf("permissions %v after a bearer-only POST, want []", p)
		}
	})
	var consumed string
	e.rule("dynamic/consent.approve-303", func(c *C) {
		consumed = token(c, e.demo.AppKey)
		_, done := consent(c, consumed, "x-svc-app-key="+url.QueryEscape(e.demo.AppKey), "approve")
		q := callbackQuery(c, done)
		if q.Get("data_exchange_status") != "granted" || q.Get("granted_permissions") != "highlights" {
			c.Errorf("callback query %v, want data_exchange_status=granted, granted_permissions=highlights", q)
		}
	})
	e.rule("dynamic/consent.token-single-use", func(c *C) {
		if consumed == "" {
			c.Fatalf("no consumed token (the approve rule failed)")
		}
		r := c.get("/data-exchange?token="+url.QueryEscape(consumed)+"&x-svc-app-key="+url.QueryEscape(e.demo.AppKey), noKey)
		if r.status < 400 || r.status > 499 {
			c.Errorf("%s: a consumed token opened the page again, want a 4xx", r)
		}
		r = c.do("POST", "/data-exchange?token="+url.QueryEscape(consumed)+"&x-svc-app-key="+url.QueryEscape(e.demo.AppKey),
			hdr{"X-SVC-App-Key": "", "Content-Type": "application/x-www-form-urlencoded"}, "decision=approve&csrf=x")
		if r.status < 400 || r.status > 499 {
			c.Errorf("%s: a consumed token was accepted again, want a 4xx", r)
		}
	})
	e.rule("dynamic/permissions.granted", func(c *C) {
		r := c.get("/v1/apps/"+e.demo.AppID+"/permissions", user)
		c.status(r, 200)
		p := arr(obj(c.json(r, permissionsSchema))["permissions"])
		if len(p) != 1 || str(p[0]) != "highlights" {
			c.Errorf("permissions %v after approval, want [highlights]", p)
		}
	})

	get := func(c *C, passage string) map[string]string {
		r := c.get("/v1/highlights?bible_id=9001&passage_id="+passage, user)
		if r.status == 204 {
			c.emptyBody(r)
			return map[string]string{}
		}
		c.status(r, 200)
		out := map[string]string{}
		for _, h := range arr(obj(c.json(r, collection(highlightSchema, false, false)))["data"]) {
			out[str(obj(h)["passage_id"])] = str(obj(h)["color"])
		}
		return out
	}
	e.rule("dynamic/highlights.create-201", func(c *C) {
		r := c.do("POST", "/v1/highlights", user, hl("JHN.3.16", "ffcc00"))
		c.status(r, 201)
		h := obj(c.json(r, highlightSchema))
		if num(h["bible_id"]) != 9001 || str(h["passage_id"]) != "JHN.3.16" || str(h["color"]) != "ffcc00" {
			c.Errorf("created %v, want 9001 JHN.3.16 ffcc00", h)
		}
	})
	e.rule("dynamic/highlights.retry-with-same-request-id", func(c *C) {
		body := hl("JHN.2.1", "a1b2c3")
		first := c.do("POST", "/v1/highlights", user, body)
		c.status(first, 201)
		again := c.do("POST", "/v1/highlights", user, body)
		if again.status != first.status || string(again.body) != string(first.body) {
			c.Errorf("retry answered %d %q, first %d %q: want the same answer", again.status, again.body, first.status, first.body)
		}
	})
	// A request_id reused for another highlight is not a retry: 422 on
	// request_id, and the second highlight is not silently dropped as if
	// replayed (docs/dynamic.md).
	e.rule("dynamic/highlights.reused-request-id-422", func(c *C) {
		id := newUUID()
		body := func(passage string) string {
			return fmt.Sprintf(`{"request_id":%q,"highlight":{"bible_id":9001,"passage_id":%q,"color":"a1b2c4"}}`, id, passage)
		}
		c.status(c.do("POST", "/v1/highlights", user, body("JHN.2.2")), 201)
		c.wantLoc(c.do("POST", "/v1/highlights", user, body("JHN.2.3")), "request_id")
		if got := get(c, "JHN.2.3")["JHN.2.3"]; got != "" {
			c.Errorf("JHN.2.3 has colour %q after a refused request", got)
		}
	})
	// Bodies beyond the documented limit (64 KiB) are 413 with {message},
	// also when far beyond it (not a reset connection).
	e.rule("dynamic/highlights.413-oversized-body", func(c *C) {
		for _, size := range []int{100 << 10, 4 << 20} {
			pad := strings.Repeat("x", size)
			r := c.do("POST", "/v1/highlights", user, fmt.Sprintf(`{"request_id":%q,"highlight":{"bible_id":9001,"passage_id":"JHN.2.4","color":"a1b2c5"},"pad":%q}`, newUUID(), pad))
			if m := c.errMessage(r, 413); m == "" {
				c.Errorf("%d bytes: 413 without a message", size)
			}
		}
	})
	e.rule("dynamic/highlights.409-already-there", func(c *C) {
		r := c.do("POST", "/v1/highlights", user, hl("JHN.3.16", "ffcc00"))
		if r.status != 409 {
			c.Errorf("%s, want 409", r)
		}
	})
	e.rule("dynamic/highlights.recolour", func(c *C) {
		c.status(c.do("POST", "/v1/highlights", user, hl("JHN.3.16", "00aaff")), 200, 201)
		if got := get(c, "JHN.3.16")["JHN.3.16"]; got != "00aaff" {
			c.Errorf("colour after recolouring %q, want 00aaff", got)
		}
	})
	e.rule("dynamic/highlights.range-is-stored-per-verse", func(c *C) {
		c.status(c.do("POST", "/v1/highlights", user, hl("JHN.3.17-18", "112233")), 201)
		got := get(c, "JHN.3")
		want := map[string]string{"JHN.3.16": "00aaff", "JHN.3.17": "112233", "JHN.3.18": "112233"}
		for k, v := range want {
			if got[k] != v {
				c.Errorf("highlights of JHN.3 %v, want %v", got, want)
				break
			}
		}
		if len(got) != len(want) {
			c.Errorf("highlights of JHN.3 %v, want exactly %v", got, want)
		}
	})
	e.rule("dynamic/highlights.422", func(c *C) {
		c.wantLoc(c.get("/v1/highlights?passage_id=JHN.3", user), "bible_id")
		c.wantLoc(c.get("/v1/highlights?bible_id=9001", user), "passage_id")
		c.wantLoc(c.get("/v1/highlights?bible_id=x&passage_id=JHN.3", user), "bible_id")
		for _, tc := range []struct{ body, loc string }{
			{fmt.Sprintf(`{"request_id":%q,"highlight":{"bible_id":9001,"passage_id":"JHN.3.16","color":"FFCC00"}}`, newUUID()), "color"},
			{fmt.Sprintf(`{"request_id":%q,"highlight":{"bible_id":9001,"passage_id":"JHN.3.16","color":"#ffcc00"}}`, newUUID()), "color"},
			{`{"highlight":{"bible_id":9001,"passage_id":"JHN.3.16","color":"ffcc00"}}`, "request_id"},
			{`{"request_id":"not-a-uuid","highlight":{"bible_id":9001,"passage_id":"JHN.3.16","color":"ffcc00"}}`, "request_id"},
			{fmt.Sprintf(`{"request_id":%q}`, newUUID()), "highlight"},
			{fmt.Sprintf(`{"request_id":%q,"highlight":{"bible_id":"9001","passage_id":"JHN.3.16","color":"ffcc00"}}`, newUUID()), "bible_id"},
		} {
			c.wantLoc(c.do("POST", "/v1/highlights", user, tc.body), tc.loc)
		}
	})
	e.rule("dynamic/highlights.404-unknown-verse", func(c *C) {
		c.errMessage(c.do("POST", "/v1/highlights", user, hl("JHN.3.99", "ffcc00")), 404)
		c.errMessage(c.get("/v1/highlights?bible_id=99999&passage_id=JHN.3", user), 404)
	})
	e.rule("dynamic/highlights.delete", func(c *C) {
		r := c.do("DELETE", "/v1/highlights/JHN.3.16?bible_id=9001", user, "")
		if r.status < 200 || r.status > 299 {
			c.Fatalf("%s, want success", r)
		}
		got := get(c, "JHN.3")
		if _, ok := got["JHN.3.16"]; ok || len(got) != 2 {
			c.Errorf("after deleting JHN.3.16: %v, want JHN.3.17 and JHN.3.18 only", got)
		}
		r = c.do("DELETE", "/v1/highlights/JHN.3?bible_id=9001", user, "")
		if r.status < 200 || r.status > 299 {
			c.Fatalf("%s, want success", r)
		}
		if got := get(c, "JHN.3"); len(got) != 0 {
			c.Errorf("after deleting JHN.3: %v, want none", got)
		}
	})
	e.rule("dynamic/highlights.none-is-204", func(c *C) {
		// DESIGN.md: every 204 has no body and no Content-Type, those
		// forwarded from dynamic included.
		for _, r := range []*resp{
			c.get("/v1/highlights?bible_id=9001&passage_id=GEN.1", user),
			c.do("DELETE", "/v1/highlights/GEN.1.1?bible_id=9001", user, ""),
		} {
			c.status(r, 204)
			c.emptyBody(r)
			if ct := r.h.Get("Content-Type"); ct != "" {
				c.Errorf("%s %s → 204 with Content-Type %q, want none", r.method, r.path, ct)
			}
		}
	})

	e.rule("dynamic/licenses.all", func(c *C) {
		r := c.get("/v1/licenses", nil)
		c.status(r, 200)
		v := obj(c.json(r, collection(licenseSchema, false, false)))
		var ids []int
		for _, l := range arr(v["data"]) {
			lic := obj(l)
			id := int(num(lic["id"]))
			ids = append(ids, id)
			want := fx.biblesUnder(id)
			got := map[int]bool{}
			for _, b := range arr(lic["bible_ids"]) {
				got[int(num(b))] = true
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				c.Errorf("licence %d bible_ids %v, want %v", id, keysInt(got), keysInt(want))
			}
		}
		sort.Ints(ids)
		var want []int
		for id := range fx.licenses {
			want = append(want, id)
		}
		sort.Ints(want)
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			c.Errorf("licences %v, want %v", ids, want)
		}
	})
	e.rule("dynamic/licenses.bible_id", func(c *C) {
		r := c.get("/v1/licenses?bible_id=9002", nil)
		c.status(r, 200)
		data := arr(obj(c.json(r, collection(licenseSchema, false, false)))["data"])
		if len(data) != 1 || int(num(obj(data[0])["id"])) != fx.bibles[9002].LicenseID {
			c.Errorf("licences for Bible 9002: %d, want only licence %d", len(data), fx.bibles[9002].LicenseID)
		}
	})
	e.rule("dynamic/licenses.all_available-and-developer_id", func(c *C) {
		r := c.get("/v1/licenses?all_available=true", nil)
		c.status(r, 200)
		c.json(r, collection(licenseSchema, false, false))
		r = c.get("/v1/licenses?developer_id="+newUUID(), nil)
		if r.status == 204 {
			c.emptyBody(r)
		} else {
			c.status(r, 200)
			if d := arr(obj(c.json(r, collection(licenseSchema, false, false)))["data"]); len(d) != 0 {
				c.Errorf("a developer who agreed to nothing has %d licences", len(d))
			}
		}
		r = c.get("/v1/licenses?developer_id="+newUUID()+"&all_available=true", nil)
		c.status(r, 200)
		if d := arr(obj(c.json(r, collection(licenseSchema, false, false)))["data"]); len(d) != len(fx.licenses) {
			c.Errorf("developer_id with all_available=true: %d licences, want all %d", len(d), len(fx.licenses))
		}
	})
	e.rule("dynamic/licenses.422", func(c *C) {
		c.wantLoc(c.get("/v1/licenses?bible_id=abc", nil), "bible_id")
		c.wantLoc(c.get("/v1/licenses?developer_id=not-a-uuid", nil), "developer_id")
		c.wantLoc(c.get("/v1/licenses?all_available=perhaps", nil), "all_available")
	})
}

func keysInt(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
