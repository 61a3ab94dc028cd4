#!/usr/bin/env bash
# make bench-publish: publish the WEB to a real MinIO cold and after a
# one-verse change, next to the same builds to the directory store; print
# times, objects uploaded and bytes, ending with one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
cleanup() { scripts/minio.sh stop "$work/minio" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
eval "$(scripts/minio.sh start "$work/minio" | sed 's/^/export /')"
s3="s3://bench/web?endpoint=$S3_TEST_ENDPOINT&secure=false"

# The build checks that every Bible's licence and organization exist.
bin/publish organizations add --content "$work/content" --id 5e1c6a51-0206-4d2b-9a1e-000000000206 \
	--name en=eBible.org >/dev/null
bin/publish licenses add --content "$work/content" --id 1 --name "Public domain" --open \
	--organization 5e1c6a51-0206-4d2b-9a1e-000000000206 >/dev/null
bin/publish import --content "$work/content" --id 206 --language en --abbreviation WEB \
	--title "World English Bible" --license 1 ../shared/bibles/eng-web >/dev/null

# publish LABEL KIND STORE: one build; sets s (seconds), n (objects written), b (bytes written).
publish() {
	local t0 t1
	t0=$(date +%s%N)
	bin/publish build --content "$work/content" --store "$3" >"$work/out"
	t1=$(date +%s%N)
	s=$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", ns / 1e9 }')
	n=$(sed -nE 's/.*: ([0-9]+) objects written.*/\1/p' "$work/out")
	b=$(sed -nE 's/.* objects written \(([^)]*)\).*/\1/p' "$work/out")
	printf '%-14s %-4s wall %7ss  uploaded %5s objects  %10s\n' "$1" "$2" "$s" "$n" "$b"
}

publish cold s3 "$s3";         s3_cold=$s
publish cold dir "$work/store"; dir_cold=$s
sed -i '0,/\\v 16 /s/\\v 16 /\\v 16 Truly, /' "$work/content/bibles/206/JHN.usfm"
publish one-verse s3 "$s3";         s3_one=$s; s3_one_n=$n
publish one-verse dir "$work/store"; dir_one=$s
echo "s3_cold_s=$s3_cold s3_one_verse_s=$s3_one s3_one_verse_uploaded=$s3_one_n dir_cold_s=$dir_cold dir_one_verse_s=$dir_one"
