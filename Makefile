# The two set-up commands: `make run` (a whole search on the sample index,
# in one process, no network) and `make test` (the whole suite).
GO      ?= go
INDEX   ?= testdata/sample-index.json
QUERY   ?= What are the main themes across Veloria's development over the decade?
GOFILES  = $(shell find . -name '*.go' -not -path './node_modules/*' -not -path './.aws-sam/*')

.PHONY: run test fmt-check vet staticcheck unit bench

run:
	$(GO) run ./cmd/globalsearch run --index $(INDEX) --query "$(QUERY)"

test: fmt-check vet staticcheck unit

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

unit:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
