package publish_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
)

// publishBuild writes a build naming the given packs (their content is
// their name) the way the build does: packs, then the manifest, then the
// pointer. It returns the build id.
func publishBuild(t *testing.T, s publish.Store, created time.Time, packs ...string) string {
	t.Helper()
	ctx := context.Background()
	m := &publish.Manifest{Created: created, Files: map[string]publish.PackRef{}}
	for _, p := range packs {
		data := []byte(p)
		ref := publish.PackRef{Key: contentKey(data), Size: int64(len(data)), Modified: created}
		if err := s.Put(ctx, ref.Key, data); err != nil {
			t.Fatal(err)
		}
		m.Files[p] = ref
	}
	id := putCurrent(t, s, m)
	if err := publish.RecordSwitch(ctx, s, id, publish.SwitchBuild); err != nil {
		t.Fatal(err)
	}
	return id
}

// putCurrent writes manifest m and makes it the current build; it returns
// the build id.
func putCurrent(t *testing.T, s publish.Store, m *publish.Manifest) string {
	t.Helper()
	ctx := context.Background()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	id := m.BuildID()
	if err := s.Put(ctx, publish.ManifestKey(id), data); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCurrent(ctx, id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRollbackFollowsHistory: a build that was never current (it lost a
// race for the pointer) sorts between two that were; rollback skips it,
// and a second rollback goes further back, not forward again.
func TestRollbackFollowsHistory(t *testing.T) {
	ctx := context.Background()
	s, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b1 := publishBuild(t, s, day(1), "a")
	b2 := publishBuild(t, s, day(2), "b")
	// Never current: its manifest and packs are there, its switch is not.
	m := &publish.Manifest{Created: day(3)}
	data, _ := json.Marshal(m)
	if err := s.Put(ctx, publish.ManifestKey(m.BuildID()), data); err != nil {
		t.Fatal(err)
	}
	b4 := publishBuild(t, s, day(4), "d")
	for _, want := range []string{b2, b1} {
		got, err := publish.Rollback(ctx, s, "")
		if err != nil || got != want {
			t.Fatalf("Rollback = %s, %v; want %s (never current: %s)", got, err, want, m.BuildID())
		}
	}
	if _, err := publish.Rollback(ctx, s, b4); err != nil {
		t.Fatal(err)
	}
	if got, err := publish.Rollback(ctx, s, ""); err != nil || got != b1 {
		t.Errorf("Rollback after a named rollback = %s, %v; want %s, current before it", got, err, b1)
	}
	h, err := publish.History(ctx, s)
	if err != nil || len(h) != 7 {
		t.Errorf("history %+v, %v; want 7 switches", h, err)
	}
}

func day(n int) time.Time { return time.Date(2026, 1, n, 0, 0, 0, 0, time.UTC) }

// listing renders builds as "id*:packs/bytes", * marking the current one.
func listing(bs []publish.BuildInfo) string {
	var parts []string
	for _, b := range bs {
		cur := ""
		if b.Current {
			cur = "*"
		}
		parts = append(parts, fmt.Sprintf("%s%s:%d/%d", b.ID, cur, b.Packs, b.Bytes))
	}
	return strings.Join(parts, " ")
}

func TestBuildsAndRollback(t *testing.T) {
	backends(t, func(t *testing.T, newStore func(t *testing.T) publish.Store) {
		ctx := context.Background()
		s := newStore(t)
		if bs, err := publish.Builds(ctx, s); err != nil || len(bs) != 0 {
			t.Fatalf("Builds on an empty store = %v, %v", bs, err)
		}
		if _, err := publish.Rollback(ctx, s, ""); err == nil {
			t.Error("Rollback on an empty store: no error")
		}
		b1 := publishBuild(t, s, day(1), "gen", "exo")
		b2 := publishBuild(t, s, day(2), "gen", "exo2", "lev")
		b3 := publishBuild(t, s, day(3), "gen2")

		bs, err := publish.Builds(ctx, s)
		want := fmt.Sprintf("%s*:1/4 %s:3/10 %s:2/6", b3, b2, b1)
		if got := listing(bs); err != nil || got != want {
			t.Errorf("Builds = %s, %v; want %s", got, err, want)
		}

		for _, c := range []struct {
			arg, want string
		}{
			{"", b2}, // the one before the current
			{"", b1},
			{b3, b3}, // forward again, by name
		} {
			got, err := publish.Rollback(ctx, s, c.arg)
			if err != nil || got != c.want {
				t.Fatalf("Rollback(%q) = %s, %v; want %s", c.arg, got, err, c.want)
			}
			if cur, err := s.Current(ctx); err != nil || cur != c.want {
				t.Fatalf("after Rollback(%q) Current = %s, %v; want %s", c.arg, cur, err, c.want)
			}
		}

		// A build with a missing pack is refused; serving stays on b3.
		if err := s.Delete(ctx, contentKey([]byte("lev"))); err != nil {
			t.Fatal(err)
		}
		if _, err := publish.Rollback(ctx, s, b2); err == nil {
			t.Error("Rollback to a build with a missing pack: no error")
		}
		// An unknown or malformed id is named as such, not as a file
		// path or an object key.
		for _, id := range []string{"0123456789abcdef0123", "../x"} {
			_, err := publish.Rollback(ctx, s, id)
			if err == nil || !strings.Contains(err.Error(), "no build "+strconv.Quote(id)) ||
				strings.Contains(err.Error(), "builds/") {
				t.Errorf("Rollback(%q) = %v; want an error that says there is no such build", id, err)
			}
		}
		if cur, err := s.Current(ctx); err != nil || cur != b3 {
			t.Errorf("after refused rollbacks Current = %s, %v; want %s", cur, err, b3)
		}
	})
}

func TestGC(t *testing.T) {
	backends(t, func(t *testing.T, newStore func(t *testing.T) publish.Store) {
		ctx := context.Background()
		s := newStore(t)
		b1 := publishBuild(t, s, day(1), "shared", "only1")
		b2 := publishBuild(t, s, day(2), "shared", "only2", "in2and4")
		b3 := publishBuild(t, s, day(3), "shared", "only3")
		b4 := publishBuild(t, s, day(4), "shared", "in2and4")
		// An interrupted publish left a pack no manifest names.
		if err := s.Put(ctx, contentKey([]byte("orphan")), []byte("orphan")); err != nil {
			t.Fatal(err)
		}
		// Serving was rolled back to b2: it must survive keep=1.
		if _, err := publish.Rollback(ctx, s, b2); err != nil {
			t.Fatal(err)
		}
		key := func(p string) string { return contentKey([]byte(p)) }
		allKeys := func() string {
			keys, err := s.List(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			return strings.Join(keys, " ")
		}
		before := allKeys()

		if _, err := publish.GC(ctx, s, publish.GCOptions{Keep: 0, Delete: true}); err == nil {
			t.Error("GC with keep 0: no error")
		}
		dry, err := publish.GC(ctx, s, publish.GCOptions{Keep: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := allKeys(); got != before {
			t.Errorf("a dry run changed the store:\n%s\nwas\n%s", got, before)
		}
		rep, err := publish.GC(ctx, s, publish.GCOptions{Keep: 1, Delete: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name      string
			got, want string
		}{
			{"kept", strings.Join(rep.Kept, " "), b4 + " " + b2},
			{"removed builds", strings.Join(rep.RemovedBuilds, " "), b3 + " " + b1},
			{"removed objects", fmt.Sprint(rep.RemovedObjects, rep.RemovedBytes), fmt.Sprint(2, len("only1")+len("only3"))},
			{"dry run reports the same", fmt.Sprint(dry.Kept, dry.RemovedBuilds, dry.RemovedObjects, dry.Deleted), fmt.Sprint(rep.Kept, rep.RemovedBuilds, rep.RemovedObjects, false)},
		} {
			if c.got != c.want {
				t.Errorf("%s = %s; want %s", c.name, c.got, c.want)
			}
		}
		for _, c := range []struct {
			key  string
			want bool
		}{
			{key("shared"), true}, {key("only2"), true}, {key("in2and4"), true},
			{key("orphan"), true}, // only with Orphans
			{key("only1"), false}, {key("only3"), false},
			{publish.ManifestKey(b1), false}, {publish.ManifestKey(b3), false},
			{publish.ManifestKey(b2), true}, {publish.ManifestKey(b4), true},
		} {
			_, err := s.Stat(ctx, c.key)
			if got := err == nil; got != c.want {
				t.Errorf("after GC %s present = %t (%v); want %t", c.key, got, err, c.want)
			}
		}
		// Both kept builds still serve.
		for _, id := range []string{b4, b2} {
			if _, err := publish.Rollback(ctx, s, id); err != nil {
				t.Errorf("kept build %s is broken: %v", id, err)
			}
		}

		rep, err = publish.GC(ctx, s, publish.GCOptions{Keep: 2, Delete: true, Orphans: true})
		if err != nil || rep.RemovedObjects != 1 || rep.RemovedBytes != int64(len("orphan")) {
			t.Errorf("GC with orphans = %+v, %v; want the orphan removed", rep, err)
		}
		if _, err := s.Stat(ctx, key("orphan")); !publish.IsNotExist(err) {
			t.Errorf("orphan still there: %v", err)
		}
	})
}

// TestGCTemps: the temporary files a killed writer left in a directory
// store are removed by gc, once old enough that no live writer owns them.
func TestGCTemps(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, err := publish.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	publishBuild(t, s, day(1), "a")
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{".tmp-123", "objects/packs/.tmp-456", "objects/packs/.tmp-new"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(p, "new") {
			os.Chtimes(full, old, old)
		}
	}
	rep, err := publish.GC(ctx, s, publish.GCOptions{Keep: 1})
	if err != nil || rep.RemovedTemps != 2 || rep.RemovedTempBytes != 14 {
		t.Fatalf("dry run: %+v, %v; want 2 temporary files of 14 bytes", rep, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".tmp-123")); err != nil {
		t.Error("a dry run removed a temporary file")
	}
	if _, err := publish.GC(ctx, s, publish.GCOptions{Keep: 1, Delete: true}); err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(e.Name(), ".tmp-") {
			left = append(left, e.Name())
		}
		return nil
	})
	if fmt.Sprint(left) != "[.tmp-new]" {
		t.Errorf("temporary files left: %v; want only the recent one", left)
	}
}

// TestGCVolumes: a volume stays while a kept build names a pack in it and
// goes with the last such build; a rollback refuses a build whose volume
// is shorter than the packs it names in it.
func TestGCVolumes(t *testing.T) {
	backends(t, func(t *testing.T, newStore func(t *testing.T) publish.Store) {
		ctx := context.Background()
		s := newStore(t)
		put := func(key, data string) {
			if err := s.Put(ctx, key, []byte(data)); err != nil {
				t.Fatal(err)
			}
		}
		put("packs/v/1", "aaabbb")
		put("packs/v/2", "cccc")
		ref := func(key, vol string, off, size int64) publish.PackRef {
			return publish.PackRef{Key: key, Size: size, Volume: vol, Offset: off}
		}
		a, b, c := ref("packs/a", "packs/v/1", 0, 3), ref("packs/b", "packs/v/1", 3, 3), ref("packs/c", "packs/v/2", 0, 4)
		build := func(n int, refs ...publish.PackRef) string {
			m := &publish.Manifest{Created: day(n), Files: map[string]publish.PackRef{}}
			for _, r := range refs {
				m.Files[r.Key] = r
			}
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			id := m.BuildID()
			put(publish.ManifestKey(id), string(data))
			if err := s.SetCurrent(ctx, id); err != nil {
				t.Fatal(err)
			}
			return id
		}
		b1 := build(1, a, b)
		build(2, a, c)
		b3 := build(3, c)
		if bs, err := publish.Builds(ctx, s); err != nil || bs[0].ID != b3 || bs[0].Packs != 1 || bs[0].Bytes != 4 {
			t.Errorf("builds: %+v, %v", bs, err)
		}

		rep, err := publish.GC(ctx, s, publish.GCOptions{Keep: 2, Delete: true})
		if err != nil || strings.Join(rep.RemovedBuilds, " ") != b1 || rep.RemovedObjects != 0 {
			t.Errorf("keep 2: %+v, %v; want b1 gone and both volumes kept (b2 names a pack of each)", rep, err)
		}
		rep, err = publish.GC(ctx, s, publish.GCOptions{Keep: 1, Delete: true})
		if err != nil || rep.RemovedObjects != 1 || rep.RemovedBytes != 6 {
			t.Errorf("keep 1: %+v, %v; want volume 1 (6 bytes) gone", rep, err)
		}
		for key, want := range map[string]bool{"packs/v/1": false, "packs/v/2": true} {
			if _, err := s.Stat(ctx, key); (err == nil) != want {
				t.Errorf("after GC %s present = %v; want %v", key, err == nil, want)
			}
		}
		rep, err = publish.GC(ctx, s, publish.GCOptions{Keep: 1, Delete: true, Orphans: true})
		if err != nil || rep.RemovedObjects != 0 {
			t.Errorf("orphans: %+v, %v; want the named volume kept", rep, err)
		}
		if _, err := publish.Rollback(ctx, s, b3); err != nil {
			t.Errorf("rollback to the kept build: %v", err)
		}
		put("packs/v/2", "cc")
		if _, err := publish.Rollback(ctx, s, b3); err == nil || !strings.Contains(err.Error(), "volume packs/v/2 is 2 bytes") {
			t.Errorf("rollback to a build whose volume is short: %v", err)
		}
	})
}
