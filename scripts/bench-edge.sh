#!/usr/bin/env bash
# bench-edge: the edge against nginx serving the same representations from
# disk with gzip_static, and against a minimal fasthttp server (the
# ceiling). Called by `make bench-edge`; see docs/edge.md for what it shows.
#
# Environment: BIN (built binaries), BENCH_DIR (work dir, reused between
# runs), BENCH_SECONDS, BENCH_CONNS, BIBLES (shared Bible sources).
# BASE_BIN, when set, is a directory holding another build's edge (a
# baseline, e.g. an earlier commit's `go build -o DIR ./cmd/edge`): it takes
# its turn in every round beside the others, and the report adds
# edge_vs_base, the change measured in the same run.
set -euo pipefail

BASE_BIN=${BASE_BIN:-}
[ -z "$BASE_BIN" ] || [ -x "$BASE_BIN/edge" ] || {
	echo "bench-edge: BASE_BIN=$BASE_BIN has no edge; make the baseline with: go build -o DIR ./cmd/edge" >&2
	exit 2
}

# The CPU and the load before anything here runs: the set-up below (an
# import and a build on the first run) would raise the load itself.
. "$(dirname "$0")/bench-machine.sh"
bench_machine_before

BIN=${BIN:-bin}
BENCH_DIR=${BENCH_DIR:-.run/bench-edge}
BENCH_SECONDS=${BENCH_SECONDS:-8}
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
# Each server's BENCH_SECONDS of a round are cut into BENCH_SLICES runs,
# taken in turn with the other servers' (the round loop below).
BENCH_SLICES=${BENCH_SLICES:-8}
slice_secs=$((BENCH_SECONDS / BENCH_SLICES > 0 ? BENCH_SECONDS / BENCH_SLICES : 1))
BENCH_CONNS=${BENCH_CONNS:-64}
BENCH_WARMUP=${BENCH_WARMUP:-10}
BIBLES=${BIBLES:-../shared/bibles}
EDGE_PORT=${EDGE_PORT:-18181}
NGINX_PORT=${NGINX_PORT:-18182}
CEILING_PORT=${CEILING_PORT:-18183}
BASE_PORT=${BASE_PORT:-18184}
FLOOR_PORT=${FLOOR_PORT:-18185}

need() {
	command -v "$1" >/dev/null 2>&1 && return
	echo "installing $2 from Debian packages" >&2
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get install -y "$2" >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y "$2" >/dev/null; }
}
need wrk wrk
need nginx nginx
PATH=$PATH:/usr/sbin

mkdir -p "$BENCH_DIR"
dir=$(cd "$BENCH_DIR" && pwd)
key=$(sed -n 's/.*"app_key": *"\([^"]*\)".*/\1/p' fixtures/demo-keys.json)

# Content: eng-web imported and built once, kept between runs.
if [ ! -s "$dir/store/CURRENT" ]; then
	rm -rf "$dir/content" "$dir/store"
	# The fixtures' licence 1 and its organization: a build checks both.
	mkdir -p "$dir/content"
	cp -r fixtures/content/licenses fixtures/content/organizations "$dir/content/"
	"$BIN/publish" import --content "$dir/content" --id 206 --language en --abbreviation WEB \
		--title "World English Bible" --license 1 "$BIBLES/eng-web"
	"$BIN/publish" build --content "$dir/content" --store "$dir/store"
fi
build=$(cat "$dir/store/CURRENT")

go run ./tools/benchmix -store "$dir/store" -bible 206 -out "$dir" -key "$key" -access fixtures/access.json
if [ "$(cat "$dir/www.build" 2>/dev/null)" != "$build" ]; then
	rm -rf "$dir/www"
	"$BIN/edge" export --store "$dir/store" --out "$dir/www" --passages "$dir/ranges.txt" 2>/dev/null
	echo "$build" >"$dir/www.build"
fi
go build -o "$dir/ceiling" ./tools/ceiling

mkdir -p "$dir/nginx-tmp"
cat >"$dir/nginx.conf" <<NGINX
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 4096; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	tcp_nodelay on;
	keepalive_requests 10000000;
	open_file_cache max=400000 inactive=120s;
	open_file_cache_valid 120s;
	client_body_temp_path $dir/nginx-tmp;
	proxy_temp_path $dir/nginx-tmp;
	fastcgi_temp_path $dir/nginx-tmp;
	uwsgi_temp_path $dir/nginx-tmp;
	scgi_temp_path $dir/nginx-tmp;
	default_type application/json;
	server {
		listen 127.0.0.1:$NGINX_PORT;
		root $dir/www;
		gzip_static on;
		gzip_vary on;
		etag on;
	}
}
NGINX

# The server under test gets CPU 0, wrk the rest, when there is more than
# one CPU, so that the load generator does not steal from the server.
cpus=$(nproc)
srv_pin=() wrk_pin=()
if [ "$cpus" -gt 1 ] && command -v taskset >/dev/null; then
	srv_pin=(taskset -c 0) wrk_pin=(taskset -c "1-$((cpus - 1))")
fi
wrk_threads=$(( cpus > 2 ? cpus - 1 : 1 ))

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

wait_up() { # url [status]: until the URL answers (with status, when given)
	local code
	for _ in $(seq 100); do
		code=$(curl -s -o /dev/null -w '%{http_code}' "$1" || true)
		if [ "$code" != 000 ] && [ -z "${2:-}" -o "$code" = "${2:-}" ]; then return; fi
		sleep 0.1
	done
	echo "bench-edge: $1 did not come up" >&2
	exit 1
}

GOMAXPROCS=1 "${srv_pin[@]}" "$BIN/edge" serve --store "$dir/store" --access "$dir/access.json" \
	--access-cache "$dir/access-cache.json" --listen "127.0.0.1:$EDGE_PORT" --public-url "http://127.0.0.1:$EDGE_PORT" \
	--no-access-log 2>"$dir/edge.log" &
pids+=($!)
"${srv_pin[@]}" nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>"$dir/nginx.log" &
pids+=($!)
GOMAXPROCS=1 "${srv_pin[@]}" "$dir/ceiling" -listen "127.0.0.1:$CEILING_PORT" &
pids+=($!)
# The floor: the ceiling answering with the edge's header fields, driven by
# the edge's mix, so that what the edge spends beyond it is its own work.
GOMAXPROCS=1 "${srv_pin[@]}" "$dir/ceiling" -edge-answer -listen "127.0.0.1:$FLOOR_PORT" &
pids+=($!)
# ceiling_mix: the same ceiling driven by the edge's client (its mix, its
# request fields, wrk's Lua script): wrk takes as much CPU as the server
# here, so a ceiling driven by a plain wrk is faster partly because its
# client is cheaper. edge_vs_ceiling keeps the plain one (the issue's
# definition); edge_vs_ceiling_mix compares like with like.
servers=(edge nginx ceiling floor ceiling_mix)
if [ -n "$BASE_BIN" ]; then
	GOMAXPROCS=1 "${srv_pin[@]}" "$BASE_BIN/edge" serve --store "$dir/store" --access "$dir/access.json" \
		--access-cache "$dir/access-cache-base.json" --listen "127.0.0.1:$BASE_PORT" \
		--public-url "http://127.0.0.1:$BASE_PORT" --no-access-log 2>"$dir/base.log" &
	pids+=($!)
	servers+=(base)
	wait_up "http://127.0.0.1:$BASE_PORT/readyz" 200
fi
wait_up "http://127.0.0.1:$EDGE_PORT/readyz" 200
wait_up "http://127.0.0.1:$NGINX_PORT/"
wait_up "http://127.0.0.1:$CEILING_PORT/"
wait_up "http://127.0.0.1:$FLOOR_PORT/"

# Check that both answer the mix before timing it.
first=$(sed -n '2p' "$dir/edge.lua" | tr -d '",')
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-SVC-App-Key: $key" "http://127.0.0.1:$EDGE_PORT$first")
[ "$code" = 200 ] || { echo "bench-edge: edge answered $code for $first" >&2; exit 1; }
first=$(sed -n '2p' "$dir/nginx.lua" | tr -d '",')
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$NGINX_PORT$first")
[ "$code" = 200 ] || { echo "bench-edge: nginx answered $code for $first" >&2; exit 1; }

# Each round runs the servers in turn, in slices of a second, so that other
# load on the machine and its own changes of speed (they come and go) fall
# on all of them alike. Every round is printed; every figure of the report and of its
# summary line is the median of the rounds (req/s, p50, p99, CPU per request,
# and the ratios of the servers within each round), never the best round.
# client_busy: the busy share of the CPUs wrk runs on (all of them when it
# is not pinned), from /proc/stat: near 1, the client limits the loop as
# much as the server does.
client_cpus() { awk -v skip="${wrk_pin[*]:+0}" '/^cpu[0-9]/ && substr($1, 4) != skip {b += $2 + $3 + $4 + $7 + $8 + $9; i += $5 + $6} END {print b, i}' /proc/stat; }
run() { # name round slice url [script]: one slice; the client's busy and idle ticks to NAME.ROUND.client.SLICE
	local name=$1 round=$2 slice=$3 url=$4 script=${5:-} b0 i0 b1 i1
	local args=(-t "$wrk_threads" -c "$BENCH_CONNS" -d "${slice_secs}s" --latency)
	[ -n "$script" ] && args+=(-s "$script")
	read -r b0 i0 < <(client_cpus)
	"${wrk_pin[@]}" wrk "${args[@]}" "$url" >"$dir/$name.$round.$slice.txt"
	read -r b1 i1 < <(client_cpus)
	echo "$((b1 - b0)) $((i1 - i0))" >"$dir/$name.$round.client.$slice"
}
# Figures of one wrk report, $dir/SERVER.ROUND.txt (ROUND may be
# ROUND.SLICE), and the median of numbers on standard input.
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
rps() { awk '/^Requests\/sec:/ {print $2}' "$dir/$1.$2.txt"; } # server round
pct() {                                                             # server round percentile → ms
	awk -v p="$3" '$1 == p {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000} print v}' "$dir/$1.$2.txt"
}
# combine NAME ROUND: the round's slices of one server as one wrk report,
# NAME.ROUND.txt (its requests and req/s over all of them; the median of
# their p50s and of their p99s; any non-2xx answers), and the client's
# busy share over them, NAME.ROUND.client.
combine() {
	local f=$1.$2 p50 p99
	p50=$(for sl in $(seq "$BENCH_SLICES"); do pct "$1" "$2.$sl" 50%; done | median)
	p99=$(for sl in $(seq "$BENCH_SLICES"); do pct "$1" "$2.$sl" 99%; done | median)
	awk -v p50="$p50" -v p99="$p99" '
		/ requests in / { n += $1; t = $4; sub(/,$/, "", t); if (t ~ /m$/) { sub(/m$/, "", t); t *= 60 } else sub(/s$/, "", t); secs += t }
		/Non-2xx/ { bad += $NF }
		END {
			printf "  Latency Distribution\n     50%%   %.3fms\n     99%%   %.3fms\n  %d requests in %.2fs\nRequests/sec: %.2f\n", p50, p99, n, secs, n / secs
			if (bad) printf "  Non-2xx or 3xx responses: %d\n", bad
		}' "$dir/$f".[0-9]*.txt >"$dir/$f.txt"
	cat "$dir/$f".client.* | awk '{b += $1; i += $2} END {printf "%.2f\n", b / (b + i)}' >"$dir/$f.client"
	echo "round $2 $1: $(rps "$1" "$2") req/s, client CPU busy $(cat "$dir/$f.client")" >&2
}
# Warm caches (the edge's packs and composed ranges, nginx's open files and
# the page cache) before measuring. A fixed time is not enough on a busy
# machine: the edge decodes a pack on its first use, and a round that still
# does so measures the cold start, not the steady state. The edge is warmed
# until a whole BENCH_WARMUP interval adds no cache miss (at most 8).
misses() { # port
	curl -s "http://127.0.0.1:$1/metrics" |
		awk '/^edge_cache_requests_total\{.*result="miss"/ {n += $2} END {print n + 0}'
}
warm() { # name port
	local before=-1 now
	for _ in $(seq 8); do
		"${wrk_pin[@]}" wrk -t "$wrk_threads" -c "$BENCH_CONNS" -d "${BENCH_WARMUP}s" -s "$dir/edge.lua" \
			"http://127.0.0.1:$2" >/dev/null
		now=$(misses "$2")
		[ "$now" = "$before" ] && break
		before=$now
	done
	echo "$1 warm: $before cache misses in all, none in the last ${BENCH_WARMUP}s" >&2
}
warm edge "$EDGE_PORT"
[ -z "$BASE_BIN" ] || warm base "$BASE_PORT"
"${wrk_pin[@]}" wrk -t "$wrk_threads" -c "$BENCH_CONNS" -d "${BENCH_WARMUP}s" -s "$dir/nginx.lua" \
	"http://127.0.0.1:$NGINX_PORT" >/dev/null

# CPU time per request, from the server's own user and system time (the
# nginx worker's, for nginx). On a shared machine req/s moves with other
# load; CPU per request moves much less, and its system part is the
# kernel's floor for one read and one write on a socket.
cputicks() { awk '{print $14 + $15, $14, $15}' "/proc/$1/stat"; }
# Read and write system calls, to see the kernel part's make-up: a server
# that reads right after answering finds nothing yet most of the time.
syscalls() { awk '/^syscr:/ {r = $2} /^syscw:/ {w = $2} END {print r + 0, w + 0}' "/proc/$1/io" 2>/dev/null || echo "0 0"; }
nginx_worker=$(pgrep -P "${pids[1]}" | head -1)
declare -A srv_pid=([edge]=${pids[0]} [nginx]=$nginx_worker [ceiling]=${pids[2]} [floor]=${pids[3]} [ceiling_mix]=${pids[2]})
declare -A srv_url=([edge]="http://127.0.0.1:$EDGE_PORT $dir/edge.lua" [nginx]="http://127.0.0.1:$NGINX_PORT $dir/nginx.lua"
	[ceiling]="http://127.0.0.1:$CEILING_PORT/" [floor]="http://127.0.0.1:$FLOOR_PORT $dir/edge.lua"
	[ceiling_mix]="http://127.0.0.1:$CEILING_PORT $dir/edge.lua"
	[base]="http://127.0.0.1:$BASE_PORT $dir/edge.lua")
[ -z "$BASE_BIN" ] || srv_pid[base]=${pids[4]}
hz=$(getconf CLK_TCK)
rm -f "$dir"/ratios.*.txt "$dir"/*.cpu "$dir"/*.client* "$dir"/base.*.txt "$dir"/*.[0-9]*.[0-9]*.txt
for r in $(seq "$BENCH_ROUNDS"); do
	# Each round runs every server for BENCH_SECONDS in BENCH_SLICES slices,
	# the servers in turn slice by slice, so that a change of the machine's
	# speed within the round falls on all of them alike: this kind of
	# virtual machine ran a fixed loop at two speeds 1.6 times apart, each
	# for seconds at a time (docs/edge.md, "Two mixes measured in turn").
	# Each round starts one server later, so that a drift does not fall on
	# the same server's slices every time.
	k=$(((r - 1) % ${#servers[@]}))
	# Each server's user and system ticks and read and write calls over
	# its slices (ceiling and ceiling_mix are one process: counted by slice).
	declare -A user=() sys=() rds=() wrs=()
	for sl in $(seq "$BENCH_SLICES"); do
		for name in "${servers[@]:k}" "${servers[@]:0:k}"; do
			set -- $name ${srv_url[$name]}
			read -r _ u0 s0 < <(cputicks "${srv_pid[$1]}")
			read -r rd0 wr0 < <(syscalls "${srv_pid[$1]}")
			run "$1" "$r" "$sl" "$2" "${3:-}"
			read -r _ u1 s1 < <(cputicks "${srv_pid[$1]}")
			read -r rd1 wr1 < <(syscalls "${srv_pid[$1]}")
			user[$1]=$((${user[$1]:-0} + u1 - u0)) sys[$1]=$((${sys[$1]:-0} + s1 - s0))
			rds[$1]=$((${rds[$1]:-0} + rd1 - rd0)) wrs[$1]=$((${wrs[$1]:-0} + wr1 - wr0))
		done
	done
	for name in "${servers[@]}"; do
		combine "$name" "$r"
		awk -v u="${user[$name]}" -v s="${sys[$name]}" -v rd="${rds[$name]}" -v wr="${wrs[$name]}" -v hz="$hz" \
			-v n="$(awk '/ requests in / {print $1}' "$dir/$name.$r.txt")" \
			'BEGIN {printf "%.2f %.2f %.2f %.2f\n", u * 1e6 / hz / n, s * 1e6 / hz / n, rd / n, wr / n}' >"$dir/$name.$r.cpu"
	done
	awk -v r="$r" -v e="$(awk '/^Requests\/sec:/ {print $2}' "$dir/edge.$r.txt")" \
		-v n="$(awk '/^Requests\/sec:/ {print $2}' "$dir/nginx.$r.txt")" \
		-v c="$(awk '/^Requests\/sec:/ {print $2}' "$dir/ceiling.$r.txt")" \
		-v f="$(awk '/^Requests\/sec:/ {print $2}' "$dir/floor.$r.txt")" \
		-v m="$(awk '/^Requests\/sec:/ {print $2}' "$dir/ceiling_mix.$r.txt")" \
		'BEGIN {printf "round %d ratios: edge_vs_nginx=%.3f edge_vs_ceiling=%.3f nginx_vs_ceiling=%.3f edge_vs_floor=%.3f floor_vs_ceiling=%.3f edge_vs_ceiling_mix=%.3f floor_vs_ceiling_mix=%.3f ceiling_mix_vs_ceiling=%.3f\n", r, e/n, e/c, n/c, e/f, f/c, e/m, f/m, m/c}' |
		tee "$dir/ratios.$r.txt" >&2
	if [ -n "$BASE_BIN" ]; then
		awk -v r="$r" -v e="$(awk '/^Requests\/sec:/ {print $2}' "$dir/edge.$r.txt")" \
			-v b="$(awk '/^Requests\/sec:/ {print $2}' "$dir/base.$r.txt")" \
			'BEGIN {printf "round %d ratios: edge_vs_base=%.3f\n", r, e/b}' | tee -a "$dir/ratios.$r.txt" >&2
	fi
done
declare -A med
for f in "${servers[@]}"; do
	for r in $(seq "$BENCH_ROUNDS"); do
		if grep -q "Non-2xx" "$dir/$f.$r.txt"; then
			echo "bench-edge: $f round $r: $(grep Non-2xx "$dir/$f.$r.txt")" >&2
		fi
	done
	med[$f.rps]=$(for r in $(seq "$BENCH_ROUNDS"); do rps "$f" "$r"; done | median)
	med[$f.p50]=$(for r in $(seq "$BENCH_ROUNDS"); do pct "$f" "$r" 50%; done | median)
	med[$f.p99]=$(for r in $(seq "$BENCH_ROUNDS"); do pct "$f" "$r" 99%; done | median)
	med[$f.user]=$(cut -d' ' -f1 "$dir"/$f.*.cpu | median)
	med[$f.sys]=$(cut -d' ' -f2 "$dir"/$f.*.cpu | median)
	med[$f.reads]=$(cut -d' ' -f3 "$dir"/$f.*.cpu | median)
	med[$f.writes]=$(cut -d' ' -f4 "$dir"/$f.*.cpu | median)
	med[$f.client]=$(cat "$dir"/$f.*.client | median)
	printf '%-11s %10s req/s   p50 %6s ms   p99 %6s ms   CPU per request: user %s us, system %s us   calls per request: %s read, %s write   client CPU busy %s\n' \
		"$f" "${med[$f.rps]}" "${med[$f.p50]}" "${med[$f.p99]}" "${med[$f.user]}" "${med[$f.sys]}" "${med[$f.reads]}" "${med[$f.writes]}" "${med[$f.client]}"
done
# Ratios within one round compare servers measured a few seconds apart;
# their median over the rounds is the figure least moved by other load.
# Three decimals: a target is a ratio of two, and 0.798 printed as 0.80
# read as 0.8 met.
for k in edge_vs_nginx edge_vs_ceiling nginx_vs_ceiling edge_vs_floor floor_vs_ceiling edge_vs_ceiling_mix floor_vs_ceiling_mix ceiling_mix_vs_ceiling; do
	med[$k]=$(sed -n "s/.*$k=\([0-9.]*\).*/\1/p" "$dir"/ratios.*.txt | median)
done
echo "(medians of $BENCH_ROUNDS rounds of ${BENCH_SECONDS}s, $BENCH_CONNS connections)"
# The summary line: medians of rounds, every figure.
printf 'edge_rps=%.0f nginx_rps=%.0f ceiling_rps=%.0f edge_vs_nginx=%s edge_vs_ceiling=%s nginx_vs_ceiling=%s edge_p99_ms=%s edge_user_us=%s edge_sys_us=%s\n' \
	"${med[edge.rps]}" "${med[nginx.rps]}" "${med[ceiling.rps]}" "${med[edge_vs_nginx]}" "${med[edge_vs_ceiling]}" \
	"${med[nginx_vs_ceiling]}" "${med[edge.p99]}" "${med[edge.user]}" "${med[edge.sys]}"
# The floor's line: how far the edge's answer shape alone, through
# fasthttp, is from the ceiling, and the edge from that floor.
printf 'floor_rps=%.0f floor_vs_ceiling=%s edge_vs_floor=%s floor_user_us=%s floor_sys_us=%s\n' \
	"${med[floor.rps]}" "${med[floor_vs_ceiling]}" "${med[edge_vs_floor]}" "${med[floor.user]}" "${med[floor.sys]}"
# The like-for-like line: the ceiling driven by the edge's client, and how
# busy that client's CPUs were (medians of rounds).
printf 'ceiling_mix_rps=%.0f edge_vs_ceiling_mix=%s floor_vs_ceiling_mix=%s ceiling_mix_vs_ceiling=%s edge_client_busy=%s ceiling_client_busy=%s ceiling_mix_client_busy=%s\n' \
	"${med[ceiling_mix.rps]}" "${med[edge_vs_ceiling_mix]}" "${med[floor_vs_ceiling_mix]}" "${med[ceiling_mix_vs_ceiling]}" \
	"${med[edge.client]}" "${med[ceiling.client]}" "${med[ceiling_mix.client]}"
if [ -n "$BASE_BIN" ]; then
	printf 'edge_vs_base=%s (median of rounds; base: %s)\n' \
		"$(sed -n 's/.*edge_vs_base=\([0-9.]*\).*/\1/p' "$dir"/ratios.*.txt | median)" "$BASE_BIN"
fi
bench_machine_after
