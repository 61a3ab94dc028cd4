package edge

import "context"

// flight is one load shared by every request that asks for the same thing
// while it runs: the first request runs it, the others wait for its result.
type flight[T any] struct {
	done chan struct{} // closed when val and err are set
	val  T
	err  error
}

// flights are the loads running, by key. Their owner guards them with the
// lock under which it also looks in its cache, so that a request either
// finds a finished load in the cache or joins the running one here.
type flights[T any] map[string]*flight[T]

// join returns the load under key, and whether the caller leads it. The
// leader runs the load, then, under the owner's lock, deletes it from fs
// and keeps its result, and after unlocking calls land. The caller holds
// the owner's lock.
func (fs flights[T]) join(key string) (*flight[T], bool) {
	if f, ok := fs[key]; ok {
		return f, false
	}
	f := &flight[T]{done: make(chan struct{})}
	fs[key] = f
	return f, true
}

// land hands the result to the requests waiting.
func (f *flight[T]) land() { close(f.done) }

// wait returns the load's result, or ctx's error if ctx ends first (the
// load goes on for the others).
func (f *flight[T]) wait(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
