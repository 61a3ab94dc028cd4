package portal_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bibleplatform/platform/dynamic"
	. "github.com/bibleplatform/platform/dynamic/portal"
)

func TestParseAppForm(t *testing.T) {
	for _, tt := range []struct {
		name, description, website, useCase, callbacks string
		want                                           error // nil, or a Problem (matched by prefix)
		wantURLs                                       []string
	}{
		{"Reader", "", "", "Plans", "", nil, nil},
		{"  Reader  ", "d", "https://x.test", "Plans", "https://x.test/cb\n\n com.x.app:/cb \r\n", nil,
			[]string{"https://x.test/cb", "com.x.app:/cb"}},
		{"", "", "", "Plans", "", ErrAppName, nil},
		{strings.Repeat("x", 10000), "", "", "Plans", "", ErrAppName, nil},
		{strings.Repeat("é", MaxName), "", "", "Plans", "", nil, nil},
		{"Two\nlines", "", "", "Plans", "", ErrAppName, nil},
		{"Bad\xff", "", "", "Plans", "", ErrAppName, nil},
		{"Reader", strings.Repeat("d", MaxDescription+1), "", "Plans", "", ErrDescription, nil},
		{"Reader", "", "", "", "", ErrUseCase, nil},
		{"Reader", "", "", "Plans", "https://x.test/cb#frag", Problem("Callback URL not accepted"), nil},
		{"Reader", "", "", "Plans", "/relative", Problem("Callback URL not accepted"), nil},
		{"Reader", "", "", "Plans", "javascript:alert(1)", Problem("Callback URL not accepted"), nil},
		{"Reader", "", "", "Plans", strings.Repeat("https://x.test/cb\n", MaxCallbackURLs+1), ErrManyCallback, nil},
		{"Reader", "", strings.Repeat("w", MaxURL+1), "Plans", "", ErrWebsite, nil},
	} {
		got, err := ParseAppForm(tt.name, tt.description, tt.website, tt.useCase, tt.callbacks, dynamic.CheckRedirectURI)
		var p Problem
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("ParseAppForm(%.20q, …, %.30q) = %v, want no problem", tt.name, tt.callbacks, err)
		case tt.want != nil && (!errors.As(err, &p) || !strings.HasPrefix(string(p), tt.want.Error())):
			t.Errorf("ParseAppForm(%.20q, …, %.30q) = %v, want %q", tt.name, tt.callbacks, err, tt.want)
		case tt.want == nil && !slices.Equal(got.CallbackURLs, tt.wantURLs):
			t.Errorf("callback URLs %q, want %q", got.CallbackURLs, tt.wantURLs)
		}
	}
}

func TestCheckOrganizationName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"Psalter Labs", true},
		{"", false},
		{"   ", false},
		{strings.Repeat("n", MaxName), true},
		{strings.Repeat("n", MaxName+1), false},
		{"a\nb", false},
		{"nul\x00", false},
	} {
		if got := CheckOrganizationName(tt.name) == nil; got != tt.ok {
			t.Errorf("CheckOrganizationName(%.20q) ok = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

// FuzzParseAppForm: whatever a form sends, the answer is a Problem or a
// form within the limits whose callback URLs have no fragment.
func FuzzParseAppForm(f *testing.F) {
	f.Add("Reader", "desc", "https://x.test", "plans", "https://x.test/cb\ncom.x:/cb")
	f.Add("", "", "", "", "#")
	f.Add("x", "", "", "y", "http://[::1]:80/cb?a=b#c")
	f.Fuzz(func(t *testing.T, name, description, website, useCase, callbacks string) {
		got, err := ParseAppForm(name, description, website, useCase, callbacks, dynamic.CheckRedirectURI)
		if err != nil {
			var p Problem
			if !errors.As(err, &p) {
				t.Fatalf("error %v is not a Problem", err)
			}
			return
		}
		if got.Name == "" || utf8.RuneCountInString(got.Name) > MaxName || got.UseCase == "" ||
			len(got.CallbackURLs) > MaxCallbackURLs {
			t.Fatalf("accepted %+v", got)
		}
		for _, u := range got.CallbackURLs {
			if strings.Contains(u, "#") || u == "" {
				t.Fatalf("accepted callback %q", u)
			}
		}
	})
}
