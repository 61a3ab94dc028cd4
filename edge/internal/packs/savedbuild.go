package packs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bibleplatform/platform/internal/atomicfile"
	"github.com/bibleplatform/platform/publish"
)

// The last build served, kept beside the disk cache's packs. The packs
// are content-addressed and useless without the manifest that names
// them, and the manifest lives in the store: an edge that restarts while
// the store is down could not find a single cached pack. So every build
// switch writes the build id and its manifest here, and a start that
// cannot read the store's current build serves this one from the disk
// cache until the store answers (the edge's BuildWatcher.Check).
//
// The catalogues need nothing more: they are built from the site pack,
// which is fetched whole and so is on disk once it has been read.

// savedBuildFile is the file's name in the cache directory. It does not
// end in diskSuffix, so the disk cache neither counts nor evicts it.
const savedBuildFile = "current-build.json"

// savedBuild is the file's content. The checksum covers the manifest's
// bytes: a file that parses but was damaged would otherwise point the
// edge at packs of no build at all.
type savedBuild struct {
	Build    string          `json:"build"`
	Saved    time.Time       `json:"saved"`
	SHA256   string          `json:"manifest_sha256"`
	Manifest json.RawMessage `json:"manifest"`
}

// writeSavedBuild replaces the saved build in dir: written to a
// temporary file, synced and renamed over the old one, so that a crash at
// any point leaves either the previous build or this one, never a torn
// file. The temporary name is the disk cache's, which openDiskCache
// removes when it finds one left over.
func writeSavedBuild(dir, id string, m *publish.Manifest) error {
	mb, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("save build %s: %w", id, err)
	}
	sum := sha256.Sum256(mb)
	b, err := json.Marshal(savedBuild{Build: id, Saved: time.Now().UTC(), SHA256: hex.EncodeToString(sum[:]), Manifest: mb})
	if err != nil {
		return fmt.Errorf("save build %s: %w", id, err)
	}
	if err := atomicfile.Write(filepath.Join(dir, savedBuildFile), b, diskTemp, true); err != nil {
		return fmt.Errorf("save build %s: %w", id, err)
	}
	return nil
}

// ErrNoSavedBuild: no build was saved (a first start), or there is no
// disk cache to keep one.
var ErrNoSavedBuild = errors.New("no saved build")

// readSavedBuild returns the build saved in dir. Anything but a whole,
// checksummed file is an error.
func readSavedBuild(dir string) (string, *publish.Manifest, error) {
	path := filepath.Join(dir, savedBuildFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, ErrNoSavedBuild
	}
	if err != nil {
		return "", nil, fmt.Errorf("read saved build: %w", err)
	}
	var sb savedBuild
	if err := json.Unmarshal(b, &sb); err != nil {
		return "", nil, fmt.Errorf("saved build %s: %w", path, err)
	}
	if publish.CheckKey(sb.Build) != nil || strings.Contains(sb.Build, "/") {
		return "", nil, fmt.Errorf("saved build %s: bad build id %q", path, sb.Build)
	}
	sum := sha256.Sum256(sb.Manifest)
	if hex.EncodeToString(sum[:]) != sb.SHA256 {
		return "", nil, fmt.Errorf("saved build %s: manifest checksum mismatch", path)
	}
	m, err := publish.DecodeManifest(sb.Manifest)
	if err != nil {
		return "", nil, fmt.Errorf("saved build %s: manifest: %w", path, err)
	}
	return sb.Build, m, nil
}

// SaveBuild keeps the build just swapped in, when there is a disk cache.
// A failure is counted with the disk cache's errors.
func (p *Packs) SaveBuild(id string, m *publish.Manifest) error {
	d := p.disk
	if d == nil {
		return nil
	}
	if err := writeSavedBuild(d.dir, id, m); err != nil {
		d.errs.Inc()
		return err
	}
	return nil
}

// SavedBuild returns the build saved in the disk cache; ErrNoSavedBuild
// when there is none. Anything but a whole, checksummed file is an error.
func (p *Packs) SavedBuild() (string, *publish.Manifest, error) {
	if p.disk == nil {
		return "", nil, ErrNoSavedBuild
	}
	return readSavedBuild(p.disk.dir)
}
