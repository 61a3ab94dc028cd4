package main

import (
	"context"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
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
		var c cli
		p, err := kong.New(&c, kong.Name("publish"), kong.Exit(func(int) { t.Fatal("kong exited") }))
		if err != nil {
			t.Fatal(err)
		}
		k, err := p.Parse(args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		k.BindTo(context.Background(), (*context.Context)(nil))
		err = k.Run()
		if err == nil || !strings.Contains(err.Error(), "`dynamic "+args[0]) {
			t.Errorf("publish %v: %v, want an error naming dynamic %s", args, err, args[0])
		}
	}
}
