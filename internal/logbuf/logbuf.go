// Package logbuf is a buffered writer for logs written at request rate
// (the edge's access log). Each line is copied into memory; one goroutine
// writes what has gathered every interval, and a writer that fills the
// buffer writes it out itself. A request then costs a copy, not a write(2)
// of its own: with the access log on, the edge made one system call a
// request for the answer and one for its log line.
//
// What it trades: lines written in the last interval before the process
// is killed (SIGKILL, a crash) are lost. Close, which the commands call on
// SIGINT and SIGTERM, writes them out. Lines are never split or
// interleaved: a slog handler writes a whole line in one Write.
package logbuf

import (
	"io"
	"sync"
	"time"
)

// Writer gathers Writes and passes them on to the underlying writer in
// batches. It is safe for concurrent use.
type Writer struct {
	out   io.Writer
	limit int

	mu  sync.Mutex
	buf []byte

	flushMu sync.Mutex // one batch written at a time, in order
	spare   []byte     // the batch buffer not in use; guarded by flushMu
	err     error      // the last write's error; guarded by flushMu

	closing sync.Once
	stop    chan struct{}
	done    chan struct{}
}

// New returns a Writer passing batches of about limit bytes on to out,
// and whatever has gathered every interval.
func New(out io.Writer, limit int, interval time.Duration) *Writer {
	w := &Writer{
		out: out, limit: limit,
		buf:   make([]byte, 0, 2*limit),
		spare: make([]byte, 0, 2*limit),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go w.run(interval)
	return w
}

func (w *Writer) run(interval time.Duration) {
	defer close(w.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			w.Flush()
		case <-w.stop:
			return
		}
	}
}

// Write copies p into the buffer; when the buffer holds limit bytes or
// more, the caller writes the batch out (and waits for any batch being
// written), which bounds the memory to about twice limit however slow out
// is. It reports an error only when it wrote the batch itself and that
// failed; a failed interval write is Flush's and Close's to report.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf = append(w.buf, p...)
	full := len(w.buf) >= w.limit
	w.mu.Unlock()
	if full {
		if err := w.Flush(); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// Flush writes out what has gathered.
func (w *Writer) Flush() error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	batch := w.buf
	w.buf = w.spare[:0]
	w.mu.Unlock()
	if len(batch) > 0 {
		_, w.err = w.out.Write(batch)
	}
	w.spare = batch[:0]
	return w.err
}

// Close stops the interval writes and writes out what has gathered.
// Writes after Close still gather, and are written by Flush only.
func (w *Writer) Close() error {
	w.closing.Do(func() { close(w.stop) })
	<-w.done
	return w.Flush()
}
