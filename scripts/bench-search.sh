#!/usr/bin/env bash
# bench-search: the edge's verse search against PostgreSQL full-text search
# (to_tsvector / websearch_to_tsquery with a GIN index, ranked by ts_rank)
# on the same verses, with the same Zipf mix of queries and the same number
# of connections. Called by `make bench-search`; docs/search.md says what it
# shows.
#
# Environment: BIN (built binaries), BENCH_DIR (work dir, reused between
# runs), BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNS (64), P99_CONNS (8),
# BIBLES (shared Bible sources).
# BASE_BIN, when set, is a directory holding another build's edge and
# publish (a baseline, e.g. an earlier commit's `go build -o DIR ./cmd/edge
# ./cmd/publish`): it builds its own store with its own publish, serves it
# with its own edge beside this one, and the summary line gains
# search_vs_base, the change measured in the same run; a second base edge
# without answer cache gives search_nocache_vs_base, the same for
# computed queries.
set -euo pipefail

BIN=${BIN:-bin}
BENCH_DIR=${BENCH_DIR:-.run/bench-search}
BENCH_SECONDS=${BENCH_SECONDS:-8}
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
BENCH_CONNS=${BENCH_CONNS:-64}
P99_CONNS=${P99_CONNS:-8}
BIBLES=${BIBLES:-../shared/bibles}
BENCH_WARMUP=${BENCH_WARMUP:-8}
EDGE_PORT=${EDGE_PORT:-18191}
COLD_PORT=${COLD_PORT:-18192}
BASE_PORT=${BASE_PORT:-18193}
BASE_COLD_PORT=${BASE_COLD_PORT:-18194}
BASE_BIN=${BASE_BIN:-}
for b in edge publish; do
	[ -z "$BASE_BIN" ] || [ -x "$BASE_BIN/$b" ] || {
		echo "bench-search: BASE_BIN=$BASE_BIN has no $b; make the baseline with: go build -o DIR ./cmd/edge ./cmd/publish" >&2
		exit 2
	}
done

if ! command -v wrk >/dev/null; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get install -y wrk >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y wrk >/dev/null; }
fi
pgbin=/usr/lib/postgresql/15/bin
PATH=$PATH:$pgbin

mkdir -p "$BENCH_DIR"
dir=$(cd "$BENCH_DIR" && pwd)
key=$(sed -n 's/.*"app_key": *"\([^"]*\)".*/\1/p' fixtures/demo-keys.json)

# Content: eng-web imported and built once, kept between runs. The build's
# report says how long the search index took (build_extra_s).
if [ ! -s "$dir/store/CURRENT" ] || [ ! -s "$dir/build.out" ]; then
	rm -rf "$dir/content" "$dir/store"
	# The fixtures' licence 1 and its organization: a build checks both.
	mkdir -p "$dir/content"
	cp -r fixtures/content/licenses fixtures/content/organizations "$dir/content/"
	"$BIN/publish" import --content "$dir/content" --id 206 --language en --abbreviation WEB \
		--title "World English Bible" --license 1 "$BIBLES/eng-web" >/dev/null
	"$BIN/publish" build --content "$dir/content" --store "$dir/store" | tee "$dir/build.out" >&2
fi
# The baseline's own store, built by its own publish: an older edge reads
# the index format of its own build.
if [ -n "$BASE_BIN" ]; then
	rm -rf "$dir/base-content" "$dir/base-store"
	mkdir -p "$dir/base-content"
	cp -r fixtures/content/licenses fixtures/content/organizations "$dir/base-content/"
	"$BASE_BIN/publish" import --content "$dir/base-content" --id 206 --language en --abbreviation WEB \
		--title "World English Bible" --license 1 "$BIBLES/eng-web" >/dev/null
	"$BASE_BIN/publish" build --content "$dir/base-content" --store "$dir/base-store" >/dev/null
fi
build_extra_s=$(sed -nE 's/^search indexes: [0-9]+ built in (.*)$/\1/p' "$dir/build.out" |
	awk '{v=$1; if (v ~ /ms$/) {sub(/ms$/,"",v); v/=1000} else if (v ~ /m/) {split(v,a,"m"); sub(/s$/,"",a[2]); v=a[1]*60+a[2]} else {sub(/s$/,"",v)} printf "%.2f", v}')

go run ./tools/benchmix -mix search -store "$dir/store" -bible 206 -out "$dir" -key "$key" -access fixtures/access.json
index_mb=$(awk '{printf "%.2f", $1 / 1e6}' "$dir/index.bytes")
text_mb=$(awk -F'\t' '{n += length($2)} END {printf "%.2f", n / 1e6}' "$dir/verses.tsv")

# PostgreSQL: the project's own (scripts/db.sh), a database of its own.
url=$(scripts/db.sh)
dburl=${url/\/platform\?/\/bench_search\?}
psql -X -q "$url" -c "DROP DATABASE IF EXISTS bench_search" -c "CREATE DATABASE bench_search"
psql -X -q -v ON_ERROR_STOP=1 "$dburl" >/dev/null <<SQL
CREATE TABLE verses (id serial PRIMARY KEY, ref text NOT NULL, body text NOT NULL,
	tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED);
\copy verses (ref, body) FROM '$dir/verses.tsv'
CREATE INDEX verses_tsv ON verses USING gin (tsv);
CREATE TABLE queries (id serial PRIMARY KEY, q text NOT NULL);
\copy queries (q) FROM '$dir/queries.txt' WITH (FORMAT csv, QUOTE E'\x01')
ANALYZE verses;
ANALYZE queries;
SQL
nq=$(psql -X -qtA "$dburl" -c "SELECT count(*) FROM queries")
# The first page of 25 verses, best ranked first, as the edge answers it.
cat >"$dir/pg.sql" <<SQL
\set i random(1, $nq)
SELECT v.ref FROM verses v, (SELECT websearch_to_tsquery('english', q) AS tq FROM queries WHERE id = :i) s
 WHERE v.tsv @@ s.tq ORDER BY ts_rank(v.tsv, s.tq) DESC, v.id LIMIT 25;
SQL

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
# no_answers is the flag that keeps an edge of BIN from holding search
# answers: --search-answer-cache 1, or for a base built before that flag
# --compose-cache 1 (which bounded both the composed and the search
# answers then).
no_answers() {
	if "$1/edge" serve --help | grep -q -- --search-answer-cache; then
		echo --search-answer-cache 1
	else
		echo --compose-cache 1
	fi
}
# The edge as deployed, and a second one whose answer cache keeps nothing
# (every query computed: what the long tail of rare queries costs).
"$BIN/edge" serve --store "$dir/store" --access "$dir/access.json" --access-cache "$dir/access-cache.json" \
	--listen "127.0.0.1:$EDGE_PORT" --public-url "http://127.0.0.1:$EDGE_PORT" --no-access-log 2>"$dir/edge.log" &
pids+=($!)
"$BIN/edge" serve --store "$dir/store" --access "$dir/access.json" --access-cache "$dir/access-cache-cold.json" \
	--listen "127.0.0.1:$COLD_PORT" --public-url "http://127.0.0.1:$COLD_PORT" --no-access-log $(no_answers "$BIN") 2>"$dir/edge-cold.log" &
pids+=($!)
ports=("$EDGE_PORT" "$COLD_PORT")
if [ -n "$BASE_BIN" ]; then
	"$BASE_BIN/edge" serve --store "$dir/base-store" --access "$dir/access.json" --access-cache "$dir/access-cache-base.json" \
		--listen "127.0.0.1:$BASE_PORT" --public-url "http://127.0.0.1:$BASE_PORT" --no-access-log 2>"$dir/edge-base.log" &
	pids+=($!)
	"$BASE_BIN/edge" serve --store "$dir/base-store" --access "$dir/access.json" --access-cache "$dir/access-cache-base-cold.json" \
		--listen "127.0.0.1:$BASE_COLD_PORT" --public-url "http://127.0.0.1:$BASE_COLD_PORT" --no-access-log $(no_answers "$BASE_BIN") 2>"$dir/edge-base-cold.log" &
	pids+=($!)
	ports+=("$BASE_PORT" "$BASE_COLD_PORT")
fi
for port in "${ports[@]}"; do
	for _ in $(seq 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && break
		sleep 0.1
	done
	code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-SVC-App-Key: $key" "http://127.0.0.1:$port/v1/search-verses?bible_id=206&query=love")
	[ "$code" = 200 ] || { echo "bench-search: edge on $port answered $code" >&2; exit 1; }
done

threads=$(( $(nproc) > 2 ? $(nproc) - 1 : 1 ))
edge_run() { # conns out [port]
	wrk -t "$threads" -c "$1" -d "${BENCH_SECONDS}s" --latency -s "$dir/edge.lua" "http://127.0.0.1:${3:-$EDGE_PORT}" >"$2"
}
pg_run() { # conns out
	rm -f "$dir"/pglog.*
	(cd "$dir" && pgbench -n -c "$1" -j "$threads" -T "$BENCH_SECONDS" -f pg.sql -l --log-prefix=pglog "$dburl" >"$2" 2>&1)
	cat "$dir"/pglog.* | awk '{print $3 / 1000}' | sort -n >"$2.lat"
}
rps_wrk() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
pct_wrk() { # file percentile → milliseconds
	awk -v p="$2" '$1 == p {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000} print v}' "$1"
}
rps_pg() { sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$1" | head -1; }
pct_pg() { awk -v p="$2" '{v[NR] = $1} END {i = int(NR * p / 100); if (i < 1) i = 1; print v[i]}' "$1.lat"; }

# CPU time per request, from each server's own user and system time (for
# PostgreSQL, the postmaster's with its exited backends'). On a shared
# machine req/s moves with other load, and the scheduler gives PostgreSQL's
# 64 backends more of the CPU than one Go process; CPU per request moves
# much less and compares the work each does for a query.
hz=$(getconf CLK_TCK)
postmaster=$(head -1 .cache/pg/data/postmaster.pid) # scripts/db.sh's cluster
cputicks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }
cpu_per_req() { # pid ticks-before requests → microseconds
	awk -v t0="$2" -v t1="$(cputicks "$1")" -v n="$3" -v hz="$hz" 'BEGIN {printf "%.0f\n", (t1 - t0) * 1e6 / hz / n}'
}
reqs_wrk() { awk '/ requests in / {print $1}' "$1"; }
reqs_pg() { sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$1"; }

# Warm both: PostgreSQL's buffers; the edge's index and answer cache,
# until a whole BENCH_WARMUP interval adds no miss (at most 8), as
# bench-edge does: the mix cycles through its queries, so the edge then
# answers every repeated query from memory, as it would a popular one.
misses() { # [port]
	curl -s "http://127.0.0.1:${1:-$EDGE_PORT}/metrics" | awk '/^edge_cache_requests_total\{cache="search",result="miss"/ {print $2}'
}
pg_run "$BENCH_CONNS" "$dir/warm.pg.txt"
edge_run "$BENCH_CONNS" "$dir/warm.cold.txt" "$COLD_PORT"
before=-1
for _ in $(seq 8); do
	wrk -t "$threads" -c "$BENCH_CONNS" -d "${BENCH_WARMUP}s" -s "$dir/edge.lua" "http://127.0.0.1:$EDGE_PORT" >/dev/null
	now=$(misses)
	[ "$now" = "$before" ] && break
	before=$now
done
echo "edge warm: $before answer cache misses in all, none in the last ${BENCH_WARMUP}s" >&2
if [ -n "$BASE_BIN" ]; then
	before=-1
	for _ in $(seq 8); do
		wrk -t "$threads" -c "$BENCH_CONNS" -d "${BENCH_WARMUP}s" -s "$dir/edge.lua" "http://127.0.0.1:$BASE_PORT" >/dev/null
		now=$(misses "$BASE_PORT")
		[ "$now" = "$before" ] && break
		before=$now
	done
	echo "base warm: $before answer cache misses in all" >&2
	edge_run "$BENCH_CONNS" "$dir/warm.basecold.txt" "$BASE_COLD_PORT"
fi

rm -f "$dir"/round.* "$dir/rounds.txt"
for r in $(seq "$BENCH_ROUNDS"); do
	t=$(cputicks "${pids[0]}")
	edge_run "$BENCH_CONNS" "$dir/round.$r.edge.txt"
	cpu_per_req "${pids[0]}" "$t" "$(reqs_wrk "$dir/round.$r.edge.txt")" >"$dir/round.$r.edge.cpu"
	t=$(cputicks "$postmaster")
	pg_run "$BENCH_CONNS" "$dir/round.$r.pg.txt"
	cpu_per_req "$postmaster" "$t" "$(reqs_pg "$dir/round.$r.pg.txt")" >"$dir/round.$r.pg.cpu"
	edge_run "$P99_CONNS" "$dir/round.$r.edge8.txt"
	t=$(cputicks "${pids[1]}")
	edge_run "$BENCH_CONNS" "$dir/round.$r.cold.txt" "$COLD_PORT"
	cpu_per_req "${pids[1]}" "$t" "$(reqs_wrk "$dir/round.$r.cold.txt")" >"$dir/round.$r.cold.cpu"
	edge_run "$P99_CONNS" "$dir/round.$r.cold8.txt" "$COLD_PORT"
	if [ -n "$BASE_BIN" ]; then
		t=$(cputicks "${pids[2]}")
		edge_run "$BENCH_CONNS" "$dir/round.$r.base.txt" "$BASE_PORT"
		cpu_per_req "${pids[2]}" "$t" "$(reqs_wrk "$dir/round.$r.base.txt")" >"$dir/round.$r.base.cpu"
		t=$(cputicks "${pids[3]}")
		edge_run "$BENCH_CONNS" "$dir/round.$r.basecold.txt" "$BASE_COLD_PORT"
		cpu_per_req "${pids[3]}" "$t" "$(reqs_wrk "$dir/round.$r.basecold.txt")" >"$dir/round.$r.basecold.cpu"
		printf 'round %d: base %s req/s (p99 %s ms), base without answer cache %s req/s (p99 %s ms)\n' "$r" \
			"$(rps_wrk "$dir/round.$r.base.txt")" "$(pct_wrk "$dir/round.$r.base.txt" 99%)" \
			"$(rps_wrk "$dir/round.$r.basecold.txt")" "$(pct_wrk "$dir/round.$r.basecold.txt" 99%)" >&2
	fi
	e=$(rps_wrk "$dir/round.$r.edge.txt") p=$(rps_pg "$dir/round.$r.pg.txt")
	printf 'round %d: edge %s req/s (p50 %s ms, p99 %s ms) | postgres %s req/s (p50 %s ms, p99 %s ms) | ratio %.2f | edge at %d connections p99 %s ms | edge without answer cache %s req/s (p99 %s ms)\n' \
		"$r" "$e" "$(pct_wrk "$dir/round.$r.edge.txt" 50%)" "$(pct_wrk "$dir/round.$r.edge.txt" 99%)" \
		"$p" "$(pct_pg "$dir/round.$r.pg.txt" 50)" "$(pct_pg "$dir/round.$r.pg.txt" 99)" \
		"$(awk -v e="$e" -v p="$p" 'BEGIN {print e / p}')" "$P99_CONNS" "$(pct_wrk "$dir/round.$r.edge8.txt" 99%)" \
		"$(rps_wrk "$dir/round.$r.cold.txt")" "$(pct_wrk "$dir/round.$r.cold.txt" 99%)" |
		tee -a "$dir/rounds.txt" >&2
	# A computation refused past the edge's bound is a quick 503 that wrk
	# counts in its rate: say so, for either edge.
	for kind in edge cold cold8; do
		if grep -q "Non-2xx" "$dir/round.$r.$kind.txt"; then
			echo "bench-search: $kind: $(grep Non-2xx "$dir/round.$r.$kind.txt")" >&2
		fi
	done
done
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
med() { # kind fn [arg]
	for r in $(seq "$BENCH_ROUNDS"); do "$2" "$dir/round.$r.$1.txt" ${3:-}; done | median
}
search_rps=$(med edge rps_wrk)
pg_rps=$(med pg rps_pg)
ratio=$(for r in $(seq "$BENCH_ROUNDS"); do
	awk -v e="$(rps_wrk "$dir/round.$r.edge.txt")" -v p="$(rps_pg "$dir/round.$r.pg.txt")" 'BEGIN {print e / p}'
done | median)
hits=$(curl -s "http://127.0.0.1:$EDGE_PORT/metrics" | awk '/^edge_cache_hit_ratio\{cache="search"\}/ {print $2}')
printf 'edge     %10s req/s  p50 %s ms  p99 %s ms at %d connections; p99 %s ms at %d (medians of %d rounds of %ss)\n' \
	"$search_rps" "$(med edge pct_wrk 50%)" "$(med edge pct_wrk 99%)" "$BENCH_CONNS" "$(med edge8 pct_wrk 99%)" "$P99_CONNS" "$BENCH_ROUNDS" "$BENCH_SECONDS" >&2
printf 'edge without answer cache %s req/s  p50 %s ms  p99 %s ms at %d connections (every query computed; ratio to postgres %.2f)\n' \
	"$(med cold rps_wrk)" "$(med cold pct_wrk 50%)" "$(med cold pct_wrk 99%)" "$BENCH_CONNS" \
	"$(for r in $(seq "$BENCH_ROUNDS"); do awk -v e="$(rps_wrk "$dir/round.$r.cold.txt")" -v p="$(rps_pg "$dir/round.$r.pg.txt")" 'BEGIN {print e / p}'; done | median)" >&2
printf 'edge without answer cache p99 %s ms at %d connections\n' "$(med cold8 pct_wrk 99%)" "$P99_CONNS" >&2
printf 'postgres %10s req/s  p50 %s ms  p99 %s ms at %d connections\n' "$pg_rps" "$(med pg pct_pg 50)" "$(med pg pct_pg 99)" "$BENCH_CONNS" >&2
printf 'CPU per request (median of rounds): edge %s us, edge without answer cache %s us, postgres %s us\n' \
	"$(cat "$dir"/round.*.edge.cpu | median)" "$(cat "$dir"/round.*.cold.cpu | median)" "$(cat "$dir"/round.*.pg.cpu | median)" >&2
printf 'index %s MB for %s MB of plain text (%.2f x); the edge answer cache hit ratio over the run %s\n' \
	"$index_mb" "$text_mb" "$(awk -v a="$index_mb" -v b="$text_mb" 'BEGIN {print a / b}')" "$hits" >&2
nocache_ratio=$(for r in $(seq "$BENCH_ROUNDS"); do
	awk -v e="$(rps_wrk "$dir/round.$r.cold.txt")" -v p="$(rps_pg "$dir/round.$r.pg.txt")" 'BEGIN {print e / p}'
done | median)
printf 'search_rps=%.0f pg_fts_rps=%.0f search_vs_pg=%.2f search_p99_ms=%s search_nocache_vs_pg=%.2f search_nocache_p99_ms=%s index_mb=%s build_extra_s=%s\n' \
	"$search_rps" "$pg_rps" "$ratio" "$(med edge8 pct_wrk 99%)" "$nocache_ratio" "$(med cold8 pct_wrk 99%)" "$index_mb" "$build_extra_s"
if [ -n "$BASE_BIN" ]; then
	printf 'search_vs_base=%.2f search_cpu_us=%s base_cpu_us=%s (medians of rounds; base: %s)\n' \
		"$(for r in $(seq "$BENCH_ROUNDS"); do awk -v e="$(rps_wrk "$dir/round.$r.edge.txt")" -v b="$(rps_wrk "$dir/round.$r.base.txt")" 'BEGIN {print e / b}'; done | median)" \
		"$(cat "$dir"/round.*.edge.cpu | median)" "$(cat "$dir"/round.*.base.cpu | median)" "$BASE_BIN"
	printf 'search_nocache_vs_base=%.2f search_nocache_cpu_us=%s base_nocache_cpu_us=%s (medians of rounds)\n' \
		"$(for r in $(seq "$BENCH_ROUNDS"); do awk -v e="$(rps_wrk "$dir/round.$r.cold.txt")" -v b="$(rps_wrk "$dir/round.$r.basecold.txt")" 'BEGIN {print e / b}'; done | median)" \
		"$(cat "$dir"/round.*.cold.cpu | median)" "$(cat "$dir"/round.*.basecold.cpu | median)"
fi
