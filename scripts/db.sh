#!/usr/bin/env bash
# db.sh makes a PostgreSQL 15 server available for development and tests and
# prints its URL on stdout (nothing else goes to stdout).
#
# When DATABASE_URL is set it is printed as is: the caller brought its own
# server. Otherwise a private cluster lives in .cache/pg of the repository
# (gitignored), listening on 127.0.0.1 only. A second call reuses the running
# cluster; a call after a reboot starts it again. Calls are serialised with a
# lock so that test packages running in parallel do not race to initdb.
#
# PostgreSQL refuses to run as root, so as root the server runs as the
# unprivileged user "postgres" (created if missing). When that user cannot
# reach the repository (a checkout under a private home directory), the data
# directory goes to a private directory under /var/tmp instead and
# .cache/pg/data points at it.
#
#   scripts/db.sh          start (if needed) and print the URL
#   scripts/db.sh stop     stop the private cluster
#   scripts/db.sh crash    stop it the way a crash would (immediate: no
#                          checkpoint, recovery from the WAL on next start)
#   scripts/db.sh status   exit 0 if the private cluster runs, 1 if not
#
# PG_STATE names another state directory than .cache/pg: a cluster of its
# own, for a test that stops and crashes its server (the fault test) without
# touching the one every other test shares. DATABASE_URL is ignored then.
set -euo pipefail

if [[ -n "${DATABASE_URL:-}" && -z "${PG_STATE:-}" && "${1:-}" != stop && "${1:-}" != crash && "${1:-}" != status ]]; then
	printf '%s\n' "$DATABASE_URL"
	exit 0
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=${PG_STATE:-$root/.cache/pg}
mkdir -p "$state"

log() { printf 'db.sh: %s\n' "$*" >&2; }

# Find the server binaries: Debian keeps them off PATH.
bindir=""
for d in /usr/lib/postgresql/15/bin "$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/x)")"; do
	if [[ -x "$d/pg_ctl" && -x "$d/initdb" && -x "$d/postgres" ]]; then
		bindir=$d
		break
	fi
done
if [[ -z "$bindir" ]]; then
	log "PostgreSQL 15 server binaries not found (apt-get install postgresql-15)"
	exit 1
fi

# Run server commands as an unprivileged user when we are root.
runas=()
owner=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
	owner=postgres
	if ! id "$owner" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin "$owner"
	fi
	runas=(setpriv --reuid="$owner" --regid="$(id -g "$owner")" --init-groups --)
fi
as_owner() { (cd / && "${runas[@]}" "$@"); }

exec 9>"$state/lock"
flock 9

data="$state/data"
if [[ ! -e "$data" ]]; then
	mkdir -p "$data"
	chown "$owner" "$data" 2>/dev/null || true
	chmod 700 "$data"
	if ! as_owner test -w "$data" 2>/dev/null; then
		rmdir "$data"
		alt=$(mktemp -d /var/tmp/platform-pg.XXXXXX)
		chown "$owner" "$alt"
		chmod 700 "$alt"
		ln -s "$alt" "$data"
		log "the repository is not reachable by $owner; data in $alt"
	fi
fi
data=$(readlink -f "$data")

# running: the cluster in $data is up.
running() { as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; }

if [[ "${1:-}" == status ]]; then
	running && exit 0
	exit 1
fi

if [[ "${1:-}" == stop || "${1:-}" == crash ]]; then
	mode=fast
	[[ $1 == crash ]] && mode=immediate
	if running; then
		as_owner "$bindir/pg_ctl" -D "$data" -m "$mode" -w stop >&2
	fi
	exit 0
fi

if [[ ! -f "$data/PG_VERSION" ]]; then
	log "initialising a PostgreSQL cluster in $data"
	superpw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
	pwfile=$(mktemp)
	printf '%s\n' "$superpw" >"$pwfile"
	chown "$owner" "$pwfile"
	as_owner "$bindir/initdb" -D "$data" -U postgres --pwfile="$pwfile" \
		--auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >&2
	rm -f "$pwfile"
	printf '%s\n' "$superpw" >"$state/superpw"
	chmod 600 "$state/superpw"
	# Tuned for a 2-core development machine running tests and benchmarks:
	# enough connections for parallel test packages, TCP on loopback only,
	# no Unix socket (its directory would need to be writable by the owner).
	cat >>"$data/postgresql.conf" <<-EOF
		listen_addresses = '127.0.0.1'
		unix_socket_directories = ''
		max_connections = 300
		shared_buffers = 256MB
		log_min_messages = warning
	EOF
fi

port_of() { sed -n 4p "$data/postmaster.pid" 2>/dev/null; }

if ! running; then
	port=$(cat "$state/port" 2>/dev/null || echo "${DB_PORT:-55432}")
	# Take the first free port from the preferred one (another checkout's
	# cluster may hold it).
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
		port=$((port + 1))
	done
	echo "$port" >"$state/port"
	log "starting PostgreSQL on 127.0.0.1:$port"
	# The server must not inherit the lock (fd 9) nor our stdout: a caller
	# reading our output would wait for the server to exit.
	if ! as_owner "$bindir/pg_ctl" -D "$data" -o "-p $port" -l "$data/server.log" -w -t 60 start \
		9>&- </dev/null >"$state/start.log" 2>&1; then
		cat "$state/start.log" "$data/server.log" >&2
		exit 1
	fi
fi
port=$(port_of)

if [[ ! -f "$state/url" ]]; then
	pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
	PGPASSWORD=$(cat "$state/superpw") psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres >&2 <<-EOF
		DO \$\$ BEGIN
		  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'platform') THEN
		    CREATE ROLE platform LOGIN CREATEDB;
		  END IF;
		END \$\$;
		ALTER ROLE platform PASSWORD '$pw';
		SELECT 'CREATE DATABASE platform OWNER platform'
		  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'platform')\gexec
	EOF
	printf 'postgres://platform:%s@127.0.0.1:%%PORT%%/platform?sslmode=disable\n' "$pw" >"$state/url"
	chmod 600 "$state/url"
fi
sed "s/%PORT%/$port/" "$state/url"
