# Verse search's benchmark: the edge over the published eng-web with a Zipf
# mix of queries, against PostgreSQL full-text search on the same verses.
# Ends with one summary line; see docs/search.md.

.PHONY: bench-search
bench-search: build
	@BIN=$(BIN) scripts/bench-search.sh
