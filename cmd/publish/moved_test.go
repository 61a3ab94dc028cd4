package main

import (
	"strings"
	"testing"
)

// The admin commands' old spellings fail and name the new one, flags and
// all, instead of running or printing usage.
func TestMovedCommands(t *testing.T) {
	for _, args := range [][]string{
		{"seed", "--store", ".run/store"},
		{"apps", "create", "--name", "Reader", "--key"},
		{"keys", "revoke", "--id", "3"},
		{"licenses", "agree", "--license", "2"},
		{"users", "token", "--user", "x"},
	} {
		_, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), "`dynamic "+args[0]) {
			t.Errorf("publish %v: %v, want an error naming dynamic %s", args, err, args[0])
		}
	}
}
