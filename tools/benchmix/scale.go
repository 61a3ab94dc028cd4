package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
)

// The mix make bench-scale sends: every Bible of a published catalogue,
// every one of its verses, chapters, ranges and metadata routes, picked
// with a Zipf distribution of exponent s over all of them at once (a few
// requests are frequent, most distinct ones rare), in the shares below.
// Popularity is shuffled across Bibles and books, so a popular verse says
// nothing of its neighbours: the mix does not favour the edge's packs (a
// chapter a pack), which only helps when readers stay in one chapter.

// scaleShares are the kinds' shares of the requests, in order: verses,
// chapters, ranges, metadata (the rest).
var scaleShares = [3]float64{0.5, 0.7, 0.85}

// scaleKinds holds the requests of each kind, each kind in the order of
// its popularity.
type scaleKinds struct {
	verses, chapters, ranges, meta []string
}

// add lists Bible id's requests: its passages (as make bench-edge sends
// them) and its metadata routes (the Bible, its index and book list, each
// book, its chapter list, each chapter, its verse list and each verse).
func (k *scaleKinds) add(rng *rand.Rand, id int32, idx *bible.Index) {
	verses, chapters, ranges, _ := passages(rng, id, idx)
	for _, l := range []struct {
		from []item
		to   *[]string
	}{{verses, &k.verses}, {chapters, &k.chapters}, {ranges, &k.ranges}} {
		for _, it := range l.from {
			*l.to = append(*l.to, it.edge)
		}
	}
	base := fmt.Sprintf("/v1/bibles/%d", id)
	k.meta = append(k.meta, base, base+"/index", base+"/books")
	for _, b := range idx.Books {
		book := base + "/books/" + string(b.ID)
		k.meta = append(k.meta, book, book+"/chapters")
		for _, c := range b.Chapters {
			ch := book + "/chapters/" + c.ID
			k.meta = append(k.meta, ch, ch+"/verses")
			for _, v := range c.Verses {
				k.meta = append(k.meta, ch+"/verses/"+v.ID)
			}
		}
	}
}

// zipfMix writes n requests drawn from k: a kind by its share, then a
// request of that kind by its rank, Zipf with exponent s.
func (k *scaleKinds) zipfMix(rng *rand.Rand, n int, s float64) []string {
	lists := [][]string{k.verses, k.chapters, k.ranges, k.meta}
	var picks [4]func() string
	for i, l := range lists {
		rng.Shuffle(len(l), func(a, b int) { l[a], l[b] = l[b], l[a] })
		z := rand.NewZipf(rand.New(rand.NewPCG(uint64(i)+3, 4)), s, 1, uint64(len(l)-1))
		picks[i] = func() string { return l[z.Uint64()] }
	}
	mix := make([]string, n)
	for i := range mix {
		x := rng.Float64()
		kind := 3
		for j, share := range scaleShares {
			if x < share {
				kind = j
				break
			}
		}
		mix[i] = picks[kind]()
	}
	return mix
}

func (k *scaleKinds) size() int {
	return len(k.verses) + len(k.chapters) + len(k.ranges) + len(k.meta)
}

// runScale writes scale.paths (n requests over every Bible of the store),
// hot.paths (hotN requests over the first Bible only: a working set that
// fits in the edge's memory), scale.lua (the wrk script that sends a path
// file) and the access file, with the demo apps licensed for every Bible.
func runScale(storeDir string, n, hotN int, s float64, out, accessIn, key string, brShare float64) error {
	ctx := context.Background()
	store, m, err := openCurrent(ctx, storeDir)
	if err != nil {
		return err
	}
	if len(m.Bibles) == 0 {
		return fmt.Errorf("no Bible is published in %s", storeDir)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var all, hot scaleKinds
	var ids []int32
	for i := range m.Bibles {
		be := &m.Bibles[i]
		idx, err := loadIndex(ctx, store, be)
		if err != nil {
			return err
		}
		all.add(rng, be.ID, idx)
		if i == 0 {
			hot.add(rand.New(rand.NewPCG(1, 2)), be.ID, idx)
		}
		ids = append(ids, be.ID)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	mix := all.zipfMix(rng, n, s)
	if err := writePaths(filepath.Join(out, "scale.paths"), mix); err != nil {
		return err
	}
	if err := writePaths(filepath.Join(out, "hot.paths"), hot.zipfMix(rng, hotN, s)); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "scale.lua"), []byte(scaleLua(key, brShare)), 0o644); err != nil {
		return err
	}
	distinct := len(slices.Compact(slices.Sorted(slices.Values(mix))))
	log.Printf("scale mix: %d requests, %d distinct, over %d Bibles and %d distinct requests in all; hot mix: %d requests over Bible %d (%d distinct requests)",
		n, distinct, len(ids), all.size(), hotN, ids[0], hot.size())
	return writeAccessFor(accessIn, out, ids)
}

// writePaths writes one path a line.
func writePaths(path string, paths []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, p := range paths {
		w.WriteString(p)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// scaleLua is the wrk script of make bench-scale. Its arguments (after
// wrk's --) are the path file, the position to start at, and wrk's thread
// count: thread t sends the paths at start+t, start+t+threads, …, so that
// a run continues the sequence where the previous run stopped (the next
// start is the previous one plus the requests it sent) instead of
// repeating its start, which would turn the rare requests into hits.
//
// With three more arguments, a second path file, its start and a slice
// in seconds, the run interleaves the two: by the clock, slices of the
// first file's paths and of the second's in turn, every thread in the same
// slice. At the end it prints one line, "interleaved: first_requests=…
// first_seconds=… second_requests=… second_seconds=…": the requests each
// file's slices sent and the time they took. Two mixes measured in turn
// over runs of seconds compare the machine's speed at two times as much
// as the mixes: a virtual machine of this kind ran a fixed loop at two
// speeds 1.6 times apart, each for seconds at a time (docs/edge.md, "Two
// mixes measured in turn"); slices of half a second share them out alike.
//
// The paths are held outside LuaJIT's heap: the file's bytes in one FFI
// buffer and where each line starts in another. Held as a table of twelve
// million strings (as they first were), they made the client itself the
// tail: a server answering every request with the same bytes (the
// ceiling) measured a p99 of 4.6–17 ms over scale.paths against 1.1 ms
// over hot.paths; held as one string, 3.4 ms; so, 2.0 ms (docs/edge.md,
// "The scale mix's client").
func scaleLua(key string, brShare float64) string {
	every := int(1/(1-brShare) + 0.5) // 0.8 → every 5th request is gzip-only
	return fmt.Sprintf(`local key = %q
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *ts);
]]
local threads, list = 0, {}
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
  list[threads] = thread
end
-- A mix is a path file held as buf, its last line ended (line k is
-- buf[starts[k], starts[k+1]-1), its newline excluded), its n lines, and
-- the position i of the next path to send.
local mixes, step = {}, 1
local brHead, brTail, gzHead, gzTail
-- split cuts a request wrk.format made for the path "<path>" around it: a
-- request is then one concatenation (the paths are too many to format
-- each once, as writeLua's scripts do).
local function split(s)
  local at = s:find("<path>", 1, true)
  return s:sub(1, at - 1), s:sub(at + #"<path>")
end
local function load(path, start)
  local f = assert(io.open(path, "rb"))
  local size = f:seek("end")
  f:seek("set", 0)
  local buf = ffi.new("uint8_t[?]", size + 1)
  local at = 0
  while true do
    local chunk = f:read(16777216)
    if not chunk then break end
    ffi.copy(buf + at, chunk, #chunk)
    at = at + #chunk
  end
  f:close()
  assert(at == size, path .. " changed while it was read")
  if size > 0 and buf[size - 1] ~= 10 then buf[size], size = 10, size + 1 end
  local n = 0
  for p = 0, size - 1 do
    if buf[p] == 10 then n = n + 1 end
  end
  assert(n > 0, path .. " holds no path")
  local starts = ffi.new("double[?]", n + 1)
  local k = 0
  for p = 0, size - 1 do
    if buf[p] == 10 then k = k + 1; starts[k] = p + 1 end
  end
  return {buf = buf, starts = starts, n = n, i = tonumber(start or "0") + (id or 0)}
end
local ts = ffi.new("bench_timespec")
local function now()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end
-- Globals, for done() to read with thread:get: the slice's length, the
-- requests each mix sent, and when the first and the last were sent.
slice, sent1, sent2, first, last = nil, 0, 0, nil, nil
function init(args)
  step = tonumber(args[3] or "1")
  mixes[1] = load(args[1], args[2])
  if args[4] then
    mixes[2] = load(args[4], args[5])
    slice = tonumber(args[6] or "0.5")
  end
  brHead, brTail = split(wrk.format("GET", "<path>", {["X-SVC-App-Key"] = key, ["Accept-Encoding"] = "br, gzip"}))
  gzHead, gzTail = split(wrk.format("GET", "<path>", {["X-SVC-App-Key"] = key, ["Accept-Encoding"] = "gzip"}))
end
function request()
  local m = mixes[1]
  if slice then
    local t = now()
    first = first or t
    last = t
    if math.floor(t / slice) %% 2 == 1 then
      m = mixes[2]
      sent2 = sent2 + 1
    else
      sent1 = sent1 + 1
    end
  end
  local k = m.i %% m.n
  local p = ffi.string(m.buf + m.starts[k], m.starts[k + 1] - m.starts[k] - 1)
  m.i = m.i + step
  if m.i %% %d == 0 then return gzHead .. p .. gzTail end
  return brHead .. p .. brTail
end
-- odd is how much of [0, t] lies in the second file's slices (the odd ones).
local function odd(t, s)
  local k = math.floor(t / s)
  return math.floor(k / 2) * s + (k %% 2 == 1 and t - k * s or 0)
end
function done()
  local s, n1, n2, a, b = nil, 0, 0, nil, nil
  for _, t in ipairs(list) do
    s = t:get("slice")
    local f = t:get("first")
    if s and f then
      n1, n2 = n1 + t:get("sent1"), n2 + t:get("sent2")
      a, b = math.min(a or f, f), math.max(b or 0, t:get("last"))
    end
  end
  if not a then return end
  local t2 = odd(b, s) - odd(a, s)
  io.write(string.format("interleaved: first_requests=%%d first_seconds=%%.3f second_requests=%%d second_seconds=%%.3f\n",
    n1, b - a - t2, n2, t2))
end
`, key, every)
}

// writeAccessFor writes the access file as writeAccess does, with every
// app licensed for the Bibles ids too.
func writeAccessFor(accessIn, out string, ids []int32) error {
	return writeAccessWith(accessIn, out, func(snap *access.Snapshot) {
		for i := range snap.Apps {
			snap.Apps[i].Bibles = append(snap.Apps[i].Bibles, ids...)
		}
	})
}
