package main

import (
	"strings"
	"testing"

	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// TestTrendingBlockList: the operator blocks a phrase as searched (it is
// normalised as trending counts it), lists and unblocks it; a phrase
// trending never counts is refused with the reason.
func TestTrendingBlockList(t *testing.T) {
	url := pgtest.URL(t)
	steps := []struct {
		args    []string
		want    string // output, or the error's start with err
		wantErr bool
	}{
		{[]string{"trending", "list"}, "", false},
		{[]string{"trending", "block", "  Bad   WORD "}, "blocked \"bad word\"\n", false},
		{[]string{"trending", "block", "bad word"}, "blocked \"bad word\"\n", false},
		{[]string{"trending", "block", "amen"}, "blocked \"amen\"\n", false},
		{[]string{"trending", "list"}, "amen\nbad word\n", false},
		{[]string{"trending", "block", "<script>"}, "\"<script>\" is not a phrase trending counts", true},
		{[]string{"trending", "unblock", "BAD word"}, "unblocked \"bad word\"\n", false},
		{[]string{"trending", "unblock", "bad word"}, "\"bad word\" is not blocked", true},
		{[]string{"trending", "list"}, "amen\n", false},
	}
	for _, s := range steps {
		out, err := run(t, append(s.args, "--database-url", url)...)
		switch {
		case s.wantErr && (err == nil || !strings.HasPrefix(err.Error(), s.want)):
			t.Errorf("%v: error %v, want %q", s.args, err, s.want)
		case !s.wantErr && (err != nil || out != s.want):
			t.Errorf("%v: %q %v, want %q", s.args, out, err, s.want)
		}
	}
}
