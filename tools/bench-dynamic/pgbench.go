package main

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// freshDB (re)creates database name on the server and returns its URL.
func freshDB(serverURL, name string) (string, error) {
	for _, sql := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name} {
		if out, err := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", serverURL, "-c", sql).CombinedOutput(); err != nil {
			return "", fmt.Errorf("psql %q: %v: %s", sql, err, out)
		}
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

func pgbenchInit(dbURL string) error {
	if out, err := exec.Command("pgbench", "-i", "-q", "-s", "10", dbURL).CombinedOutput(); err != nil {
		return fmt.Errorf("pgbench -i: %v: %s", err, out)
	}
	return nil
}

var (
	txLine  = regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)
	tpsLine = regexp.MustCompile(`tps = ([0-9.]+)`)
)

// pgbench adds up the rounds of one pgbench workload.
type pgbench struct {
	name string
	url  string
	conc int
	args []string

	tx        float64
	secs      float64 // pgbench's own measured time, without connecting
	clientCPU time.Duration
	pgCPU     time.Duration
	pgKnown   bool
	rounds    int
	empty     []string // what pgbench said in rounds without a transaction

	// What connecting its clients costs pgbench and PostgreSQL (SCRAM
	// logins, backend start-up), left out of each round's CPU as pgbench
	// leaves it out of its tps: the HTTP clients are connected before
	// their rounds start.
	connClient, connPG time.Duration
}

// measureConnect runs pgbench with one transaction per client, which is
// almost all connecting, and keeps its cost.
func (p *pgbench) measureConnect(pg *pgServer) error {
	args := append(append([]string{}, p.args...), "-c", strconv.Itoa(p.conc), "-j", "2", "-t", "1", p.url)
	pg0, ok0 := pg.cpu()
	cmd := exec.Command("pgbench", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgbench %v: %v: %s", args, err, out)
	}
	pg1, ok1 := pg.cpu()
	p.connClient = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ok0 && ok1 {
		p.connPG = pg1 - pg0
	}
	return nil
}

// run runs one round of about d. A round in which pgbench's clients spent
// the whole time connecting (on a loaded machine, 64 SCRAM logins can take
// seconds) processes no transaction: it is retried once with twice the
// time, and if still empty it is left out and reported, rather than ending
// the run.
func (p *pgbench) run(d time.Duration, pg *pgServer) error {
	p.rounds++
	secs := max(1, int(d/time.Second))
	for try := range 2 {
		args := append(append([]string{}, p.args...), "-c", strconv.Itoa(p.conc), "-j", "2", "-T", strconv.Itoa(secs<<try), p.url)
		pg0, ok0 := pg.cpu()
		cmd := exec.Command("pgbench", args...)
		out, err := cmd.CombinedOutput()
		pg1, ok1 := pg.cpu()
		tx, tps, perr := parsePgbench(out)
		if perr != nil {
			if err != nil {
				return fmt.Errorf("pgbench %v: %v: %s", p.args, err, out)
			}
			return fmt.Errorf("pgbench %v: %v: %s", p.args, perr, out)
		}
		if tx == 0 || tps <= 0 {
			p.empty = append(p.empty, lastLines(out, 3))
			continue
		}
		// pgbench's tps leaves out connection set-up; so does tx/tps.
		p.tx += tx
		p.secs += tx / tps
		p.clientCPU += max(0, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()-p.connClient)
		p.pgKnown = ok0 && ok1 && (p.pgKnown || p.pgCPU == 0)
		p.pgCPU += max(0, pg1-pg0-p.connPG)
		return nil
	}
	return nil
}

func parsePgbench(out []byte) (tx, tps float64, err error) {
	n := txLine.FindSubmatch(out)
	if n == nil {
		return 0, 0, fmt.Errorf("no transaction count")
	}
	tx, _ = strconv.ParseFloat(string(n[1]), 64)
	if t := tpsLine.FindSubmatch(out); t != nil {
		tps, _ = strconv.ParseFloat(string(t[1]), 64)
	}
	return tx, tps, nil
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "; ")
}

// cpuPerOp is the CPU of pgbench and of PostgreSQL per transaction, in
// microseconds, connecting left out.
func (p *pgbench) cpuPerOp() float64 {
	return us(p.clientCPU+p.pgCPU) / max(1, p.tx)
}

func (p *pgbench) tps() float64 {
	if p.secs <= 0 {
		return 0
	}
	return p.tx / p.secs
}

// print prints the workload's line; it fails when no round processed a
// transaction, since there is then nothing to compare with.
func (p *pgbench) print() error {
	if p.tx == 0 {
		return fmt.Errorf("%s processed no transaction in %d rounds (each retried once with twice the time): its %d clients spent each round connecting, so the machine is too loaded for these figures; retry later, or with fewer clients (BENCH_DYNAMIC_CONCURRENCY) or longer rounds (BENCH_DYNAMIC_DURATION). pgbench said: %s",
			p.name, p.rounds, p.conc, strings.Join(p.empty, " | "))
	}
	if len(p.empty) > 0 {
		fmt.Printf("%s: %d tries processed no transaction (clients still connecting): left out\n", p.name, len(p.empty))
	}
	pg := "n/a"
	if p.pgKnown {
		pg = fmt.Sprintf("%.0f", float64(p.pgCPU/time.Microsecond)/p.tx)
	}
	fmt.Printf("%-22s %10.0f %8.0f %8s %8s %26s %18s %15.0f\n", p.name, p.tx, p.tps(), "", "", "", pg,
		float64(p.clientCPU/time.Microsecond)/p.tx)
	return nil
}

// pgServer is a PostgreSQL server on this machine, whose CPU time can be
// read from /proc: the postmaster, its live children (backends and
// background processes) and the children it has reaped (pgbench's
// backends, once it has disconnected). A nil *pgServer knows nothing: the
// server is elsewhere, or /proc is not readable.
type pgServer struct{ postmaster int }

// findServer finds the postmaster through one of dynamic's backends on
// database db (their pids are in pg_stat_activity for every role).
func findServer(serverURL, db string) *pgServer {
	out, err := exec.Command("psql", "-X", "-A", "-t", "-d", serverURL, "-c",
		"SELECT pid FROM pg_stat_activity WHERE datname = '"+db+"' AND pid <> pg_backend_pid() LIMIT 1").Output()
	if err != nil {
		return nil
	}
	backend, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return nil
	}
	st, err := readStat(backend)
	if err != nil {
		return nil
	}
	comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(st.ppid), "comm"))
	if err != nil || !bytes.HasPrefix(comm, []byte("postgres")) {
		return nil
	}
	return &pgServer{postmaster: st.ppid}
}

// cpu is the server's CPU time so far.
func (s *pgServer) cpu() (time.Duration, bool) {
	if s == nil {
		return 0, false
	}
	pm, err := readStat(s.postmaster)
	if err != nil {
		return 0, false
	}
	total := pm.self + pm.children
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil && st.ppid == s.postmaster {
			total += st.self
		}
	}
	return total, true
}

type procStat struct {
	ppid     int
	self     time.Duration // utime + stime
	children time.Duration // cutime + cstime: reaped children
}

// readStat reads /proc/pid/stat (proc(5)); times are in clock ticks of
// 1/100 s.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	// The command name is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	n := func(k int) time.Duration {
		v, _ := strconv.ParseInt(f[k], 10, 64)
		return time.Duration(v) * 10 * time.Millisecond
	}
	ppid, _ := strconv.Atoi(f[1])
	// f[0] is field 3 (state): utime is field 14, so f[11].
	return procStat{ppid: ppid, self: n(11) + n(12), children: n(13) + n(14)}, nil
}
