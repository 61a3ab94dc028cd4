# The two commands a fresh machine needs are `make run` and `make test`; every
# other target is a step they call or a benchmark. Topic targets live in mk/.
SHELL := /bin/bash
GO ?= go
BIN := bin

.PHONY: build test vet fmt
build:
	$(GO) build -o $(BIN)/ ./cmd/...

vet:
	$(GO) vet ./...

fmt:
	gofmt -l . | tee /dev/stderr | (! read)

test: build vet
	$(GO) test -count=1 ./...

-include mk/*.mk
