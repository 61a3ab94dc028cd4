package s3test

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/bibleplatform/platform/publish"
)

// StopAfter wraps a store and, once n Puts have landed, calls stop in the
// background, so that a publish is cut off with uploads still under way.
// Stopped is closed when stop has returned.
type StopAfter struct {
	publish.Store
	Stopped chan struct{}
	n       int64
	stop    func()
	landed  atomic.Int64
	once    sync.Once
}

// NewStopAfter stops (with stop) after n Puts to s have landed.
func NewStopAfter(s publish.Store, n int64, stop func()) *StopAfter {
	return &StopAfter{Store: s, Stopped: make(chan struct{}), n: n, stop: stop}
}

// Landed is how many Puts have landed so far.
func (s *StopAfter) Landed() int64 { return s.landed.Load() }

func (s *StopAfter) Put(ctx context.Context, key string, data []byte) error {
	err := s.Store.Put(ctx, key, data)
	if err == nil && s.landed.Add(1) == s.n {
		s.once.Do(func() { go func() { s.stop(); close(s.Stopped) }() })
	}
	return err
}
