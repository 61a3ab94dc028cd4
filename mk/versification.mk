# Standard versification schemes: recompile versification/standard_data.go
# from the Paratext .vrs files in ../shared/bibles/versification (SIL's
# libpalaso, MIT). The output is committed; run `make versification` only
# when the files change. See docs/versification.md.

.PHONY: versification
versification:
	$(GO) run ./versification/internal/gen \
		-in ../shared/bibles/versification \
		-out versification/standard_data.go
