package trending

import (
	"slices"
	"sync"
)

// Counter accumulates an edge's searches between reports. It holds at
// most MaxBatch phrases; searches of a new phrase beyond that are dropped
// and counted in Dropped. It is safe for concurrent use.
type Counter struct {
	mu      sync.Mutex
	batch   map[key]*entry
	dropped int64
}

type key struct{ language, phrase string }

type entry struct {
	n       int64
	apps    []string
	clients []string
}

// Add counts one search of query in language by app. It reports false
// when the search was dropped (the batch is full) or there was nothing to
// count.
func (c *Counter) Add(language, query, app, client string) bool {
	phrase := Normalize(query)
	if phrase == "" || language == "" || len(language) > MaxLanguageLen {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.add(key{language, phrase}, 1, []string{app}, []string{client})
}

func (c *Counter) add(k key, n int64, apps, clients []string) bool {
	if c.batch == nil {
		c.batch = map[key]*entry{}
	}
	e := c.batch[k]
	if e == nil {
		if len(c.batch) >= MaxBatch {
			c.dropped += n
			return false
		}
		e = &entry{}
		c.batch[k] = e
	}
	e.n += n
	e.apps = addDistinct(e.apps, apps)
	e.clients = addDistinct(e.clients, clients)
	return true
}

// Take empties the counter and returns what it held, or nil when empty.
func (c *Counter) Take() *Batch {
	c.mu.Lock()
	b := c.batch
	c.batch = nil
	c.mu.Unlock()
	if len(b) == 0 {
		return nil
	}
	out := &Batch{Queries: make([]Count, 0, len(b))}
	for k, e := range b {
		out.Queries = append(out.Queries, Count{Language: k.language, Phrase: k.phrase, Count: e.n, Apps: e.apps, Clients: e.clients})
	}
	return out
}

// Restore puts back a batch that could not be reported, merged with what
// was counted since, within the same bound.
func (c *Counter) Restore(b *Batch) {
	if b == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, q := range b.Queries {
		c.add(key{q.Language, q.Phrase}, q.Count, q.Apps, q.Clients)
	}
}

// Dropped is the number of searches dropped since the counter started.
func (c *Counter) Dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// addDistinct adds the non-empty ids of add that list lacks, up to MaxApps.
func addDistinct(list, add []string) []string {
	for _, a := range add {
		if a != "" && len(list) < MaxApps && !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}
