# Language catalogue: regenerate lang/data from pinned CLDR JSON releases.
# The output is committed, so builds never need npm or the network; run
# `make languages` only to move to a new CLDR release (bump the pins below).
# See docs/languages.md.

CLDR_VERSION ?= 48.2.0
CLDR_PACKAGES := cldr-core@$(CLDR_VERSION) cldr-localenames-full@$(CLDR_VERSION)

.PHONY: languages
languages:
	@set -eu; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for p in $(CLDR_PACKAGES); do \
		(cd "$$tmp" && npm pack --silent "$$p" >/dev/null); \
	done; \
	mkdir "$$tmp/core" "$$tmp/localenames"; \
	tar -xzf "$$tmp"/cldr-core-$(CLDR_VERSION).tgz -C "$$tmp/core"; \
	tar -xzf "$$tmp"/cldr-localenames-full-$(CLDR_VERSION).tgz -C "$$tmp/localenames"; \
	$(GO) run ./lang/internal/gen \
		-core "$$tmp/core/package" \
		-localenames "$$tmp/localenames/package" \
		-out lang/data
