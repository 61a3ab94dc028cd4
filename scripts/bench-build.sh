#!/usr/bin/env bash
# make bench-build: publish the WEB cold, again unchanged, then after changing
# one verse; print wall time, objects and bytes written, and peak RSS of each.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }

PUBLISH=${PUBLISH:-bin/publish}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The build checks that every Bible's licence and organization exist.
"$PUBLISH" organizations add --content "$work/content" --id 5e1c6a51-0206-4d2b-9a1e-000000000206 \
	--name en=eBible.org >/dev/null
"$PUBLISH" licenses add --content "$work/content" --id 1 --name "Public domain" --open \
	--organization 5e1c6a51-0206-4d2b-9a1e-000000000206 >/dev/null
"$PUBLISH" import --content "$work/content" --id 206 --language en --abbreviation WEB \
	--title "World English Bible" --license 1 ../shared/bibles/eng-web >/dev/null

# run LABEL: one build; sets s (seconds), w (objects written), b (bytes), r (peak RSS MiB).
run() {
	/usr/bin/time -f '%e %M' -o "$work/time" "$PUBLISH" build --content "$work/content" --store "$work/store" >"$work/out"
	read -r s kb <"$work/time"
	w=$(sed -nE 's/.*: ([0-9]+) objects written.*/\1/p' "$work/out")
	b=$(sed -nE 's/.* objects written \(([^)]*)\).*/\1/p' "$work/out")
	r=$((kb / 1024))
	printf '%-10s wall %6ss  written %5s objects  %10s  peak RSS %5s MiB\n' "$1" "$s" "$w" "$b" "$r"
	peak=$(( r > ${peak:-0} ? r : ${peak:-0} ))
}

run cold;      cold_s=$s
run unchanged; unchanged_s=$s; unchanged_w=$w
# One verse of John 3 changes.
sed -i '0,/\\v 16 /s/\\v 16 /\\v 16 Truly, /' "$work/content/bibles/206/JHN.usfm"
run one-verse; one_s=$s; one_w=$w
echo "cold_s=$cold_s unchanged_s=$unchanged_s unchanged_written=$unchanged_w one_verse_s=$one_s one_verse_written=$one_w peak_rss_mb=$peak"
