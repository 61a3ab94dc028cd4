# The two commands a fresh machine needs are `make run` and `make test`; every
# other target is a step they call or a benchmark. Topic targets live in mk/.
SHELL := /bin/bash
GO ?= go
BIN := bin
# The whole suite builds five real Bibles and starts PostgreSQL and MinIO;
# go test's default 10-minute limit per package is too tight on 2 cores.
TEST_TIMEOUT ?= 45m

.PHONY: build test vet fmt lint run bench-build bench-publish bench-catalogue
build:
	$(GO) build -o $(BIN)/ ./cmd/... ./examples/signin

vet:
	$(GO) vet ./...

# staticcheck is pinned in go.mod as a tool.
lint:
	$(GO) tool staticcheck ./...

fmt:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }

test: build vet fmt lint
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...
	@# The oracles' figures, which go test keeps to itself when they pass.
	@$(GO) test -count=1 -run '^TestOracle$$' -v ./build/usfm | grep '^usfm oracle'
	@$(GO) test -count=1 -run '^TestOracle$$' -v ./build/usx | grep '^usx oracle'
	@# Per-verse agreement of the five shared Bibles with usfm-js (npm).
	@$(GO) test -count=1 -run '^TestUsfmJS$$' -v ./build/render | grep '^usfm-js agreement'
	@$(GO) test -count=1 -run '^TestEval$$' -v ./search | grep '^search eval'
	@# The packages whose code runs concurrently, again under the race
	@# detector (the allocation tests skip themselves there).
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./edge/... ./dynamic/... ./publish/... ./access/... ./wire/... ./internal/...

# Build the fixture content (or CONTENT=DIR) into .run/store and serve it.
run: build
	@scripts/run.sh

# Cold, unchanged and one-verse builds of the WEB, with their figures.
bench-build: build
	@scripts/bench-build.sh

# 50 Bibles built cold, then after a licence and a verse change, beside 5 Bibles
# (COPIES=N for 5 × N Bibles); long, so not part of make test.
bench-catalogue: build
	@scripts/bench-catalogue.sh

# Cold and one-verse publishes of the WEB to MinIO next to the directory store.
bench-publish: build minio-install
	@scripts/bench-publish.sh

-include mk/*.mk
