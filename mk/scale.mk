# The edge at catalogue scale: 50 Bibles (bench-catalogue's, built once into
# .run/bench-scale and kept) served from the directory store and from MinIO
# with the edge's default memory and disk-cache sizes, a Zipf mix over all
# their routes, cold and warm, beside a mix that fits in memory. Ends with one
# summary line. BENCH_ROUNDS, BENCH_SECONDS, BENCH_WARMUP, BENCH_WARMUP_MAX,
# STORES tune it; see docs/edge.md ("At catalogue scale"). Long, so not part
# of make test.

.PHONY: bench-scale
bench-scale: build minio-install
	@BIN=$(BIN) scripts/bench-scale.sh
