#!/usr/bin/env bash
# A real MinIO for tests and local runs: no fake S3.
#
#   scripts/minio.sh install        build the pinned server once (cached), print its path
#   scripts/minio.sh start DIR      start it on 127.0.0.1 on a free port with data in DIR/data,
#                                   wait until it is ready, print KEY=VALUE lines:
#                                   S3_TEST_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
#   scripts/minio.sh stop DIR       stop the server started in DIR and wait for it to exit
#   scripts/minio.sh env DIR        print the KEY=VALUE lines of a running server again
#
# The server is built from source with `go install` at a pinned version, so
# CI needs only the Go module proxy. The binary is cached in .cache/minio/
# (gitignored) under the version, so a bump rebuilds and an unchanged pin
# never does. MINIO_CACHE overrides the cache directory.
#
# If MINIO_OWNER_PID is set, a watchdog stops the server when that process
# exits, so a test binary that is killed does not leave a server behind; with
# MINIO_OWNER_CLEANUP=1 it also removes DIR then.
set -euo pipefail

# The module proxy serves MinIO only as pseudo-versions (its release tags are
# not semver). This is the newest it served when pinned; it builds with Go
# 1.26. Bump deliberately: the first build takes minutes.
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c

# Root credentials of throwaway test servers only; never a real deployment.
MINIO_USER=platform-test
MINIO_PASSWORD=platform-test-secret

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${MINIO_CACHE:-$root/.cache/minio}
bin=$cache/$MINIO_VERSION/minio

log() { echo "minio.sh: $*" >&2; }

install() {
	if [[ -x $bin ]]; then
		echo "$bin"
		return
	fi
	mkdir -p "$cache/$MINIO_VERSION"
	# Several test packages may ask at once (go test runs packages in
	# parallel); one builds, the others wait for it.
	exec 9>"$cache/$MINIO_VERSION.lock"
	if command -v flock >/dev/null; then flock 9; fi
	if [[ ! -x $bin ]]; then
		log "building minio $MINIO_VERSION (first time only; takes a few minutes)"
		local t0=$SECONDS
		# GOFLAGS from the caller (e.g. -mod=vendor) must not leak into a
		# build outside this module.
		GOBIN=$cache/$MINIO_VERSION GOFLAGS= go install "github.com/minio/minio@$MINIO_VERSION" >&2
		log "built in $((SECONDS - t0))s: $bin"
	fi
	exec 9>&-
	echo "$bin"
}

# ready PORT: 0 when MinIO answers 200 on its readiness probe. Uses bash's
# /dev/tcp so that CI needs neither curl nor wget.
ready() {
	local status
	status=$({
		exec 8<>"/dev/tcp/127.0.0.1/$1" &&
			printf 'GET /minio/health/ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&8 &&
			read -r -t 2 _ code _ <&8 &&
			echo "$code"
	} 2>/dev/null) || return 1
	[[ $status == 200 ]]
}

listening() { (exec 8<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

envlines() {
	echo "S3_TEST_ENDPOINT=127.0.0.1:$1"
	echo "AWS_ACCESS_KEY_ID=$MINIO_USER"
	echo "AWS_SECRET_ACCESS_KEY=$MINIO_PASSWORD"
}

start() {
	local dir=$1 server port pid attempt i
	server=$(install)
	mkdir -p "$dir/data"
	dir=$(cd "$dir" && pwd)
	if [[ -f $dir/pid ]] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
		log "already running in $dir (pid $(cat "$dir/pid"))"
		envlines "$(cat "$dir/port")"
		return
	fi
	for attempt in 1 2 3 4 5; do
		# A restart reuses the port of the previous run in DIR, so that
		# clients configured with the endpoint reconnect. Otherwise a
		# random high port that nothing listens on now; if another process
		# takes it before MinIO binds, MinIO exits and we try another.
		if [[ $attempt == 1 && -f $dir/port ]]; then
			port=$(cat "$dir/port")
		else
			port=$((20000 + RANDOM % 40000))
			listening "$port" && continue
		fi
		# The console port would otherwise be random and could collide
		# with anything; put it right next to the API.
		MINIO_ROOT_USER=$MINIO_USER MINIO_ROOT_PASSWORD=$MINIO_PASSWORD \
			MINIO_BROWSER=off MINIO_UPDATE=off MINIO_CI_CD=1 \
			"$server" server --quiet --address "127.0.0.1:$port" \
			--console-address "127.0.0.1:$((port + 1))" "$dir/data" \
			>"$dir/log" 2>&1 </dev/null &
		pid=$!
		for ((i = 0; i < 300; i++)); do # up to 30 s
			if ! kill -0 "$pid" 2>/dev/null; then
				break
			fi
			if ready "$port"; then
				echo "$pid" >"$dir/pid"
				echo "$port" >"$dir/port"
				if [[ -n ${MINIO_OWNER_PID:-} ]]; then
					watchdog "$MINIO_OWNER_PID" "$pid" "$dir" >/dev/null 2>&1 </dev/null &
				fi
				log "ready on 127.0.0.1:$port (pid $pid, data $dir/data)"
				envlines "$port"
				return
			fi
			sleep 0.1
		done
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		log "attempt $attempt on port $port failed:"
		tail -n 5 "$dir/log" >&2 || true
	done
	log "could not start minio (log: $dir/log)"
	return 1
}

watchdog() {
	local owner=$1 pid=$2 dir=$3 i
	while kill -0 "$owner" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do
		sleep 1
	done
	kill -0 "$owner" 2>/dev/null && return # stopped on purpose; maybe restarted
	kill "$pid" 2>/dev/null || true
	if [[ ${MINIO_OWNER_CLEANUP:-} == 1 ]]; then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		rm -rf "$dir"
	fi
}

stop() {
	local dir=$1 pid i
	[[ -f $dir/pid ]] || return 0
	pid=$(cat "$dir/pid")
	kill "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do # up to 10 s, then force
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$dir/pid"
}

case ${1:-} in
install) install ;;
start) start "${2:?usage: minio.sh start DIR}" ;;
stop) stop "${2:?usage: minio.sh stop DIR}" ;;
env)
	dir=${2:?usage: minio.sh env DIR}
	envlines "$(cat "$dir/port")"
	;;
*)
	echo "usage: $0 install | start DIR | stop DIR | env DIR" >&2
	exit 2
	;;
esac
