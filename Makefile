# The two set-up commands: `make run` (a whole search on the sample index,
# in one process, no network) and `make test` (the whole suite).
GO      ?= go
INDEX   ?= testdata/sample-index.json
QUERY   ?= What are the main themes across Veloria's development over the decade?
GOFILES  = $(shell find . -name '*.go' -not -path './node_modules/*' -not -path './.aws-sam/*')

.PHONY: run test fmt-check vet staticcheck unit bench bench-plan bench-graphrag fuzz build check-sizes lint invoke

# run builds the CLI into build/globalsearch first and says so: a first
# build compiles the AWS SDK, parquet and the MCP SDK, minutes with no other
# output (README, "Set-up"); later builds only relink what changed.
run:
	@echo "building globalsearch (a first build compiles the AWS SDK, parquet and MCP: several minutes; later ones seconds) ..."
	@$(GO) build -o build/globalsearch ./cmd/globalsearch
	build/globalsearch run --index $(INDEX) --query "$(QUERY)"

test: lint fmt-check vet staticcheck unit

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

unit:
	$(GO) test -race -count=1 -timeout 30m ./...

# bench: every Go benchmark, then the whole `plan` process on a generated
# index of BENCH_SUMMARIES leaf summaries (wall time and peak RSS from GNU
# time, the figures docs/scale.md quotes). Its 1,250 batches need more model
# calls than the default ceiling allows, so --max-model-calls lets the plan
# print instead of being refused once packed.
BENCH_SUMMARIES ?= 10000
BENCH_DIR       ?= build/bench
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@$(MAKE) --no-print-directory bench-plan
	@$(MAKE) --no-print-directory bench-graphrag

# bench-graphrag: `plan --graphrag` of a GraphRAG output folder (CAROL) against
# `plan --index` of its import, three runs each under GNU time, the machine
# and its load beside them: the figures the README quotes. A missing folder
# is skipped with a message.
CAROL ?= ../shared/corpora/christmas-carol
bench-graphrag:
	@if [ ! -f $(CAROL)/community_reports.parquet ]; then echo "bench-graphrag: $(CAROL) has no GraphRAG output; skipped"; exit 0; fi; \
	mkdir -p $(BENCH_DIR) && $(GO) build -o $(BENCH_DIR)/globalsearch ./cmd/globalsearch && \
	$(BENCH_DIR)/globalsearch import graphrag --dir $(CAROL) --out $(BENCH_DIR)/carol.json >/dev/null 2>&1 || exit 1; \
	echo "machine: $$(nproc) cores, $$(uname -m), load average $$(cut -d' ' -f1-3 /proc/loadavg)"; \
	for src in "--graphrag $(CAROL)" "--index $(BENCH_DIR)/carol.json"; do \
		for i in 1 2 3; do \
			/usr/bin/time -f "plan $$src: %e s wall, %U s user, %S s system, %M KB peak RSS" \
				$(BENCH_DIR)/globalsearch plan --no-shuffle $$src --query "What are the main themes?" >/dev/null 2>$(BENCH_DIR)/graphrag.err || { cat $(BENCH_DIR)/graphrag.err; exit 1; }; \
			tail -1 $(BENCH_DIR)/graphrag.err; \
		done; \
	done; \
	echo "machine: $$(nproc) cores, $$(uname -m), load average $$(cut -d' ' -f1-3 /proc/loadavg)"

bench-plan:
	@mkdir -p $(BENCH_DIR)
	$(GO) run ./testdata/gen --summaries $(BENCH_SUMMARIES) --out $(BENCH_DIR)/index-$(BENCH_SUMMARIES).json
	$(GO) build -o $(BENCH_DIR)/globalsearch ./cmd/globalsearch
	@ls -l $(BENCH_DIR)/index-$(BENCH_SUMMARIES).json | awk '{printf "index: %.1f MB of JSON\n", $$5/1e6}'
	BENCH_INDEX=$(CURDIR)/$(BENCH_DIR)/index-$(BENCH_SUMMARIES).json $(GO) test -run '^$$' -bench BenchmarkSavePlanUnits -benchtime 1x ./shared/store/
	BENCH_INDEX=$(CURDIR)/$(BENCH_DIR)/index-$(BENCH_SUMMARIES).json $(GO) test -run '^$$' -bench BenchmarkSelectionSpend -benchtime 1x ./cmd/globalsearch/
	@for i in 1 2 3; do \
		/usr/bin/time -f "plan: %e s wall, %U s user, %S s system, %M KB peak RSS" \
			$(BENCH_DIR)/globalsearch plan --no-shuffle --index $(BENCH_DIR)/index-$(BENCH_SUMMARIES).json --query "What are the main themes?" --max-model-calls 100000 \
			> $(BENCH_DIR)/plan.out || exit 1; \
		sed -n '1p;$$p' $(BENCH_DIR)/plan.out; \
	done
	@echo "machine: $$(nproc) cores, $$(uname -m), load average $$(cut -d' ' -f1-3 /proc/loadavg)"

# fuzz: each fuzz target for FUZZTIME (go test fuzzes one target per run).
# Seed corpora live in each package's testdata/fuzz/<Target>/; a failing
# input the fuzzer finds lands there too: keep it as a regression case.
FUZZTIME     ?= 10s
# Minimizing every new interesting input may take 60s by default, which would
# eat a short run; a failing input is still written out when minimization stops.
FUZZMINIMIZETIME ?= 2s
FUZZ_TARGETS  = ./shared/globalsearch:FuzzParseRequest ./shared/globalsearch:FuzzExtractJSON \
	./shared/globalsearch:FuzzParseMapOutput ./shared/globalsearch:FuzzParseReduceOutput \
	./shared/indexfile:FuzzParse ./shared/indexfile:FuzzDecodeTyped ./shared/indexfile:FuzzLiteral ./shared/strictjson:FuzzCheck \
	./shared/tokens:FuzzEstimate ./shared/batch:FuzzPack
FUZZ_TARGETS += ./shared/graphrag:FuzzImport
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $$pkg || exit 1; \
	done

# ---------------------------------------------------------------- serverless
# Each function is one static `bootstrap` for provided.al2023 on arm64:
# no cgo, no RPC shim (lambda.norpc), reproducible paths (-trimpath).
FUNCTIONS    = api prepare map reduce
# PROMPTS=DIR builds the functions with your own prompts (any of map.txt,
# reduce.txt, system.txt; docs/contract.md#custom-prompts): promptoverlay
# checks DIR as `globalsearch run --prompts DIR` does and writes a go build
# overlay that puts the checked copies where the functions embed theirs.
PROMPTS         ?=
PROMPTS_OVERLAY  = build/prompts/overlay.json
LAMBDA_BUILD = CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(if $(PROMPTS),-overlay $(abspath $(PROMPTS_OVERLAY))) -tags lambda.norpc -trimpath -ldflags "-s -w"

.PHONY: prompts-overlay
prompts-overlay:
	@if [ -n "$(PROMPTS)" ]; then $(GO) run ./functions/internal/promptoverlay -prompts "$(PROMPTS)" -out $(dir $(PROMPTS_OVERLAY)) || exit 1; fi

# build: every function into build/<fn>/bootstrap, without SAM, then
# check-sizes.
build: prompts-overlay
	@for fn in $(FUNCTIONS); do \
		$(LAMBDA_BUILD) -o build/$$fn/bootstrap ./functions/$$fn || exit 1; \
	done
	@ls -l build/*/bootstrap
	@$(MAKE) --no-print-directory check-sizes

# check-sizes: each build/<fn>/bootstrap against the row `| `<fn>` | N MB |`
# of docs/aws.md's bootstrap sizes table, to within 1 MB (10^6 bytes) either
# way, so the sizes the docs state cannot go stale (and a few KB of growth
# does not flip a rounding).
SIZES_DOC = docs/aws.md
check-sizes:
	@for fn in $(FUNCTIONS); do \
		[ -f build/$$fn/bootstrap ] || { echo "check-sizes: build/$$fn/bootstrap is missing: make build first"; exit 1; }; \
		stated=$$(sed -n "s/^| \`$$fn\` | \([0-9][0-9]*\) MB |$$/\1/p" $(SIZES_DOC)); \
		[ -n "$$stated" ] || { echo "check-sizes: $(SIZES_DOC) states no size for $$fn"; exit 1; }; \
		actual=$$(wc -c < build/$$fn/bootstrap | awk '{printf "%.2f", $$1 / 1e6}'); \
		if ! awk -v a=$$actual -v s=$$stated 'BEGIN { d = a - s; exit !(d <= 1 && d >= -1) }'; then \
			echo "check-sizes: build/$$fn/bootstrap is $$actual MB, $(SIZES_DOC) says $$stated MB (to within 1 MB): update its bootstrap sizes table"; exit 1; fi; \
		echo "check-sizes: $$fn $$actual MB, within 1 MB of the $$stated MB $(SIZES_DOC) states"; \
	done

# The targets `sam build` calls (Metadata BuildMethod: makefile); SAM sets
# ARTIFACTS_DIR. PROMPTS reaches them from the environment:
# PROMPTS=/abs/dir sam build (SAM may build in a copy of the repository, so
# give an absolute path).
build-ApiFunction: prompts-overlay
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/api
build-PrepareFunction: prompts-overlay
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/prepare
build-MapFunction: prompts-overlay
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/map
build-ReduceFunction: prompts-overlay
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/reduce

# invoke: make invoke FN=<api|prepare|map|reduce> EVENT=events/<file>.json
# With sam on PATH: sam local invoke (Docker; the function talks to the real
# tables and Bedrock named by ENV_VARS, a sam --env-vars file). Without it:
# the same handler in process on the sample index and the offline model.
ENV_VARS ?=
invoke:
	@if [ -z "$(FN)" ] || [ -z "$(EVENT)" ]; then echo "usage: make invoke FN=<api|prepare|map|reduce> EVENT=events/<file>.json"; exit 2; fi
	@if command -v sam >/dev/null 2>&1; then \
		id=$$(echo "$(FN)" | awk '{print toupper(substr($$0,1,1)) substr($$0,2) "Function"}'); \
		sam build --cached && sam local invoke $$id --event $(EVENT) $(if $(ENV_VARS),--env-vars $(ENV_VARS)); \
	else \
		$(GO) run ./cmd/globalsearch invoke $(FN) --event $(EVENT) --index $(INDEX); \
	fi

# lint: the template (cfn-lint) and the state machine, by asl-validator
# (pinned in package.json, installed by `npm ci`) and by cfn-lint through a
# plain AWS::StepFunctions::StateMachine wrapper, since cfn-lint does not
# read the file SAM's DefinitionUri names. Missing tools skip locally and
# fail under CI=true.
ASL          = statemachine/globalsearch.asl.json
ASL_WRAPPER  = build/lint/statemachine.template.json
LINT_ARN     = arn:aws:lambda:us-east-1:123456789012:function
lint:
	@if command -v cfn-lint >/dev/null 2>&1; then \
		cfn-lint template.yaml || exit 1; \
		mkdir -p $(dir $(ASL_WRAPPER)); \
		{ printf '{"AWSTemplateFormatVersion":"2010-09-09","Resources":{"StateMachine":{"Type":"AWS::StepFunctions::StateMachine","Properties":{"StateMachineType":"STANDARD","RoleArn":"arn:aws:iam::123456789012:role/lint","DefinitionSubstitutions":{"PrepareFunctionArn":"$(LINT_ARN):prepare","MapFunctionArn":"$(LINT_ARN):map","ReduceFunctionArn":"$(LINT_ARN):reduce"},"Definition":'; \
		  cat $(ASL); printf '}}}}\n'; } > $(ASL_WRAPPER); \
		cfn-lint $(ASL_WRAPPER) || exit 1; \
		echo "lint: cfn-lint ok (template.yaml, $(ASL))"; \
	elif [ "$$CI" = true ]; then echo "lint: cfn-lint is required under CI"; exit 1; \
	else echo "lint: cfn-lint not found, skipping the template checks (pip install cfn-lint)"; fi
	@if [ -x node_modules/.bin/asl-validator ]; then \
		node_modules/.bin/asl-validator --json-path $(ASL) || exit 1; \
	elif [ "$$CI" = true ]; then echo "lint: asl-validator is required under CI (npm ci)"; exit 1; \
	else echo "lint: asl-validator not installed, skipping the ASL check (npm ci)"; fi
