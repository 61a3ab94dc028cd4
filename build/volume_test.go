package build_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/publish"
)

// TestVolumes: a build writes its packs into volumes, not one object a
// pack; every reference names its volume; the build checks out as whole
// (a rollback to it stats every object it names).
func TestVolumes(t *testing.T) {
	ctx := context.Background()
	content, store := fixtureCopy(t)
	rep, err := build.Build(ctx, build.Options{Content: content, Store: store, VolumeBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	m, id, err := publish.LoadCurrent(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	vols := map[string]bool{}
	n := 0
	m.Packs(func(r *publish.PackRef) {
		n++
		if r.Volume == "" || !strings.HasPrefix(r.Volume, publish.PackPrefix) {
			t.Errorf("pack %s is in no volume (%q)", r.Key, r.Volume)
		}
		vols[r.Volume] = true
	})
	if rep.Volumes < 2 || len(vols) != rep.Volumes {
		t.Errorf("%d volumes written, %d named by the manifest; want the same, at least 2 of 256 KiB", rep.Volumes, len(vols))
	}
	keys, err := store.List(ctx, publish.PackPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(vols) {
		t.Errorf("the store holds %d objects under %s, want the %d volumes alone: %v", len(keys), publish.PackPrefix, len(vols), keys)
	}
	if _, err := publish.Rollback(ctx, store, id); err != nil {
		t.Errorf("the build does not check out: %v", err)
	}
	// Every pack reads back whole, and is the pack its key names.
	m.Packs(func(r *publish.PackRef) {
		if _, err := publish.LoadPack(ctx, store, *r); err != nil {
			t.Errorf("pack %s: %v", r.Key, err)
		}
	})
}

// failManifest is a store whose manifests cannot be written: a build
// interrupted after its packs.
type failManifest struct{ *publish.Dir }

func (s failManifest) Put(ctx context.Context, key string, data []byte) error {
	if strings.HasPrefix(key, "builds/") {
		return errors.New("no room")
	}
	return s.Dir.Put(ctx, key, data)
}

// TestInterruptedBuildResumes: the volumes of a build interrupted before
// its manifest are reused by the next build, which then writes only the
// manifest; a damaged one is written again, with a warning.
func TestInterruptedBuildResumes(t *testing.T) {
	ctx := context.Background()
	content, store := fixtureCopy(t)
	opt := build.Options{Content: content, Store: failManifest{store}, VolumeBytes: 256 << 10}
	first, err := build.Build(ctx, opt)
	if err == nil || first.Volumes == 0 {
		t.Fatalf("the interrupted build: %+v, %v", first, err)
	}
	opt.Store = store
	again, err := build.Build(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if again.Written != 1 || again.Volumes != 0 || again.Skipped == 0 {
		t.Errorf("the build after: %d written, %d volumes, %d skipped; want the manifest alone", again.Written, again.Volumes, again.Skipped)
	}

	// A volume cut short loses its index: its packs are written again.
	content2, store2 := fixtureCopy(t)
	opt = build.Options{Content: content2, Store: failManifest{store2}, VolumeBytes: 256 << 10}
	if _, err := build.Build(ctx, opt); err == nil {
		t.Fatal("the interrupted build succeeded")
	}
	keys, err := store2.List(ctx, publish.PackPrefix)
	if err != nil || len(keys) == 0 {
		t.Fatal(keys, err)
	}
	p := filepath.Join(store2.Root(), "objects", filepath.FromSlash(keys[0]))
	if err := os.Truncate(p, 100); err != nil {
		t.Fatal(err)
	}
	opt.Store = store2
	rep, err := build.Build(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Volumes == 0 || rep.Written < 2 || !strings.Contains(errorsText(rep.Warnings), "is not reused") {
		t.Errorf("after a damaged volume: %d volumes, %d written, warnings %v", rep.Volumes, rep.Written, rep.Warnings)
	}
	m, _, err := publish.LoadCurrent(ctx, store2)
	if err != nil {
		t.Fatal(err)
	}
	// Its packs written again in the same order make the same volume,
	// whose name is its bytes': then it is whole again.
	m.Packs(func(r *publish.PackRef) {
		if n, err := store2.Stat(ctx, keys[0]); r.Volume == keys[0] && (err != nil || n <= 100) {
			t.Errorf("pack %s is in the damaged volume (%d bytes, %v)", r.Key, n, err)
		}
		if _, err := publish.LoadPack(ctx, store2, *r); err != nil {
			t.Errorf("pack %s: %v", r.Key, err)
		}
	})
}
