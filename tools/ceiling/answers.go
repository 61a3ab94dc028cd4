package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// answers is every answer of a mix as the edge sent it, by request target
// and coding, for the floor that answers from memory alone (-answers): one
// buffer of bodies without pointers and a map of where each is.
type answers struct {
	bodies []byte
	at     map[string]uint64 // target + "\x00" + coding byte: offset<<32 | length
}

// Codings the mix asks for: br (Accept-Encoding "br, gzip") or gzip alone.
var mixCodings = []struct {
	accept string
	b      byte
}{{"br, gzip", 'b'}, {"gzip", 'g'}}

func answerKey(dst []byte, target []byte, coding byte) []byte {
	dst = append(dst, target...)
	return append(dst, 0, coding)
}

// find is the body of target in coding, nil when there is none.
func (a *answers) find(kb []byte, target []byte, coding byte) []byte {
	v, ok := a.at[string(answerKey(kb[:0], target, coding))]
	if !ok {
		return nil
	}
	return a.bodies[v>>32 : v>>32+v&(1<<32-1)]
}

// appendRecord appends the record of target's body in coding, as
// loadAnswers reads it.
func appendRecord(rec []byte, target string, coding byte, body []byte) []byte {
	rec = binary.AppendUvarint(rec, uint64(len(target)))
	rec = append(rec, target...)
	rec = append(rec, coding)
	rec = binary.AppendUvarint(rec, uint64(len(body)))
	return append(rec, body...)
}

// The longest target and body a file of answers may hold: more is a file
// of something else, refused before it is allocated.
const (
	maxTarget = 64 << 10
	maxBody   = 64 << 20
)

// recordHead reads a record's target and coding (its key, answerKey) and
// its body's length, leaving the body next in r; io.EOF at the end of the
// file.
func recordHead(r *bufio.Reader, path string) (key []byte, m uint64, err error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, 0, err
	}
	if n > maxTarget {
		return nil, 0, fmt.Errorf("%s: a target of %d bytes: not a file -fetch wrote", path, n)
	}
	rec := make([]byte, n+1)
	if _, err := io.ReadFull(r, rec); err != nil {
		return nil, 0, noEOF(err)
	}
	if m, err = binary.ReadUvarint(r); err != nil {
		return nil, 0, noEOF(err)
	}
	if m > maxBody {
		return nil, 0, fmt.Errorf("%s: a body of %d bytes: not a file -fetch wrote", path, m)
	}
	return answerKey(nil, rec[:n], rec[n]), m, nil
}

// noEOF: a record cut short is an error, not the end of the file.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// records calls fn for each record of the file of answers f (path): its
// key, its body's length m and where the body starts in the file; fn reads
// or discards the body from r.
func records(f io.Reader, path string, fn func(r *bufio.Reader, key []byte, m uint64, off int64) error) error {
	cf := &counted{r: f}
	r := bufio.NewReaderSize(cf, 1<<20)
	for {
		key, m, err := recordHead(r, path)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		// The body starts at what was read of the file less what the
		// reader holds unread.
		if err := fn(r, key, m, cf.n-int64(r.Buffered())); err != nil {
			return err
		}
	}
}

// counted counts the bytes read through it.
type counted struct {
	r io.Reader
	n int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// loadAnswers reads a file fetchAnswers wrote: records of the target, the
// coding byte and the body, each length a uvarint.
func loadAnswers(path string) (*answers, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a := &answers{at: make(map[string]uint64)}
	err = records(f, path, func(r *bufio.Reader, key []byte, m uint64, _ int64) error {
		off := len(a.bodies)
		a.bodies = slices.Grow(a.bodies, int(m))[:off+int(m)]
		if _, err := io.ReadFull(r, a.bodies[off:]); err != nil {
			return noEOF(err)
		}
		a.at[string(key)] = uint64(off)<<32 | m
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(a.bodies) >= 1<<32 {
		return nil, fmt.Errorf("%s: %d bytes of answers, more than the 4 GiB the floor addresses", path, len(a.bodies))
	}
	return a, nil
}

// fetchAnswers asks base for every distinct target of the path files in
// each coding of the mix, with the App Key key, and writes what it answered
// to out.
func fetchAnswers(base, key, out string, pathFiles []string) error {
	seen := map[string]bool{}
	var targets []string
	for _, p := range pathFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, t := range bytes.Split(b, []byte("\n")) {
			if len(t) > 0 && !seen[string(t)] {
				seen[string(t)] = true
				targets = append(targets, string(t))
			}
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var mu sync.Mutex
	var failed, done int
	jobs := make(chan string)
	var wg sync.WaitGroup
	c := &fasthttp.Client{MaxConnsPerHost: 64}
	start := time.Now()
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			var rec []byte
			for t := range jobs {
				for _, cd := range mixCodings {
					req.Reset()
					req.SetRequestURI(base + t)
					req.Header.Set("X-SVC-App-Key", key)
					req.Header.Set("Accept-Encoding", cd.accept)
					err := c.Do(req, resp)
					mu.Lock()
					if err != nil || resp.StatusCode() != fasthttp.StatusOK {
						failed++
					} else {
						rec = appendRecord(rec[:0], t, cd.b, resp.Body())
						w.Write(rec)
					}
					done++
					if done%200000 == 0 {
						log.Printf("ceiling: %d of %d answers (%.0f s)", done, 2*len(targets), time.Since(start).Seconds())
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, t := range targets {
		jobs <- t
	}
	close(jobs)
	wg.Wait()
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d answers were not 200", failed, 2*len(targets))
	}
	log.Printf("ceiling: %d answers of %d targets in %s", done, len(targets), out)
	return nil
}
