# The edge's benchmark: the edge with real keys, licence checks and rate
# limits over a Zipf mix of verse, chapter and range passages of the WEB,
# against nginx serving the same representations from disk (gzip_static) and
# a minimal fasthttp server (the ceiling). Ends with one summary line.
# BENCH_SECONDS and BENCH_CONNS tune it; see docs/edge.md.

.PHONY: bench-edge
bench-edge: build
	@BIN=$(BIN) scripts/bench-edge.sh
