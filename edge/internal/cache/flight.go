package cache

import "context"

// Flight is one load shared by every request that asks for the same thing
// while it runs: the first request runs it, the others wait for its result.
type Flight[T any] struct {
	done chan struct{} // closed when Val and Err are set
	Val  T
	Err  error
}

// Flights are the loads running, by key. Their owner guards them with the
// lock under which it also looks in its cache, so that a request either
// finds a finished load in the cache or joins the running one here.
type Flights[T any] map[string]*Flight[T]

// Join returns the load under key, and whether the caller leads it. The
// leader runs the load, then, under the owner's lock, deletes it from fs
// and sets Val and Err, and after unlocking calls Land. The caller holds
// the owner's lock.
func (fs Flights[T]) Join(key string) (*Flight[T], bool) {
	if f, ok := fs[key]; ok {
		return f, false
	}
	f := &Flight[T]{done: make(chan struct{})}
	fs[key] = f
	return f, true
}

// Land hands the result to the requests waiting.
func (f *Flight[T]) Land() { close(f.done) }

// Wait returns the load's result, or ctx's error if ctx ends first (the
// load goes on for the others).
func (f *Flight[T]) Wait(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.Val, f.Err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
