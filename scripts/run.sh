#!/usr/bin/env bash
# make run: publish the fixture content (or $CONTENT) into the local store
# and serve it with the edge on 127.0.0.1:$PORT until interrupted. Prints the
# base URL and the demo credentials and writes them to .run/demo.json.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8080}
CONTENT=${CONTENT:-fixtures/content}
RUN=.run
STORE=$RUN/store
mkdir -p "$RUN"

bin/publish build --content "$CONTENT" --store "$STORE"

pids=()
cleanup() {
	trap - INT TERM EXIT
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup INT TERM EXIT

bin/edge serve --store "$STORE" --listen "127.0.0.1:$PORT" \
	--access fixtures/access.json --access-cache "$RUN/access-cache.json" &
pids+=($!)

base="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do
	curl -fsS "$base/healthz" >/dev/null 2>&1 && break
	sleep 0.1
done
curl -fsS "$base/readyz" >/dev/null

python3 - "$base" fixtures/demo-keys.json "$RUN/demo.json" <<'PY'
import json, sys
base, keys, out = sys.argv[1:]
d = json.load(open(keys))
demo = {"base_url": base, "app_key": d["app_key"], "app_id": d["app_id"],
        "archived_app_key": d["archived_app_key"], "unlicensed_app_key": d["unlicensed_app_key"],
        "unlicensed_bible_id": d["unlicensed_bible_id"]}
json.dump(demo, open(out, "w"), indent=2)
PY

cat <<MSG

Serving the fixture content at $base
  App Key (X-SVC-App-Key): $(python3 -c 'import json;print(json.load(open(".run/demo.json"))["app_key"])')
  Try: curl -H "X-SVC-App-Key: \$(jq -r .app_key $RUN/demo.json)" $base/v1/bibles/9001/passages/JHN.3.16
  Demo data for scripts: $RUN/demo.json
Press Ctrl-C to stop.
MSG
wait -n "${pids[@]}"
