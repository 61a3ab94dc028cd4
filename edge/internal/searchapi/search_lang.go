package searchapi

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/topic"
)

// langAids are one language's search aids in one build: its topics, ready
// to search, and its suggestions. They are read from their packs on first
// need and kept with the site, so that they change with the build.
type langAids struct {
	tag     string
	topics  *topic.Index     // nil without a topics file
	suggest *topic.Suggester // nil without suggestions
	mod     time.Time        // Last-Modified of answers composed from them
}

// aidsSlot holds a site's languages' aids once loaded (site.Site.Aids).
type aidsSlot struct {
	mu    sync.Mutex
	tags  []string // every language with topics or suggestions, sorted
	byTag map[string]*langAids
}

// languages is every language of st with search aids, sorted.
func (a *aidsSlot) languages(m *publish.Manifest) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tags == nil {
		seen := map[string]bool{}
		for t := range m.Topics {
			seen[t] = true
		}
		for t := range m.Suggestions {
			seen[t] = true
		}
		a.tags = make([]string, 0, len(seen))
		for t := range seen {
			a.tags = append(a.tags, t)
		}
		sort.Strings(a.tags)
	}
	return a.tags
}

// aidsIn returns st's aids slot.
func aidsIn(st *site.Site) *aidsSlot {
	a, _ := site.Make(&st.Aids, func() (*aidsSlot, error) { return &aidsSlot{}, nil })
	return a
}

// aidsOf returns a language's aids in st, loading them if needed.
func (s *Routes) aidsOf(ctx context.Context, st *site.Site, tag string) (*langAids, error) {
	a := aidsIn(st)
	a.mu.Lock()
	defer a.mu.Unlock()
	if l := a.byTag[tag]; l != nil {
		return l, nil
	}
	m := st.Manifest
	l := &langAids{tag: tag, mod: m.Created}
	if ref, ok := m.Topics[tag]; ok {
		var ts []topic.Topic
		if err := s.readInternal(ctx, ref, publish.NameTopics, &ts); err != nil {
			return nil, err
		}
		l.topics = topic.NewIndex(ts)
		l.mod = ref.Modified
	}
	if ref, ok := m.Suggestions[tag]; ok {
		var list []topic.Suggestion
		if err := s.readInternal(ctx, ref, publish.NameSuggestions, &list); err != nil {
			return nil, err
		}
		l.suggest = topic.NewSuggester(list)
		if ref.Modified.After(l.mod) {
			l.mod = ref.Modified
		}
	}
	if a.byTag == nil {
		a.byTag = map[string]*langAids{}
	}
	a.byTag[tag] = l
	return l, nil
}

// readInternal decodes an internal JSON entry of a pack.
func (s *Routes) readInternal(ctx context.Context, ref publish.PackRef, name string, v any) error {
	pv, err := s.packs.Get(ctx, ref)
	if err != nil {
		return fmt.Errorf("search aids: %w", err)
	}
	if err := pv.Pack().Decode(name, v); err != nil {
		return fmt.Errorf("search aids: pack %s: %w", ref.Key, err)
	}
	return nil
}

// eachRange calls fn with the aids of the languages each range matches,
// range by range, languages in tag order, until fn reports that it found
// an answer: the first language range with an answer wins (as for the
// Bibles collection). It reports whether fn did.
func (s *Routes) eachRange(ctx context.Context, st *site.Site, ranges []string, fn func(*langAids) bool) (bool, error) {
	tags := aidsIn(st).languages(st.Manifest)
	for _, r := range ranges {
		for _, tag := range tags {
			if !lang.MatchRange(r, tag) {
				continue
			}
			l, err := s.aidsOf(ctx, st, tag)
			if err != nil {
				return false, err
			}
			if fn(l) {
				return true, nil
			}
		}
	}
	return false, nil
}

// loadSearchAids loads a new build's topics and suggestions in the
// background, so that the first search of each language does not wait for
// them and the disk cache holds them for an edge that restarts during a
// store outage.
func (s *Routes) loadSearchAids(st *site.Site) {
	for _, tag := range aidsIn(st).languages(st.Manifest) {
		if s.site.Load() != st {
			return // a newer build came in: it loads its own
		}
		if _, err := s.aidsOf(context.Background(), st, tag); err != nil {
			s.log.Warn("search: cannot load topics and suggestions; they load on the first search", "language", tag, "err", err)
		}
	}
}

// Prepare gets a new build's search ready in the background: the topics
// and suggestions loaded, so that the first search of each language does
// not wait for them, and the search indexes on the disk cache (decoded by
// each Bible's first search), so that an edge restarted during a store
// outage finds them all there.
func (s *Routes) Prepare(st *site.Site) {
	go s.warmSearchIndexes(st)
	go s.loadSearchAids(st)
}

// Load decodes what searches need (every Bible's index, within the
// cache's bound, and the aids) and returns when it is done: for a
// benchmark that measures after loading.
func (s *Routes) Load(st *site.Site) {
	s.loadSearchIndexes(st)
	s.loadSearchAids(st)
}

// AidsLoaded reports whether every language's topics and suggestions of
// st are loaded.
func AidsLoaded(st *site.Site) bool {
	a := aidsIn(st)
	tags := a.languages(st.Manifest)
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.byTag) == len(tags)
}
