package edge

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
// cache until the store answers (BuildWatcher.Check).
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

// errNoSavedBuild: no build was saved in the directory (a first start).
var errNoSavedBuild = errors.New("no saved build")

// readSavedBuild returns the build saved in dir. Anything but a whole,
// checksummed file is an error.
func readSavedBuild(dir string) (string, *publish.Manifest, error) {
	path := filepath.Join(dir, savedBuildFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, errNoSavedBuild
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
	var m publish.Manifest
	if err := json.Unmarshal(sb.Manifest, &m); err != nil {
		return "", nil, fmt.Errorf("saved build %s: manifest: %w", path, err)
	}
	return sb.Build, &m, nil
}

// saveBuild keeps the build just swapped in, when there is a disk cache.
// Failing costs only a cold start during a store outage, so it is logged
// and counted, not returned.
func (s *Server) saveBuild(id string, m *publish.Manifest) {
	d := s.packs.disk
	if d == nil {
		return
	}
	if err := writeSavedBuild(d.dir, id, m); err != nil {
		d.errs.Inc()
		s.log.Warn("cannot save the build in the disk cache; a restart during a store outage will serve nothing", "build", id, "err", err)
	}
}

// restoreBuild serves the build saved in the disk cache, if there is one
// and no build is served yet. A damaged file is logged and ignored: the
// next build switch replaces it.
func (s *Server) restoreBuild() (string, bool) {
	d := s.packs.disk
	if d == nil || s.site.Load() != nil {
		return "", false
	}
	id, m, err := readSavedBuild(d.dir)
	if err != nil {
		if !errors.Is(err, errNoSavedBuild) {
			s.log.Warn("ignoring the saved build in the disk cache", "err", err)
		}
		return "", false
	}
	s.SetBuild(id, m)
	return id, true
}

// Build is the id of the build being served, "" before the first.
func (s *Server) Build() string {
	if st := s.site.Load(); st != nil {
		return st.build
	}
	return ""
}
