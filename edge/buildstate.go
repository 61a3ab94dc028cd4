package edge

import (
	"errors"

	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/publish"
)

// saveBuild keeps the build just swapped in, when there is a disk cache.
// Failing costs only a cold start during a store outage, so it is logged
// and counted, not returned.
func (s *Server) saveBuild(id string, m *publish.Manifest) {
	if err := s.packs.SaveBuild(id, m); err != nil {
		s.log.Warn("cannot save the build in the disk cache; a restart during a store outage will serve nothing", "build", id, "err", err)
	}
}

// restoreBuild serves the build saved in the disk cache, if there is one
// and no build is served yet. A damaged file is logged and ignored: the
// next build switch replaces it.
func (s *Server) restoreBuild() (string, bool) {
	if s.site.Load() != nil {
		return "", false
	}
	id, m, err := s.packs.SavedBuild()
	if err != nil {
		if !errors.Is(err, packs.ErrNoSavedBuild) {
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
		return st.Build
	}
	return ""
}
