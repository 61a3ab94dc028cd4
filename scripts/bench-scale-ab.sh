#!/usr/bin/env bash
# bench-scale-ab: an A/B of edges serving the catalogue-scale mix at the same
# time, so that they share the machine's load alike (docs/edge.md, "What
# changed, and what each change bought"). Needs the mix of a bench-scale run
# in SCALE_DIR (scale.paths, scale.lua, access.json).
#
#   scripts/bench-scale-ab.sh NAME BIN STORE ARGS [NAME BIN STORE ARGS ...]
#
# Each edge: BIN/edge serve on STORE (a directory store or an s3:// URL) with
# the extra flags ARGS (split on spaces; "" for none), GOMAXPROCS=1, all on
# CPU 0; each gets its own wrk (one thread, BENCH_CONNS connections, on CPU 1)
# sending scale.paths from the same position: BENCH_WARMUP seconds untimed
# from the cold start, then BENCH_SECONDS measured. Prints a line per edge:
# requests, req/s, p99, CPU per request (from /proc), pack lookups answered
# by memory and disk, store reads per second, RSS and peak RSS, and the
# heap's figures from /metrics (and, with GODEBUG=gctrace=1 in the
# environment, the collector's mark phases during the measured run);
# writes a CPU profile of the measured run
# and a heap profile after it to SCALE_DIR/ab/NAME/ (and removes the edge's
# disk cache there when it stops).
#
# Environment: SCALE_DIR (.run/bench-scale), BENCH_SECONDS (30),
# BENCH_WARMUP (20), BENCH_CONNS (32), START (0: where in scale.paths).
set -euo pipefail
cd "$(dirname "$0")/.."

SCALE_DIR=${SCALE_DIR:-.run/bench-scale}
BENCH_SECONDS=${BENCH_SECONDS:-30}
BENCH_WARMUP=${BENCH_WARMUP:-20}
BENCH_CONNS=${BENCH_CONNS:-32}
START=${START:-0}
mix=$(cd "$SCALE_DIR" && pwd)
[ -s "$mix/scale.paths" ] || { echo "bench-scale-ab: no scale.paths in $mix: run make bench-scale first" >&2; exit 2; }
[ $# -ge 4 ] && [ $(($# % 4)) = 0 ] || { echo "usage: $0 NAME BIN STORE ARGS [NAME BIN STORE ARGS ...]" >&2; exit 2; }
[ "$(nproc)" -gt 1 ] || { echo "bench-scale-ab: needs two CPUs (edges on one, wrk on another)" >&2; exit 2; }

. scripts/bench-machine.sh
bench_machine_before

. scripts/bench-scale-edge.sh

names=() pids=() ports=() starts=()
# Each edge's disk cache goes with it: a MinIO run leaves gigabytes.
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	for n in "${names[@]}"; do rm -rf "$mix/ab/$n/disk-cache"; done
}
trap cleanup EXIT INT TERM
# Every edge's earlier output removed before the first starts, so that they
# start together.
old=()
for ((i = 1; i <= $#; i += 4)); do
	old+=("$mix/ab/${!i}")
done
remove_output "${old[@]}"
while [ $# -ge 4 ]; do
	name=$1 bin=$2 store=$3 args=$4
	shift 4
	port=$(free_port)
	d=$mix/ab/$name
	mkdir -p "$d"
	# shellcheck disable=SC2086 # ARGS are flags split on spaces
	GOMAXPROCS=1 taskset -c 0 "$bin/edge" serve --store "$store" --access "$mix/access.json" \
		--access-cache "$d/access-cache.json" --disk-cache "$d/disk-cache" \
		--listen "127.0.0.1:$port" --public-url "http://127.0.0.1:$port" --no-access-log \
		--debug-listen "127.0.0.1:$((port + 1))" $args 2>"$d/edge.log" &
	pids+=($!) names+=("$name") ports+=("$port") starts+=("$(date +%s.%N)")
done
for i in "${!ports[@]}"; do
	for _ in $(seq 600); do
		kill -0 "${pids[$i]}" 2>/dev/null || { echo "bench-scale-ab: ${names[$i]} exited: $(tail -1 "$mix/ab/${names[$i]}/edge.log")" >&2; exit 1; }
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${ports[$i]}/readyz")" = 200 ] && break
		sleep 0.1
	done
done

# run SECS FROM SUFFIX: every edge's wrk at once.
run() {
	local w=()
	for i in "${!ports[@]}"; do
		taskset -c 1 wrk -t 1 -c "$BENCH_CONNS" -d "${1}s" --timeout 30s --latency -s "$mix/scale.lua" \
			"http://127.0.0.1:${ports[$i]}" -- "$mix/scale.paths" "$2" 1 >"$mix/ab/${names[$i]}/wrk.$3" &
		w+=($!)
	done
	wait "${w[@]}"
}

[ "$BENCH_WARMUP" -gt 0 ] && run "$BENCH_WARMUP" "$START" warm
# The measured run goes on from where the furthest warm-up stopped (its
# answers, and the requests still in flight on its connections), so that no
# edge replays requests it has just served.
from=$START
if [ "$BENCH_WARMUP" -gt 0 ]; then
	for n in "${names[@]}"; do
		got=$(awk '/ requests in / {print $1}' "$mix/ab/$n/wrk.warm")
		from=$((from > START + got + BENCH_CONNS ? from : START + got + BENCH_CONNS))
	done
fi
profs=()
for i in "${!ports[@]}"; do
	scale_counters "${ports[$i]}" >"$mix/ab/${names[$i]}/c0"
	cpu_ticks "${pids[$i]}" >"$mix/ab/${names[$i]}/cpu0"
	curl -s -o "$mix/ab/${names[$i]}/cpu.pprof" \
		"http://127.0.0.1:$((ports[i] + 1))/debug/pprof/profile?seconds=$((BENCH_SECONDS > 3 ? BENCH_SECONDS - 2 : 1))" &
	profs+=($!)
done
m0=$(date +%s.%N)
run "$BENCH_SECONDS" "$from" meas
m1=$(date +%s.%N)
wait "${profs[@]}"
hz=$(getconf CLK_TCK)
for i in "${!ports[@]}"; do
	d=$mix/ab/${names[$i]}
	scale_counters "${ports[$i]}" >"$d/c1"
	curl -s -o "$d/heap.pprof" "http://127.0.0.1:$((ports[i] + 1))/debug/pprof/heap"
	ticks=$(($(cpu_ticks "${pids[$i]}") - $(cat "$d/cpu0")))
	rss=$(awk '/^VmRSS:/ {r = $2} /^VmHWM:/ {h = $2} END {printf "%d/%d", r / 1024, h / 1024}' "/proc/${pids[$i]}/status")
	heap=$(curl -s "http://127.0.0.1:${ports[$i]}/metrics" | awk '
		/^go_memstats_heap_alloc_bytes / { printf " heap_alloc_mb=%d", $2 / 1048576 }
		/^go_memstats_next_gc_bytes / { printf " next_gc_mb=%d", $2 / 1048576 }
		/^go_gc_duration_seconds_count / { printf " gcs=%d", $2 }
		/^edge_cache_bytes\{cache="packs"\}/ { printf " pack_cache_mb=%d", $2 / 1048576 }')
	# With GODEBUG=gctrace=1 in the environment, the collector's cycles that
	# started during the measured run: each mark phase's wall time and its
	# background worker's CPU (the scale mix's tail is made of them).
	heap+=$(awk -v t0="${starts[$i]}" -v m0="$m0" -v m1="$m1" '
		BEGIN { a = m0 - t0; b = m1 - t0 }
		/^gc [0-9]+ @[0-9.]+s / {
			t = substr($3, 2) + 0
			if (t < a || t >= b) next
			split($5, c, "+"); split($8, u, "+"); split(u[2], w, "/")
			n++; wall = wall sep sprintf("%.0f", c[2]); cpu = cpu sep sprintf("%.0f", w[2]); sep = ","
		}
		END { if (n) printf " gc_cycles=%d mark_wall_ms=%s mark_worker_ms=%s", n, wall, cpu }' "$d/edge.log")
	awk -v name="${names[$i]}" -v secs="$BENCH_SECONDS" -v ticks="$ticks" -v hz="$hz" -v rss="$rss" -v heap="$heap" -v out="$d/wrk.meas" '
		FNR == NR { a[$1] = $2; next }
		{ d[$1] = $2 - a[$1] }
		END {
			while ((getline l < out) > 0) {
				if (l ~ /^Requests\/sec:/) { split(l, f, " "); rps = f[2] }
				if (l ~ /^ +99%/) { split(l, f, " "); p99 = f[2] }
				if (l ~ / requests in /) { split(l, f, " "); n = f[1] }
				if (l ~ /Non-2xx/) { split(l, f, " "); bad = f[length(f)] }
			}
			all = d["memory"] + d["disk"] + d["store"] + d["store_header"] + d["store_range"]
			printf "%-14s requests=%d rps=%.0f p99=%s cpu_us_per_req=%.1f mem_hit=%.3f disk_hit=%.3f store_reads_per_s=%.0f rss_mb=%s%s%s\n",
				name, n, rps, p99, n ? ticks * 1e6 / hz / n : 0, all ? d["memory"] / all : 0, all ? d["disk"] / all : 0,
				d["store_reads"] / secs, rss, heap, bad ? "  FAILED: " bad " non-2xx" : ""
		}' "$d/c0" "$d/c1"
done
# The mix's client goes round to its first path after its last: a run
# past the end sends again what the edges served at the start.
lines=$(wc -l <"$mix/scale.paths")
for n in "${names[@]}"; do
	sent=$(awk '/ requests in / {print $1}' "$mix/ab/$n/wrk.meas")
	if [ $((from + sent + BENCH_CONNS)) -gt "$lines" ]; then
		echo "warning: $n's measured run went past the end of scale.paths ($lines paths, from $from): it sent the mix's first paths again; a shorter BENCH_WARMUP or START measures within it" >&2
	fi
done
bench_machine_after
