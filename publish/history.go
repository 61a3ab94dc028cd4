package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The history of what was current: one small object per switch,
// history/<sequence>.json, written by the writer holding the lease right
// after it moved the pointer. Rollback without a build name undoes the
// last switch that was not itself undone, so that it goes to a build that
// really was current before, never to one that merely sorts before it.

const historyPrefix = "history/"

// Switch is one history entry.
type Switch struct {
	Build string    `json:"build"`
	Op    string    `json:"op"` // SwitchBuild, SwitchRollback or SwitchRollbackTo
	At    time.Time `json:"at"`
}

// The kinds of switch.
const (
	SwitchBuild      = "build"       // a build became current
	SwitchRollback   = "rollback"    // the last switch was undone (Rollback without a name)
	SwitchRollbackTo = "rollback-to" // a named build was made current
)

// RecordSwitch appends a switch to build to the store's history. The
// caller holds the lease: sequence numbers are taken without a race only
// then.
func RecordSwitch(ctx context.Context, s Store, build, op string) error {
	keys, err := s.List(ctx, historyPrefix)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	next := 1
	if len(keys) > 0 {
		n, _ := historySeq(keys[len(keys)-1])
		next = n + 1
	}
	data, err := json.Marshal(Switch{Build: build, Op: op, At: time.Now().UTC()})
	if err != nil {
		return err
	}
	return s.Put(ctx, fmt.Sprintf("%s%020d.json", historyPrefix, next), data)
}

func historySeq(key string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(key, historyPrefix), ".json"))
	return n, err == nil
}

// History returns the store's switches, oldest first.
func History(ctx context.Context, s Store) ([]Switch, error) {
	keys, err := s.List(ctx, historyPrefix)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	out := make([]Switch, 0, len(keys))
	for _, k := range keys {
		if _, ok := historySeq(k); !ok {
			continue
		}
		data, err := s.Get(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		var sw Switch
		if err := json.Unmarshal(data, &sw); err != nil {
			return nil, fmt.Errorf("history %s: %w", k, err)
		}
		out = append(out, sw)
	}
	return out, nil
}

// currentStack replays the history into the stack of builds that were
// current: a build or a named rollback pushes, a rollback pops. cur, the
// pointer as it is, goes on top when the history does not end with it (a
// switch not recorded: a crash between the switch and its record, or a
// writer that keeps no history).
func currentStack(h []Switch, cur string) []string {
	var st []string
	for _, sw := range h {
		switch sw.Op {
		case SwitchRollback:
			if len(st) > 0 {
				st = st[:len(st)-1]
			}
			if len(st) == 0 || st[len(st)-1] != sw.Build {
				st = append(st, sw.Build)
			}
		default:
			st = append(st, sw.Build)
		}
	}
	if cur != "" && (len(st) == 0 || st[len(st)-1] != cur) {
		st = append(st, cur)
	}
	return st
}

// previousCurrent is the build that was current before cur, by the
// history; ok is false when the history does not reach back that far.
func previousCurrent(h []Switch, cur string) (string, bool) {
	st := currentStack(h, cur)
	// A build current twice in a row (rebuilt, unchanged) is one state.
	for i := len(st) - 2; i >= 0; i-- {
		if st[i] != cur {
			return st[i], true
		}
	}
	return "", false
}
