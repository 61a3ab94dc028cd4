#!/usr/bin/env bash
# bench-scale: the edge serving a catalogue of 50 Bibles whose working set
# does not fit in its memory, from the directory store and from MinIO, with
# its default memory and disk-cache sizes. Called by `make bench-scale`; see
# docs/edge.md ("At catalogue scale") for what it measures.
#
# For each store (STORES, "dir minio" by default) it starts one edge, cold
# (empty memory, empty disk cache), and sends a Zipf mix (s = 1.1) over every
# verse, chapter, range and metadata route of the 50 Bibles (tools/benchmix
# -mix scale): one run from the cold start, a warm-up, then BENCH_ROUNDS
# rounds of the hot mix (the first Bible alone, which fits in memory) and of
# the scale mix, BENCH_SECONDS each, and of the two interleaved in slices of
# half a second for twice as long (scale_vs_hot; interleave). The warm-up
# goes on in steps of 10 s while the tiers are still filling (a step's store
# reads a request fell by more than a tenth), up to BENCH_WARMUP_MAX: a disk
# cache fed from MinIO takes minutes to fill, and an edge measured while it
# fills is not warm.
# The directory store's turn starts with its files read whole into the page
# cache, as a server whose memory holds its store keeps them (and as the
# build leaves them): the edge starts cold, its store does not. Before, the
# turn took the page cache as the last run's MinIO turn and what ran since
# left it, and how much of the store it held, and how it got there, moved
# the figures by more than the edge's changes did (docs/edge.md,
# thirty-third round).
# The scale mix is one long sequence that each run continues (never
# replays), so its rare requests stay rare. The floor's turn ("floor" in
# STORES) runs the same rounds against tools/ceiling holding every answer of
# both mixes in memory (fetched once from an edge of the directory store,
# kept in SCALE_DIR): what a server with nothing to miss makes of them.
# The bounded floor's turn ("bounded") runs the same server holding at most
# the edge's default --pack-cache of those bodies, each from its second
# request within a while, and reading any other with one pread from the
# file of answers: what a server of the same answers within the edge's
# memory makes of the scale mix, from a cold start and warmed as the edge
# is. Prints
# a line per run and ends with one summary line; every figure is the median
# of the rounds.
#
# Environment: BIN (built binaries), SCALE_DIR (work dir, reused between
# runs: the store, its mix, MinIO's data), BENCH_ROUNDS (3), BENCH_SECONDS
# (10), BENCH_WARMUP (30 s of the scale mix after the cold run, at least),
# BENCH_WARMUP_MAX (180 s at most), BENCH_CONNS (64), SCALE_REQUESTS (length
# of the scale sequence, 12,000,000: enough for the longest warm-up at
# 50,000 requests a second), STORES, EDGE_ARGS.
# (The knobs are not ROUNDS and SECONDS: SECONDS is bash's own clock.)
set -euo pipefail
cd "$(dirname "$0")/.."

# The CPU and the load before anything here runs: the set-up (a build of
# 50 Bibles on the first run) would raise the load itself.
. scripts/bench-machine.sh
bench_machine_before

BIN=${BIN:-bin}
SCALE_DIR=${SCALE_DIR:-.run/bench-scale}
BENCH_SECONDS=${BENCH_SECONDS:-10}
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
BENCH_WARMUP=${BENCH_WARMUP:-30}
BENCH_WARMUP_MAX=${BENCH_WARMUP_MAX:-180}
BENCH_CONNS=${BENCH_CONNS:-64}
SCALE_REQUESTS=${SCALE_REQUESTS:-12000000}
STORES=${STORES:-dir minio floor bounded}
# EDGE_ARGS: more edge serve flags (split on spaces), to measure another
# setting than the defaults, e.g. "--whole-pack-max 1".
EDGE_ARGS=${EDGE_ARGS:-}
# A free port unless EDGE_PORT names one (scripts/bench-scale-edge.sh).
. scripts/bench-scale-edge.sh
EDGE_PORT=${EDGE_PORT:-$(free_port)}

command -v wrk >/dev/null || {
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get install -y wrk >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y wrk >/dev/null; }
}

mkdir -p "$SCALE_DIR"
dir=$(cd "$SCALE_DIR" && pwd)
key=$(sed -n 's/.*"app_key": *"\([^"]*\)".*/\1/p' fixtures/demo-keys.json)

# The catalogue: bench-catalogue's 50 Bibles (scripts/catalogue.sh), built
# once into a directory store and kept between runs (7 GB), and built again
# when what a build writes has changed: the pack format (publish's
# packFormat), the rendering (build's renderVersion) or the volumes
# (build's VolumeBytes).
format=$(grep -h -e '^const packFormat' -e '^const renderVersion' -e '^const VolumeBytes' \
	publish/pack.go build/build.go build/volume.go)
# Every line, or the stamp would stop changing with them.
[ "$(printf '%s\n' "$format" | wc -l)" = 3 ] || {
	echo "bench-scale: packFormat, renderVersion or VolumeBytes not found in publish/pack.go, build/*.go" >&2
	exit 2
}
format=$(printf '%s\n' "$format" | sha256sum | cut -c1-16)
if [ ! -s "$dir/store/CURRENT" ] || [ "$(cat "$dir/store.format" 2>/dev/null)" != "$format" ]; then
	echo "building the 50-Bible store in $dir/store (once for this pack format; minutes)" >&2
	rm -rf "$dir/imported" "$dir/content" "$dir/store"
	PUBLISH=$BIN/publish
	. scripts/catalogue.sh
	catalogue_import "$dir/imported"
	catalogue_content "$dir/imported" "$dir/content" 10
	"$BIN/publish" build --content "$dir/content" --store "$dir/store" >&2
	rm -rf "$dir/imported" "$dir/content"
	echo "$format" >"$dir/store.format"
fi
build=$(cat "$dir/store/CURRENT")
# The mix is made again when the build, its size or the tool that writes it
# (the paths and the wrk script) changed; it takes seconds.
stamp="$build $SCALE_REQUESTS $(cat tools/benchmix/*.go | sha256sum | cut -c1-16)"
if [ "$(cat "$dir/mix.build" 2>/dev/null)" != "$stamp" ]; then
	go run ./tools/benchmix -mix scale -store "$dir/store" -n "$SCALE_REQUESTS" -out "$dir" -key "$key" \
		-access fixtures/access.json
	echo "$stamp" >"$dir/mix.build"
fi

# The edge gets CPU 0, wrk (and MinIO, standing in for a store on other
# machines) the rest, as in bench-edge.
cpus=$(nproc)
srv_pin=() load_pin=() load_cpus=""
if [ "$cpus" -gt 1 ] && command -v taskset >/dev/null; then
	load_cpus="1-$((cpus - 1))"
	srv_pin=(taskset -c 0) load_pin=(taskset -c "$load_cpus")
fi
wrk_threads=$((cpus > 2 ? cpus - 1 : 1))

edge_pid="" minio_up=""
cleanup() {
	[ -z "$edge_pid" ] || { kill "$edge_pid" 2>/dev/null || true; wait "$edge_pid" 2>/dev/null || true; }
	[ -z "$minio_up" ] || scripts/minio.sh stop "$dir/minio" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

# floorish: the turn is a floor's (tools/ceiling), not an edge's.
floorish() { [ "$store" = floor ] || [ "$store" = bounded ]; }

# wait_ready [PORT]: the edge's /readyz answers 200 (a floor's turn: an
# answer of the hot mix does).
wait_ready() {
	local url=http://127.0.0.1:${1:-$EDGE_PORT}/readyz fields=()
	if floorish; then
		url=http://127.0.0.1:$EDGE_PORT$(head -1 "$dir/hot.paths")
		fields=(-H "X-SVC-App-Key: $key" -H "Accept-Encoding: br")
	fi
	for _ in $(seq 300); do
		kill -0 "$edge_pid" 2>/dev/null || { echo "bench-scale: the edge exited: $(tail -1 "$dir/edge.$store.log")" >&2; exit 1; }
		[ "$(curl -s -o /dev/null -w '%{http_code}' "${fields[@]}" "$url")" = 200 ] && return
		sleep 0.1
	done
	echo "bench-scale: the edge did not become ready (log: $dir/edge.$store.log)" >&2
	exit 1
}

# counters: scale_counters of our edge, and from /proc its CPU time (user
# and system, in clock ticks) and the bytes it has had read from the disk
# (read_bytes: a store or disk-cache read the page cache did not hold).
counters() {
	scale_counters "$EDGE_PORT"
	echo "cpu_ticks $(cpu_ticks "$edge_pid")"
	awk '/^read_bytes:/ {print "disk_read_bytes", $2}' "/proc/$edge_pid/io"
}
hz=$(getconf CLK_TCK)
# rss_mb PID: resident and peak resident MiB.
rss_mb() { awk '/^VmRSS:/ {r = $2} /^VmHWM:/ {h = $2} END {printf "%d %d\n", r / 1024, h / 1024}' "/proc/$1/status"; }

# failures FILE: the non-2xx answers and socket errors of a wrk report.
failures() { awk '/Non-2xx/ {n += $NF} /Socket errors/ {gsub(/,/, ""); n += $4 + $6 + $8 + $10} END {print n + 0}' "$1"; }

# measure LABEL FILE START SECONDS: one wrk run of the paths in FILE from
# position START; appends "LABEL rps p99_ms requests failed mem_hit disk_hit
# store_reads_per_s composed_hit rss_mb cpu_us disk_read_mb_s" to
# $dir/runs.txt and prints it (cpu_us: the edge's CPU time a request); sets
# sent (requests sent).
measure() {
	local label=$1 file=$2 start=$3 secs=$4 out="$dir/wrk.$1.txt"
	counters >"$dir/c0"
	"${load_pin[@]}" wrk -t "$wrk_threads" -c "$BENCH_CONNS" -d "${secs}s" --timeout 30s --latency -s "$dir/scale.lua" \
		"http://127.0.0.1:$EDGE_PORT" -- "$file" "$start" "$wrk_threads" >"$out"
	counters >"$dir/c1"
	sent=$(awk '/ requests in / {print $1}' "$out")
	local line
	line=$(awk -v label="$label" -v secs="$secs" -v hz="$hz" -v rss="$(rss_mb "$edge_pid" | cut -d' ' -f1)" \
		-v non="$(failures "$out")" -v out="$out" '
		FNR == NR { a[$1] = $2; next }
		{ d[$1] = $2 - a[$1] }
		END {
			while ((getline l < out) > 0) {
				if (l ~ /^Requests\/sec:/) { split(l, f, " "); rps = f[2] }
				if (l ~ /^ +99%/) { split(l, f, " "); v = f[2]
					if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }
					p99 = v }
				if (l ~ / requests in /) { split(l, f, " "); n = f[1] }
			}
			all = d["memory"] + d["disk"] + d["store"] + d["store_header"] + d["store_range"]
			comp = d["composed_hit"] + d["composed_miss"]
			printf "%s %.0f %.2f %d %d %.3f %.3f %.0f %.3f %d %.1f %.1f\n", label, rps, p99, n, non + 0,
				all ? d["memory"] / all : 0, all ? d["disk"] / all : 0, d["store_reads"] / secs,
				comp ? d["composed_hit"] / comp : 0, rss, n ? d["cpu_ticks"] * 1e6 / hz / n : 0,
				d["disk_read_bytes"] / 1048576 / secs
		}' "$dir/c0" "$dir/c1")
	echo "$line" >>"$dir/runs.txt"
	set -- $line
	printf '%-16s %7s req/s  p99 %7s ms  mem_hit %s  disk_hit %s  store_reads %5s/s  composed_hit %s  rss %s MiB  cpu %s us/req  disk reads %s MiB/s%s\n' \
		"$1" "$2" "$3" "$6" "$7" "$8" "$9" "${10}" "${11}" "${12}" "$([ "$5" = 0 ] || echo "  FAILED (non-2xx or socket errors): $5 of $4")" >&2
}

# interleave LABEL SECONDS: one wrk run of both mixes in turn, slices of
# half a second of the scale mix (from pos) and of the hot mix (from
# hot_pos), and advances both; appends "LABEL scale_rps hot_rps ratio" to
# $dir/mixed.txt and prints it. This machine's speed changes by as much as
# 1.6 times from one run of seconds to the next (docs/edge.md, "Two mixes
# measured in turn"), so the two mixes measured in runs of their own
# compare two moments as much as two mixes; in slices they share the
# moments alike. The separate runs (measure) give the rest: the p99, the
# tiers' hits, the CPU a request.
interleave() {
	local label=$1 secs=$2 out="$dir/wrk.$1.txt" line
	"${load_pin[@]}" wrk -t "$wrk_threads" -c "$BENCH_CONNS" -d "${secs}s" --timeout 30s -s "$dir/scale.lua" \
		"http://127.0.0.1:$EDGE_PORT" -- "$dir/scale.paths" "$pos" "$wrk_threads" "$dir/hot.paths" "$hot_pos" 0.5 >"$out"
	line=$(sed -n 's/^interleaved: //p' "$out")
	[ -n "$line" ] || { echo "bench-scale: no interleaved counts in $out" >&2; exit 1; }
	set -- $(echo "$line" | tr '=' ' ')
	pos=$((pos + $2)) hot_pos=$((hot_pos + $6))
	line=$(awk -v l="$label" -v n1="$2" -v t1="$4" -v n2="$6" -v t2="$8" \
		'BEGIN {printf "%s %.0f %.0f %.3f\n", l, n1 / t1, n2 / t2, (n1 / t1) / (n2 / t2)}')
	echo "$line" >>"$dir/mixed.txt"
	set -- $line
	printf '%-16s scale %7s req/s  hot %7s req/s  in slices of 0.5 s%s\n' "$1" "$2" "$3" \
		"$(n=$(failures "$out"); [ "$n" = 0 ] || echo "  FAILED (non-2xx or socket errors): $n")" >&2
}

# warm_hot sends the hot mix (untimed) until a whole run of it loads
# nothing: no pack from the disk or the store and no range composed (at
# most 10 runs of 3 s). Before every hot round: the scale round before it
# evicted some of the first Bible's packs. The hot runs go on through the
# hot sequence (hot_pos), as the scale runs do through theirs, so that the
# warm-up covers all of it, not its start again and again.
misses() {
	counters | awk '$1 ~ /^(disk|store|store_header|store_range|composed_miss)$/ {n += $2} END {print n + 0}'
}
warm_hot() {
	local before now i d
	before=$(misses)
	for i in $(seq 10); do
		"${load_pin[@]}" wrk -t "$wrk_threads" -c "$BENCH_CONNS" -d 3s --timeout 30s -s "$dir/scale.lua" \
			"http://127.0.0.1:$EDGE_PORT" -- "$dir/hot.paths" "$hot_pos" "$wrk_threads" >"$dir/wrk.warm.txt"
		hot_pos=$((hot_pos + $(awk '/ requests in / {print $1}' "$dir/wrk.warm.txt")))
		now=$(misses)
		d=$((now - before)) before=$now
		[ "$d" = 0 ] && break
	done
	echo "hot mix: warm after $i runs of 3s$([ "$d" = 0 ] || echo "; still $d loads in the last")" >&2
}

# store_reads_per_request LABEL: the store reads a request of a run.
store_reads_per_request() {
	awk -v l="$1" '$1 == l {printf "%.4f\n", $2 ? $8 / $2 : 0}' "$dir/runs.txt"
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
med() { # PREFIX COLUMN: median of a column over the runs whose label starts with PREFIX
	awk -v p="$1" -v c="$2" 'index($1, p) == 1 {print $c}' "$dir/runs.txt" | median
}

# fetch_answers: every answer of both mixes, in the two codings the mix
# asks for, from an edge of the directory store with room for all of it,
# into answers.bin for the floor (tools/ceiling -fetch); again when the mix
# or the tool changed.
fetch_answers() {
	local fstamp port
	fstamp="$stamp $(cat tools/ceiling/*.go | sha256sum | cut -c1-16)"
	[ "$(cat "$dir/answers.build" 2>/dev/null)" != "$fstamp" ] || [ ! -s "$dir/answers.bin" ] || return 0
	echo "fetching every answer of the mixes for the floor (once; minutes)" >&2
	port=$(free_port)
	"$BIN/edge" serve --store "$dir/store" --access "$dir/access.json" --access-cache "$dir/access-cache.json" \
		--listen "127.0.0.1:$port" --public-url "http://127.0.0.1:$port" --no-access-log \
		--pack-cache 4294967296 --compose-cache 1073741824 2>"$dir/edge.fetch.log" &
	edge_pid=$!
	wait_ready "$port"
	"$dir/ceiling" -fetch "http://127.0.0.1:$port" -key "$key" -answers "$dir/answers.bin.new" "$dir/scale.paths" "$dir/hot.paths"
	kill "$edge_pid"
	wait "$edge_pid" 2>/dev/null || true
	edge_pid=""
	mv "$dir/answers.bin.new" "$dir/answers.bin"
	echo "$fstamp" >"$dir/answers.build"
}

rm -f "$dir/runs.txt" "$dir/ratios.txt" "$dir/mixed.txt"
summary=()
for store in $STORES; do
	case $store in
	dir)
		url=$dir/store
		find "$url" -type f -exec cat {} + >/dev/null
		;;
	minio)
		# The directory store's pages out of the page cache: MinIO's turn
		# does not read them, and with MinIO's copy and the disk cache
		# they are more than the machine's memory (tools/dropcache).
		go run ./tools/dropcache "$dir/store"
		eval "$(scripts/minio.sh start "$dir/minio" | sed 's/^/export /')"
		minio_up=1
		[ -z "$load_cpus" ] || taskset -a -cp "$load_cpus" "$(cat "$dir/minio/pid")" >/dev/null
		url="s3://bench/scale?endpoint=$S3_TEST_ENDPOINT&secure=false"
		go run ./tools/storecopy -from "$dir/store" -to "$url"
		;;
	floor | bounded)
		go build -o "$dir/ceiling" ./tools/ceiling
		url=$store
		# (store=fetch for wait_ready: the fetching edge's log is edge.fetch.log)
		store=fetch fetch_answers
		;;
	*) echo "bench-scale: unknown store $store (dir, minio, floor or bounded)" >&2; exit 2 ;;
	esac
	# Cold: an empty disk cache and a new process. The page cache keeps
	# what the system read before (the store was written or read lately).
	remove_output "$dir/disk-cache"
	if floorish; then
		bounds=()
		if [ "$store" = bounded ]; then
			# The edge's default memory tier, and a doorkeeper of about as
			# many keys as the edge's (which remembers a tier's worth of 2
			# KiB entries: 288,000).
			bound=$("$BIN/edge" serve --help | sed -n 's/.*--pack-cache=\([0-9]*\).*/\1/p')
			[ -n "$bound" ] || { echo "bench-scale: no --pack-cache default in $BIN/edge serve --help" >&2; exit 2; }
			bounds=(-answers-bound "$bound" -doorkeeper 524288)
		fi
		GOMAXPROCS=1 "${srv_pin[@]}" "$dir/ceiling" -edge-answer -answers "$dir/answers.bin" "${bounds[@]}" \
			-listen "127.0.0.1:$EDGE_PORT" 2>"$dir/edge.$store.log" &
	else
		GOMAXPROCS=1 "${srv_pin[@]}" "$BIN/edge" serve --store "$url" --access "$dir/access.json" \
			--access-cache "$dir/access-cache.json" --disk-cache "$dir/disk-cache" \
			--listen "127.0.0.1:$EDGE_PORT" --public-url "http://127.0.0.1:$EDGE_PORT" \
			--no-access-log $EDGE_ARGS 2>"$dir/edge.$store.log" &
	fi
	edge_pid=$!
	wait_ready
	# The bound the edge set itself: a soft memory limit of --pack-cache +
	# --compose-cache + --search-answer-cache + a third of --pack-cache +
	# --search-index-cache-size + 256 MiB, which it logs.
	if [ "$store" = floor ]; then
		echo "== floor: every answer of both mixes in memory ($dir/answers.bin)" >&2
	elif [ "$store" = bounded ]; then
		echo "== bounded floor: at most $((bound >> 20)) MiB of the answers in $dir/answers.bin held, the rest read from it" >&2
	else
		limit_mb=$(sed -n 's/.*"memory limit","bytes":\([0-9]*\).*/\1/p' "$dir/edge.$store.log" | awk '{print int($1 / 1048576)}' | head -1)
		echo "== $store store: $url (memory limit ${limit_mb:-unknown} MiB)" >&2
	fi
	pos=0 hot_pos=0
	if [ "$store" = floor ]; then
		# Nothing to warm but the processor's caches and the client.
		measure "$store.warmup" "$dir/scale.paths" $pos "$BENCH_SECONDS"
		pos=$((pos + sent))
	else
		measure "$store.cold" "$dir/scale.paths" $pos "$BENCH_SECONDS"
		pos=$((pos + sent))
		# The bounded floor warms as long as the directory store's edge did
		# in this run (its warm-up goes on while the store reads fall).
		warmup=$BENCH_WARMUP
		[ "$store" != bounded ] || warmup=${dir_warmed:-$BENCH_WARMUP}
		measure "$store.warmup" "$dir/scale.paths" $pos "$warmup"
		pos=$((pos + sent))
	fi
	warmed=$BENCH_WARMUP label=$store.warmup
	while ! floorish && [ "$warmed" -lt "$BENCH_WARMUP_MAX" ]; do
		prev=$(store_reads_per_request "$label")
		label=$store.warmup.$warmed
		measure "$label" "$dir/scale.paths" $pos 10
		pos=$((pos + sent)) warmed=$((warmed + 10))
		awk -v a="$prev" -v b="$(store_reads_per_request "$label")" 'BEGIN {exit !(b >= 0.9 * a)}' && break
	done
	[ "$store" != dir ] || dir_warmed=$warmed
	floorish || echo "$store: warm after ${warmed}s of the scale mix (store reads a request: $(store_reads_per_request "$label"))" >&2
	for r in $(seq "$BENCH_ROUNDS"); do
		warm_hot
		measure "$store.hot.$r" "$dir/hot.paths" "$hot_pos" "$BENCH_SECONDS"
		hot_pos=$((hot_pos + sent))
		measure "$store.scale.$r" "$dir/scale.paths" $pos "$BENCH_SECONDS"
		pos=$((pos + sent))
		interleave "$store.mixed.$r" $((2 * BENCH_SECONDS))
		# ratios.txt: "STORE ROUND interleaved apart".
		awk -v r="$r" -v s="$store" '$1 == s ".hot." r {h = $2} $1 == s ".scale." r {c = $2} $1 == s ".mixed." r {m = $4}
			END {printf "%s %d %.3f %.3f\n", s, r, m, c / h}' "$dir/runs.txt" "$dir/mixed.txt" >>"$dir/ratios.txt"
		tail -1 "$dir/ratios.txt" | awk '{printf "%s round %d: scale_vs_hot=%s (in runs of their own: %s)\n", $1, $2, $3, $4}' >&2
	done
	if [ "$pos" -ge "$SCALE_REQUESTS" ]; then
		echo "warning: the runs sent $pos requests of a sequence of $SCALE_REQUESTS: it wrapped, so some requests repeated; raise SCALE_REQUESTS" >&2
	fi
	read -r _ peak < <(rss_mb "$edge_pid")
	kill "$edge_pid"
	wait "$edge_pid" 2>/dev/null || true
	edge_pid=""
	if [ "$store" = minio ]; then
		scripts/minio.sh stop "$dir/minio" >/dev/null
		minio_up=""
	fi
	[ ! -d "$dir/disk-cache" ] || du -sm "$dir/disk-cache" | awk -v s="$store" '{print s " disk cache after the run: " $1 " MiB"}' >&2
	rm -rf "$dir/disk-cache"

	p=$([ "$store" = dir ] && echo "" || echo "${store}_")
	vs=$(awk -v s="$store" '$1 == s {print $3}' "$dir/ratios.txt" | median)
	apart=$(awk -v s="$store" '$1 == s {print $4}' "$dir/ratios.txt" | median)
	if floorish; then
		summary+=("$(printf '%s_scale_rps=%s %s_scale_vs_hot=%s %s_scale_vs_hot_apart=%s %s_scale_p99_ms=%s %s_hot_rps=%s %s_scale_cpu_us=%s %s_hot_cpu_us=%s %s_rss_mb=%s' \
			"$store" "$(med "$store.scale." 2)" "$store" "$vs" "$store" "$apart" "$store" "$(med "$store.scale." 3)" "$store" "$(med "$store.hot." 2)" \
			"$store" "$(med "$store.scale." 11)" "$store" "$(med "$store.hot." 11)" "$store" "$peak")")
		continue
	fi
	summary+=("$(printf '%sscale_rps=%s %sscale_vs_hot=%s %sscale_vs_hot_apart=%s %sscale_p99_ms=%s %smem_hit=%s %sdisk_hit=%s %sstore_reads_per_s=%s %srss_mb=%s %shot_rps=%s %scold_rps=%s %scold_p99_ms=%s %sscale_cpu_us=%s %shot_cpu_us=%s %sscale_disk_read_mb_s=%s' \
		"$p" "$(med "$store.scale." 2)" "$p" "$vs" "$p" "$apart" "$p" "$(med "$store.scale." 3)" "$p" "$(med "$store.scale." 6)" \
		"$p" "$(med "$store.scale." 7)" "$p" "$(med "$store.scale." 8)" "$p" "$peak" "$p" "$(med "$store.hot." 2)" \
		"$p" "$(med "$store.cold" 2)" "$p" "$(med "$store.cold" 3)" "$p" "$(med "$store.scale." 11)" \
		"$p" "$(med "$store.hot." 11)" "$p" "$(med "$store.scale." 12)")")
done
rm -f "$dir/ratios.txt"
limit_note=""
[ -z "${limit_mb:-}" ] || limit_note="; the edge's memory limit is $limit_mb MiB"
echo "(medians of $BENCH_ROUNDS rounds of ${BENCH_SECONDS}s, $BENCH_CONNS connections; rss_mb is the peak$limit_note)"
echo "${summary[*]}"
bench_machine_after
