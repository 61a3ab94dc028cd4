# The acceptance suite alone: it starts its own stack (scripts/run.sh with
# PostgreSQL, dynamic and the edge; once over the directory store, once over
# MinIO), walks the spec and runs the live service's JavaScript SDK against
# it, printing one line per rule and "N passed, N failed". `make test` runs
# the same package as part of ./... (quietly, unless it fails). Which rule
# groups fail the run is the `landed` map in acceptance/acceptance_test.go.
# See docs/acceptance.md.

ACCEPTANCE_TIMEOUT ?= 20m

.PHONY: acceptance
acceptance: build minio-install
	$(GO) test -count=1 -v -timeout $(ACCEPTANCE_TIMEOUT) -run '^TestAcceptance$$' ./acceptance
