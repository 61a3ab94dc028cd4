package main

import (
	"os"
	"strings"
	"testing"
)

// TestParsePgbench reads pgbench's summary, including the one it prints
// when its clients spent the whole round connecting.
func TestParsePgbench(t *testing.T) {
	for _, tc := range []struct {
		name    string
		out     string
		tx, tps float64
		err     bool
	}{
		{"round", "number of transactions actually processed: 14186\nlatency average = 2.672 ms\ninitial connection time = 416.159 ms\ntps = 23952.965332 (without initial connection time)\n", 14186, 23952.965332, false},
		{"all connecting", "number of transactions actually processed: 0\nnumber of failed transactions: 0 (NaN%)\n", 0, 0, false},
		{"no summary", "pgbench: error: connection to server failed\n", 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx, tps, err := parsePgbench([]byte(tc.out))
			if (err != nil) != tc.err || tx != tc.tx || tps != tc.tps {
				t.Errorf("got %v, %v, %v; want %v, %v, error %v", tx, tps, err, tc.tx, tc.tps, tc.err)
			}
		})
	}
}

// TestNoTransactionsIsAnError: a workload whose every round was empty has
// nothing to compare with, and says why instead of printing a ratio.
func TestNoTransactionsIsAnError(t *testing.T) {
	p := &pgbench{name: "pgbench -S", conc: 64, rounds: 3, empty: []string{"number of transactions actually processed: 0"}}
	err := p.print()
	if err == nil || !strings.Contains(err.Error(), "processed no transaction in 3 rounds") {
		t.Errorf("got %v", err)
	}
}

// TestReadStat reads this process's own /proc entry.
func TestReadStat(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	st, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getppid() {
		t.Errorf("ppid %d, want %d", st.ppid, os.Getppid())
	}
}
