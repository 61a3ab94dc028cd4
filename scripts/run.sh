#!/usr/bin/env bash
# make run: publish the fixture content (or $CONTENT) into the local store,
# start PostgreSQL, the dynamic service and the edge on 127.0.0.1, print the
# base URL and the demo credentials, write them to $RUN_DIR/demo.json, and
# run until interrupted (Ctrl-C stops everything this script started).
#
# Environment: PORT (edge, default 8080), DYNAMIC_PORT (default PORT+1),
# EXAMPLE_PORT (the sign-in example app, examples/signin; default PORT+2),
# CONTENT (default fixtures/content), RUN_DIR (default .run), STORE (a
# directory or s3:// URL; default $RUN_DIR/store), DATABASE_URL
# (default: the local cluster scripts/db.sh starts).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8080}
DYNAMIC_PORT=${DYNAMIC_PORT:-$((PORT + 1))}
CONTENT=${CONTENT:-fixtures/content}
RUN=${RUN_DIR:-.run}
STORE=${STORE:-$RUN/store}
EXAMPLE_PORT=${EXAMPLE_PORT:-$((PORT + 2))}
DEMO_USER=7d3f2c1a-5b6e-4f80-9a1b-2c3d4e5f6a70
DEMO_APP=5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a01
# The demo account signs in on the platform's own pages (a development
# fixture: the password is printed below and written to demo.json).
DEMO_EMAIL=demo@example.test
DEMO_PASSWORD="make run demo reader"
# The demo staff account: the operator marked it as staff, so it sees every
# app on /developers/staff and moves apps between development and live.
DEMO_STAFF=7d3f2c1a-5b6e-4f80-9a1b-2c3d4e5f6a71
DEMO_STAFF_EMAIL=staff@example.test
DEMO_STAFF_PASSWORD="make run demo staff"
# The example app's callback, registered for the demo app (matched exactly).
REDIRECT_URI=http://127.0.0.1:$EXAMPLE_PORT/callback
mkdir -p "$RUN"

DATABASE_URL=$(scripts/db.sh)
export DATABASE_URL
# The secret the edge proves itself with to dynamic; new every run.
EDGE_TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
export EDGE_TOKEN

bin/publish build --content "$CONTENT" --store "$STORE"
bin/dynamic migrate
# The demo reader reads every Bible of $CONTENT (a DBL bundle imported
# into it, say), not only the fixtures' the snapshot lists.
bin/dynamic seed --store "$STORE" --reads-all "$DEMO_APP"
bin/dynamic apps redirect-uris --app "$DEMO_APP" --set "$REDIRECT_URI" >/dev/null
ACCOUNT_PASSWORD=$DEMO_PASSWORD bin/dynamic users create --if-absent --id "$DEMO_USER" --email "$DEMO_EMAIL" \
	--name "Demo Reader" >/dev/null
# The demo account owns the demo app's organization on the developer portal.
bin/dynamic organizations create --if-absent --name "Demo organization" --owner "$DEMO_USER" --of-app "$DEMO_APP" >/dev/null
ACCOUNT_PASSWORD=$DEMO_STAFF_PASSWORD bin/dynamic users create --if-absent --id "$DEMO_STAFF" --email "$DEMO_STAFF_EMAIL" \
	--name "Demo Staff" >/dev/null
bin/dynamic staff add --account "$DEMO_STAFF" >/dev/null
# Creates the local signing key (and its public half) on first use.
bin/dynamic users token --user "$DEMO_USER" --key "$RUN/jwt-ed25519.pem" >/dev/null

pids=()
cleanup() {
	trap - INT TERM EXIT
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	# PostgreSQL is shared with tests and later runs (scripts/db.sh), so
	# it is left running; say so rather than leave it unnoticed.
	echo "Stopped the edge and dynamic. PostgreSQL keeps running for the next run and the tests; stop it with: make db-stop" >&2
}
trap cleanup INT TERM EXIT

# supervise NAME CMD…: run CMD with its stderr in $RUN/NAME.log and its pid
# in $RUN/NAME.pid, and start it again whenever it exits, so that a crash of
# one service neither takes the others down nor stays down (the edge keeps
# serving content while dynamic restarts; user routes answer 503 meanwhile).
# A service that keeps dying is restarted at most every 5 s. TERM stops the
# service, then the supervisor.
supervise() {
	local name=$1 child=0 delay=1 started
	shift
	trap 'kill "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 0' TERM
	while :; do
		started=$SECONDS
		"$@" 2>>"$RUN/$name.log" &
		child=$!
		echo "$child" >"$RUN/$name.pid"
		wait "$child" && status=0 || status=$?
		((SECONDS - started > 30)) && delay=1
		echo "run.sh: $name exited with status $status; restarting in ${delay}s" | tee -a "$RUN/$name.log" >&2
		sleep "$delay"
		delay=$((delay < 5 ? delay + 1 : 5))
	done
}

dynamic=http://127.0.0.1:$DYNAMIC_PORT
base=http://127.0.0.1:$PORT
supervise dynamic bin/dynamic serve --listen "127.0.0.1:$DYNAMIC_PORT" --store "$STORE" \
	--jwt-keys "$RUN/jwt-ed25519.pub.pem" &
pids+=($!)
supervise edge bin/edge serve --store "$STORE" --listen "127.0.0.1:$PORT" --public-url "$base" \
	--access "$dynamic/internal/access" --dynamic "$dynamic" \
	--access-cache "$RUN/access-cache.json" --disk-cache "$RUN/edge-cache" \
	--reader-app-key "$(jq -r .app_key fixtures/demo-keys.json)" &
pids+=($!)
supervise example bin/signin --listen "127.0.0.1:$EXAMPLE_PORT" --platform "$base" \
	--app-key "$(jq -r .app_key fixtures/demo-keys.json)" --redirect-uri "$REDIRECT_URI" &
pids+=($!)

for _ in $(seq 1 150); do
	curl -fsS -o /dev/null "$base/readyz" 2>/dev/null && break
	sleep 0.2
done
curl -fsS -o /dev/null "$base/readyz" || { echo "the edge is not ready; see $RUN/edge.log and $RUN/dynamic.log" >&2; exit 1; }

jq -n --arg base "$base" --arg redirect "$REDIRECT_URI" --arg email "$DEMO_EMAIL" --arg password "$DEMO_PASSWORD" \
	--arg staff_email "$DEMO_STAFF_EMAIL" --arg staff_password "$DEMO_STAFF_PASSWORD" \
	--slurpfile k fixtures/demo-keys.json \
	'$k[0] + {base_url: $base, redirect_uri: $redirect, account_email: $email, account_password: $password,
	  staff_email: $staff_email, staff_password: $staff_password}' >"$RUN/demo.json"
# A passage of the content being served, for the "Try:" line: the first
# chapter of the lowest-numbered Bible (CONTENT may hold other Bibles than
# the fixtures).
try_bible=$(find "$CONTENT/bibles" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | sort -n | head -1 || true)
try_passage=$(curl -fsS -H "X-SVC-App-Key: $(jq -r .app_key "$RUN/demo.json")" "$base/v1/bibles/$try_bible/index" 2>/dev/null |
	jq -r '.books[0].chapters[0].passage_id // empty' 2>/dev/null || true)
bin/dynamic users token --user "$DEMO_USER" --key "$RUN/jwt-ed25519.pem" --demo-json "$RUN/demo.json" >/dev/null

cat <<MSG

Serving $CONTENT at $base   (logs: $RUN/edge.log, $RUN/dynamic.log)
  Demo App Key (X-SVC-App-Key): $(jq -r .app_key "$RUN/demo.json")
  Demo user token (Authorization: Bearer …): $(jq -r .user_token "$RUN/demo.json")
  Reader page: $base/   (uses the demo App Key; API description: $base/v1/openapi.json)
  Sign in: $base/auth/sign-in   as $DEMO_EMAIL, password "$DEMO_PASSWORD"
  Developer portal: $base/developers
    demo developer: $DEMO_EMAIL, password "$DEMO_PASSWORD" (owns the demo app's organization;
    or sign up: a new account creates an organization, registers an app and gets its key)
  Staff page (moves apps to live): $base/developers/staff
    demo staff: $DEMO_STAFF_EMAIL, password "$DEMO_STAFF_PASSWORD"
  Example app signing in with PKCE (examples/signin): http://127.0.0.1:$EXAMPLE_PORT/
  Its registered callback (redirect_uri): $REDIRECT_URI
  Everything for scripts: $RUN/demo.json
  Try: curl -H "X-SVC-App-Key: \$(jq -r .app_key $RUN/demo.json)" '$base/v1/bibles/$try_bible/passages/${try_passage:-GEN.1}?format=html'
Press Ctrl-C to stop the edge, dynamic and the example app (a service that dies is restarted; see its log).
PostgreSQL keeps running after Ctrl-C (make db-stop stops it).
MSG
wait
