#!/usr/bin/env bash
# make bench-catalogue: publish a catalogue of many Bibles and check that the
# cost of a build follows what changed, not how much is published.
#
# For each scale (5 Bibles, then 5 × COPIES, then 5 again), the five Bibles of
# ../shared/bibles are imported and copied under different ids into a scratch
# content directory, built cold into a scratch directory store, then one Bible's
# licence changes and it is built again, then one verse changes and it is built
# again. Prints one line per round:
#   bibles=N cold_s=… per_bible_s=… peak_rss_mb=… licence_change_written=… one_verse_written=… store_mb=…
#   cold_cpu_s=… per_bible_cpu_s=…
# and the ratios of the large scale to the small one. The small scale runs before
# and after the large one, and its figures for the ratios are the median of those
# two rounds (their mean): the machine's load moves between rounds, wall times most.
# Targets (issue: publishing a whole catalogue): peak_rss_mb <= 1024 and within
# 20 % of the 5-Bible peak, per_bible_s within 20 % of the 5-Bible figure,
# licence_change_written <= 5, one_verse_written <= 3.
#
# COPIES=10 (default) makes 50 Bibles, about 1.9 million verses; it takes tens of
# minutes on two cores. WORKERS sets publish build --workers (0: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
COPIES=${COPIES:-10}
WORKERS=${WORKERS:-0}
PUBLISH=${PUBLISH:-bin/publish}

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-catalogue.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The five Bibles, imported once, and their copies (scripts/catalogue.sh).
. scripts/catalogue.sh
imported="$work/imported"
catalogue_import "$imported"

# build DIR STORE: one build; sets s (wall seconds), cpu (user+system seconds),
# w (objects written), r (peak RSS MiB).
build() {
	/usr/bin/time -f '%e %M %U %S' -o "$work/time" "$PUBLISH" build --workers "$WORKERS" --content "$1" --store "$2" >"$work/out"
	read -r s kb u sy <"$work/time"
	cpu=$(awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.2f", u + s }')
	w=$(sed -nE 's/.*: ([0-9]+) objects written.*/\1/p' "$work/out")
	r=$((kb / 1024))
}

# scale COPIES: sets line and the figures of this scale.
scale() {
	local copies=$1 content="$work/content-$1" store="$work/store-$1" n=$((5 * $1))
	catalogue_content "$imported" "$content" "$copies"
	build "$content" "$store"
	cold_s=$s cold_cpu=$cpu peak=$r
	# One Bible moves to another licence.
	sed -i -E 's/"license_id": *1/"license_id": 2/' "$content/bibles/100001/bible.json"
	build "$content" "$store"
	lic_w=$w peak=$((r > peak ? r : peak))
	# One verse of John 3 changes in that Bible.
	sed -i '0,/\\v 16 /s/\\v 16 /\\v 16 Truly, /' "$content/bibles/100001/JHN.usfm"
	build "$content" "$store"
	one_w=$w peak=$((r > peak ? r : peak))
	per=$(awk -v s="$cold_s" -v n="$n" 'BEGIN { printf "%.2f", s / n }')
	per_cpu=$(awk -v s="$cold_cpu" -v n="$n" 'BEGIN { printf "%.2f", s / n }')
	store_mb=$(du -sm "$store" | cut -f1)
	echo "bibles=$n cold_s=$cold_s per_bible_s=$per peak_rss_mb=$peak licence_change_written=$lic_w one_verse_written=$one_w store_mb=$store_mb cold_cpu_s=$cold_cpu per_bible_cpu_s=$per_cpu"
	rm -rf "$content" "$store"
}

scale 1
small_per=$per small_cpu=$per_cpu small_peak=$peak
scale "$COPIES"
large_per=$per large_cpu=$per_cpu large_peak=$peak
scale 1
# Wall time moves with whatever else the machine runs; CPU time per Bible far less.
awk -v a="$large_per" -v b1="$small_per" -v b2="$per" -v c="$large_peak" -v d1="$small_peak" -v d2="$peak" \
	-v e="$large_cpu" -v f1="$small_cpu" -v f2="$per_cpu" \
	'BEGIN { printf "per_bible_ratio=%.2f per_bible_cpu_ratio=%.2f peak_rss_ratio=%.2f (large scale / median of the 5-Bible rounds; targets within 0.80-1.20, peak <= 1.20)\n", a / ((b1 + b2) / 2), e / ((f1 + f2) / 2), c / ((d1 + d2) / 2) }'
