package publish

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// The admin side of publishing: list builds, switch back to one, and
// remove what no kept build needs. A build is its manifest
// (builds/<id>.json); the build writes the manifest after every pack it
// names, so a listed build is complete unless something deleted its packs
// since, which Rollback checks before switching.

// BuildInfo describes one published build.
type BuildInfo struct {
	ID      string
	Created time.Time
	Current bool
	Packs   int   // distinct packs it names
	Bytes   int64 // their total size
}

// Builds lists the store's builds, newest first.
func Builds(ctx context.Context, s Store) ([]BuildInfo, error) {
	ms, cur, err := manifests(ctx, s)
	if err != nil {
		return nil, err
	}
	out := make([]BuildInfo, 0, len(ms))
	for id, m := range ms {
		b := BuildInfo{ID: id, Created: m.Created, Current: id == cur}
		for _, r := range packSet(m) {
			b.Packs++
			b.Bytes += r.Size
		}
		out = append(out, b)
	}
	sortNewestFirst(out)
	return out, nil
}

func sortNewestFirst(bs []BuildInfo) {
	sort.Slice(bs, func(i, j int) bool {
		if !bs[i].Created.Equal(bs[j].Created) {
			return bs[i].Created.After(bs[j].Created)
		}
		return bs[i].ID < bs[j].ID
	})
}

// manifests loads every build's manifest and the current id ("" if none).
func manifests(ctx context.Context, s Store) (map[string]*Manifest, string, error) {
	cur, err := s.Current(ctx)
	if err != nil && !IsNotExist(err) {
		return nil, "", fmt.Errorf("builds: %w", err)
	}
	keys, err := s.List(ctx, "builds/")
	if err != nil {
		return nil, "", fmt.Errorf("builds: %w", err)
	}
	ms := make(map[string]*Manifest, len(keys))
	for _, k := range keys {
		id, ok := strings.CutSuffix(strings.TrimPrefix(k, "builds/"), ".json")
		if !ok || strings.Contains(id, "/") {
			continue
		}
		m, err := loadManifest(ctx, s, id)
		if err != nil {
			return nil, "", fmt.Errorf("builds: %w", err)
		}
		ms[id] = m
	}
	return ms, cur, nil
}

func packSet(m *Manifest) map[string]PackRef {
	set := map[string]PackRef{}
	m.Packs(func(r *PackRef) { set[r.Key] = *r })
	return set
}

// object is what a build needs of one object of the store: a pack of its
// own, Size bytes, or a volume at least Size bytes long.
type object struct {
	Size   int64
	Volume bool
}

// objects are the store's objects that m's packs are in, by key.
func objects(m *Manifest) map[string]object {
	set := map[string]object{}
	m.Packs(func(r *PackRef) {
		if r.Volume == "" {
			set[r.Key] = object{Size: r.Size}
			return
		}
		o := set[r.Volume]
		set[r.Volume] = object{Size: max(o.Size, r.Offset+r.Size), Volume: true}
	})
	return set
}

// Rollback makes build current; with build "" it picks the build that was
// current before the current one, by the store's history (RecordSwitch),
// or, when the history does not reach back so far (a store written before
// it kept one), the newest build created before the current one. It refuses a build whose packs are not all in the store, so
// that a rollback never breaks serving. It records the switch and returns
// the id it switched to. The caller holds the store's lease.
func Rollback(ctx context.Context, s Store, build string) (string, error) {
	op := SwitchRollbackTo
	if build == "" {
		op = SwitchRollback
		var err error
		if build, err = previousBuild(ctx, s); err != nil {
			return "", err
		}
	}
	m, err := loadManifest(ctx, s, build)
	if IsNotExist(err) || errors.Is(err, ErrBadKey) {
		return "", fmt.Errorf("rollback: the store holds no build %q (publish builds lists those it holds)", build)
	}
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	if err := checkPacks(ctx, s, m); err != nil {
		return "", fmt.Errorf("rollback to %s: %w", build, err)
	}
	if err := s.SetCurrent(ctx, build); err != nil {
		return "", fmt.Errorf("rollback to %s: %w", build, err)
	}
	if err := RecordSwitch(ctx, s, build, op); err != nil {
		return build, fmt.Errorf("rollback to %s: switched, but not recorded in the history: %w", build, err)
	}
	return build, nil
}

// previousBuild is the build Rollback goes to when none is named.
func previousBuild(ctx context.Context, s Store) (string, error) {
	cur, err := s.Current(ctx)
	if IsNotExist(err) {
		return "", errors.New("rollback: no current build to roll back from; name a build")
	}
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	h, err := History(ctx, s)
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	if prev, ok := previousCurrent(h, cur); ok {
		return prev, nil
	}
	// A store written before it kept a history: by creation time.
	bs, err := Builds(ctx, s)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(bs, func(b BuildInfo) bool { return b.Current })
	switch {
	case i < 0:
		return "", fmt.Errorf("rollback: the current build %s has no manifest; name a build", cur)
	case i+1 >= len(bs):
		return "", fmt.Errorf("rollback: build %s is the oldest; nothing to roll back to", bs[i].ID)
	}
	return bs[i+1].ID, nil
}

// checkPacks stats every object m's packs are in, a few at a time.
func checkPacks(ctx context.Context, s Store, m *Manifest) error {
	sem := make(chan struct{}, 16)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for key, o := range objects(m) {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			n, err := s.Stat(ctx, key)
			switch {
			case err != nil:
			case o.Volume && n < o.Size:
				err = fmt.Errorf("volume %s is %d bytes, the manifest names packs up to %d", key, n, o.Size)
			case !o.Volume && n != o.Size:
				err = fmt.Errorf("pack %s is %d bytes, the manifest says %d", key, n, o.Size)
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 3 {
		errs = append(errs[:3], fmt.Errorf("and %d more", len(errs)-3))
	}
	return errors.Join(errs...)
}

// GCOptions say what GC keeps and whether it deletes.
type GCOptions struct {
	// Keep is how many of the newest builds to keep (at least 1). The
	// current build is always kept too, even when it is older (after a
	// rollback).
	Keep int
	// Delete does the deletions; without it GC only reports them (the
	// CLI's default dry run).
	Delete bool
	// Orphans also removes packs and volumes that no build names at all.
	// Those are what an interrupted publish leaves behind and what a
	// publish in progress has written so far, so this must not run while
	// someone publishes.
	Orphans bool
	// TempAge is how old a store's temporary file (one a writer killed in
	// the middle of a write left) must be for GC to remove it; 0 means
	// DefaultTempAge.
	TempAge time.Duration
}

// DefaultTempAge is GCOptions.TempAge when it is zero.
const DefaultTempAge = 10 * time.Minute

// TempCollector is a Store that writes temporary files of its own (the
// directory store) and can list and remove those left behind.
type TempCollector interface {
	// Temps lists temporary files older than age, with their sizes.
	Temps(ctx context.Context, age time.Duration) (map[string]int64, error)
	RemoveTemp(ctx context.Context, name string) error
}

// GCReport says what GC removed (or would remove).
type GCReport struct {
	Kept           []string // build ids, newest first
	RemovedBuilds  []string
	RemovedObjects int // packs and volumes (manifests not counted)
	RemovedBytes   int64
	// RemovedTemps are the store's orphaned temporary files (TempCollector).
	RemovedTemps     int
	RemovedTempBytes int64
	Deleted          bool // false for a dry run
}

// GC removes builds beyond the newest opt.Keep (never the current one) and
// the objects that only they named: packs of their own, and volumes none
// of whose packs a kept build names. Manifests go first, so that a build is
// never listed once its packs may be missing. Like any deletion, it must
// not race a publish: a publish that reuses a pack of a build being removed
// would lose it.
func GC(ctx context.Context, s Store, opt GCOptions) (GCReport, error) {
	rep := GCReport{Deleted: opt.Delete}
	if opt.Keep < 1 {
		return rep, fmt.Errorf("gc: keep must be at least 1, not %d", opt.Keep)
	}
	ms, cur, err := manifests(ctx, s)
	if err != nil {
		return rep, fmt.Errorf("gc: %w", err)
	}
	if cur != "" && ms[cur] == nil {
		// Deleting with no idea what is being served would be a guess.
		return rep, fmt.Errorf("gc: the current build %s has no manifest; refusing to delete anything", cur)
	}
	var bs []BuildInfo
	for id, m := range ms {
		bs = append(bs, BuildInfo{ID: id, Created: m.Created, Current: id == cur})
	}
	sortNewestFirst(bs)
	keep := map[string]bool{}
	for i, b := range bs {
		if i < opt.Keep || b.Current {
			keep[b.ID] = true
			rep.Kept = append(rep.Kept, b.ID)
		} else {
			rep.RemovedBuilds = append(rep.RemovedBuilds, b.ID)
		}
	}
	needed := map[string]bool{}
	for id := range keep {
		for k := range objects(ms[id]) {
			needed[k] = true
		}
	}
	var doomed []string
	if opt.Orphans {
		keys, err := s.List(ctx, PackPrefix)
		if err != nil {
			return rep, fmt.Errorf("gc: %w", err)
		}
		for _, k := range keys {
			if !needed[k] {
				doomed = append(doomed, k)
			}
		}
	} else {
		seen := map[string]bool{}
		for _, id := range rep.RemovedBuilds {
			for k := range objects(ms[id]) {
				if !needed[k] && !seen[k] {
					seen[k] = true
					doomed = append(doomed, k)
				}
			}
		}
		sort.Strings(doomed)
	}
	sizes := map[string]int64{}
	for _, m := range ms {
		for k, o := range objects(m) {
			if !o.Volume {
				sizes[k] = o.Size
			}
		}
	}
	for _, k := range doomed {
		n, ok := sizes[k]
		if !ok {
			// A volume or an orphan: no manifest knows its size.
			if n, err = s.Stat(ctx, k); err != nil && !IsNotExist(err) {
				return rep, fmt.Errorf("gc: %w", err)
			}
		}
		rep.RemovedObjects++
		rep.RemovedBytes += n
	}
	var temps map[string]int64
	if tc, ok := s.(TempCollector); ok {
		if opt.TempAge <= 0 {
			opt.TempAge = DefaultTempAge
		}
		if temps, err = tc.Temps(ctx, opt.TempAge); err != nil {
			return rep, fmt.Errorf("gc: %w", err)
		}
		for _, n := range temps {
			rep.RemovedTemps++
			rep.RemovedTempBytes += n
		}
	}
	if !opt.Delete {
		return rep, nil
	}
	for name := range temps {
		if err := s.(TempCollector).RemoveTemp(ctx, name); err != nil {
			return rep, fmt.Errorf("gc: %w", err)
		}
	}
	// The pointer may have moved since we read it (a rollback to a build
	// we are about to remove); check again before deleting anything.
	if now, err := s.Current(ctx); (err != nil && !IsNotExist(err)) || now != cur {
		return rep, fmt.Errorf("gc: the current build changed while collecting (%s → %s, %v); run again", cur, now, err)
	}
	for _, id := range rep.RemovedBuilds {
		if err := s.Delete(ctx, ManifestKey(id)); err != nil {
			return rep, fmt.Errorf("gc: %w", err)
		}
	}
	for _, k := range doomed {
		if err := s.Delete(ctx, k); err != nil {
			return rep, fmt.Errorf("gc: %w", err)
		}
	}
	return rep, nil
}
