# The dynamic service: benchmark of highlights through the edge, next to
# pgbench on the same PostgreSQL in the same run, with each hop's share of a
# read's CPU. See docs/dynamic.md, Benchmark.

BENCH_DYNAMIC_DURATION ?= 10s
BENCH_DYNAMIC_CONCURRENCY ?= 64

.PHONY: bench-dynamic
bench-dynamic:
	@url=$$(scripts/db.sh) && \
	$(GO) run ./tools/bench-dynamic -database-url "$$url" \
		-duration $(BENCH_DYNAMIC_DURATION) -concurrency $(BENCH_DYNAMIC_CONCURRENCY)
