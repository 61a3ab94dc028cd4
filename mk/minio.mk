# A real MinIO for tests and local runs (see docs/storage.md).
#
#   make minio-install   build the pinned server into .cache/minio (once; minutes the first time)
#   make minio           start it on 127.0.0.1 (data in .run/minio), print S3_TEST_ENDPOINT and credentials
#   make minio-stop      stop it
#
# With it running, `eval "$$(scripts/minio.sh env .run/minio)"` exports the
# variables so that `go test` uses it instead of starting its own.

MINIO_RUN := .run/minio

.PHONY: minio minio-install minio-stop
minio-install:
	@scripts/minio.sh install >/dev/null

minio: minio-install
	@scripts/minio.sh start $(MINIO_RUN)

minio-stop:
	@scripts/minio.sh stop $(MINIO_RUN)

# Build the server before the tests run, so that its first (slow) build is
# not counted against a test binary's timeout.
test: minio-install
