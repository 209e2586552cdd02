# Every target's `## ` comment is its line in `make help`.
.DEFAULT_GOAL := help
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
# Targets run their prerequisites in the order written, even under `make -j`.
.NOTPARALLEL:

# Node 24 LTS runs every recipe (package.json engines.node). scripts/node.sh names a supported node, once
# per make: MDP_NODE_BIN, else the node on PATH when supported, else the pinned Node (.node-version) it
# fetches once into MDP_TOOLS_CACHE. Its directory goes first on PATH, so npm and npx (`#!/usr/bin/env
# node`), tsx, vitest and every process they start run on it. `make help` needs no Node.
PATH_BEFORE_NODE := $(PATH)
ifneq ($(filter-out help,$(or $(MAKECMDGOALS),help)),)
NODE_DIR := $(shell bash scripts/node.sh </dev/null)
ifneq ($(.SHELLSTATUS),0)
$(error no supported Node: scripts/node.sh says why above)
endif
ifneq ($(NODE_DIR)/node,$(shell command -v node))
export PATH := $(NODE_DIR):$(PATH)
endif
endif

BIN := node_modules/.bin
# npm writes this hidden lockfile on every install; it is our "node_modules is current" stamp.
INSTALL_STAMP := node_modules/.package-lock.json
# When this make started, and how long install and build took (.local/timings/): make run's banner says.
STARTED_MS := $(shell date +%s%3N)
# TypeScript runs in one process with tsx's loader, never under `npx tsx`: that leaves npm's and tsx's
# own processes beside it, idle but collecting their heaps, on the cores a bench measures (contributors.md,
# "What holds the cores in a stall"); and tsx's CLI, given Ctrl-C, SIGKILLs its child unless the child
# says within 60 ms that it heard the signal, which a busy `make run` supervisor did not, leaving its
# services running (contributors.md, "Ctrl-C under load").
TS := node --import tsx
TIMED = s=$$(date +%s%3N); $(1); mkdir -p .local/timings; echo $$(( $$(date +%s%3N) - s )) > .local/timings/$(2)-ms

.PHONY: help node install build run import mcp-inspect client client-check python-client python-client-check proto proto-check openapi openapi-check openapi-lint lint format typecheck \
	test-unit test-int test test-tools test-stress bench bench-ledger chaos lock-check infra infra-stop clean token admin ledger-rebuild images compose-up compose-down chart-check observability-check

help: ## List the targets
	@echo "Usage: make <target>"
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-14s %s\n", $$1, $$2}'

node: ## Print the Node every target runs on and why (scripts/node.sh: MDP_NODE_BIN, PATH or the pinned Node 24)
	@PATH='$(PATH_BEFORE_NODE)' bash scripts/node.sh --explain
	@echo "make runs: node $$(node --version) ($$(command -v node)), npm $$(npm --version)"

install: $(INSTALL_STAMP) ## Install dependencies (npm ci) when package-lock.json changed

# `npm ci` installs exactly the committed lockfile and refuses one that package.json disagrees with;
# scripts/install.sh retries it when the registry drops a response.
$(INSTALL_STAMP): package-lock.json
	@echo "npm ci"; $(call TIMED,bash scripts/install.sh,install)
	@touch $@

lock-check: ## Fail when package-lock.json is not what `npm install` makes of package.json (CI runs it)
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	git ls-files -- package.json package-lock.json '*/package.json' | grep -v '^node_modules/' \
	  | while read -r f; do mkdir -p "$$tmp/$$(dirname "$$f")"; cp "$$f" "$$tmp/$$f"; done; \
	(cd "$$tmp" && npm install --package-lock-only --prefer-offline --ignore-scripts --no-audit --no-fund </dev/null >/dev/null 2>"$$tmp/.log") \
	  || { cat "$$tmp/.log" >&2; exit 1; }; \
	if ! diff -u package-lock.json "$$tmp/package-lock.json" > "$$tmp/.diff"; then \
	  head -60 "$$tmp/.diff"; \
	  echo "lock-check: package-lock.json disagrees with package.json; run 'npm install' and commit the lockfile" >&2; \
	  exit 1; \
	fi; \
	echo "lock-check: package-lock.json matches package.json"

build: install ## Bundle every service into services/<svc>/dist/server.js
	@$(call TIMED,$(TS) scripts/build.ts,build)

run: install build ## Build, then run everything in the foreground (Ctrl-C stops); DATA=<folder> serves real exchange files; SHARDS=n GATEWAYS=m run n ledger shards and m gateways
	DATA="$(DATA)" SHARDS="$(SHARDS)" GATEWAYS="$(GATEWAYS)" MAKE_STARTED_MS=$(STARTED_MS) $(TS) scripts/run.ts

import: install infra ## Import a folder of exchange files: make import DIR=<folder> [ARGS=--json|--day-folder]
	@test -n "$(DIR)" || { echo "make import: give the folder, e.g. make import DIR=~/Downloads/nse" >&2; exit 2; }
	@$(TS) services/data-import/src/cli.ts "$(DIR)" $(ARGS)

PLAN ?= free
token: install infra ## Print a token for a new account on PLAN (default free) on the last line
	@$(TS) services/auth/src/cli.ts demo-token --plan $(PLAN)

MCP_ARGS ?= --method tools/list
mcp-inspect: ## Run the MCP Inspector CLI against make run's /mcp (needs TOKEN; MCP_ARGS for other methods)
	@bash scripts/mcp-inspect.sh $(MCP_ARGS)

admin: install infra ## Run the auth admin tool: make admin ARGS="token list <account-id>"
	@$(TS) services/auth/src/cli.ts $(ARGS)

ledger-rebuild: install infra ## Replay the usage event log into fresh projections and report any difference
	@$(TS) services/quota-ledger/src/cli.ts rebuild

IMAGE_REGISTRY ?= mdp
IMAGE_TAG ?= dev

images: ## Build one container image per service and the data-import job: $(IMAGE_REGISTRY)/mdp-<name>:$(IMAGE_TAG)
	@for s in gateway auth quota-ledger equities-data filings-reader options-analytics data-import; do \
	  docker build -f deploy/docker/Dockerfile --build-arg SERVICE=$$s -t $(IMAGE_REGISTRY)/mdp-$$s:$(IMAGE_TAG) . || exit 1; \
	done

compose-up: ## The platform in containers with Postgres and NATS JetStream (docker compose)
	docker compose -f deploy/compose.yaml up --build -d

compose-down: ## Stop the compose stack (its volumes stay)
	docker compose -f deploy/compose.yaml down

chart-check: install ## Helm chart tests: structure, then real helm lint --strict and template (helm from scripts/helm.sh)
	HELM_BIN="$$(bash scripts/helm.sh)" npx vitest run test/ops/chart.test.ts test/ops/helm.int.test.ts

observability-check: install infra ## Dashboards and alert rules against a real Prometheus, promtool rule tests
	npx vitest run test/ops/dashboards.int.test.ts

infra: ## Make sure Postgres (with the database) and NATS JetStream are up
	bash scripts/infra.sh ensure

infra-stop: ## Stop the private Postgres/NATS instances under .local/
	bash scripts/infra.sh stop

proto: install ## Lint the protos and regenerate packages/proto/src/gen
	cd proto && ../$(BIN)/buf lint && ../$(BIN)/buf generate

proto-check: install ## Lint the protos and fail if packages/proto/src/gen is not what they generate
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	cd proto && ../$(BIN)/buf lint; \
	sed -E "s#^([[:space:]]*out:).*#\1 $$tmp/gen#" buf.gen.yaml > "$$tmp/buf.gen.yaml"; \
	../$(BIN)/buf generate --template "$$tmp/buf.gen.yaml"; \
	if ! diff -ru "$$tmp/gen" ../packages/proto/src/gen > "$$tmp/diff"; then \
	  cat "$$tmp/diff"; \
	  echo "proto-check: packages/proto/src/gen is out of date with proto/; run 'make proto' and commit the result" >&2; \
	  exit 1; \
	fi; \
	echo "proto-check: generated code matches the protos"

openapi: install ## Regenerate the gateway's OpenAPI document
	$(TS) services/gateway/scripts/openapi.ts

openapi-check: install ## Fail if the committed OpenAPI document is out of date
	$(TS) services/gateway/scripts/openapi.ts --check

client: install ## Regenerate the typed client's types and operation table from the OpenAPI document, its error codes from @mdp/errors
	$(TS) packages/client/scripts/generate.ts

client-check: install ## Fail if the typed client's generated code is out of date with the OpenAPI document or @mdp/errors
	$(TS) packages/client/scripts/generate.ts --check

python-client: install ## Regenerate the Python client's models, operation table and route methods from the OpenAPI document
	$(TS) clients/python/scripts/generate.ts

python-client-check: install ## Fail if the Python client's generated code is out of date with the OpenAPI document
	$(TS) clients/python/scripts/generate.ts --check

openapi-lint: install ## Lint the OpenAPI document with Redocly (redocly.yaml) and Spectral (.spectral.yaml); any warning fails
	npx redocly lint --format=stylish services/gateway/openapi.json
	npx spectral lint --fail-severity=warn services/gateway/openapi.json

lint: install ## Lint and check formatting (biome), and fail on exports nothing imports (knip, knip.jsonc)
	npx biome check .
	npx knip --no-progress --no-config-hints

format: install ## Fix formatting and safe lint issues (biome)
	npx biome check --write .

typecheck: install ## Type-check the whole repository (tsc)
	npx tsc -p tsconfig.json

test-unit: install ## Run the unit tests (no infrastructure needed)
	npx vitest run --project unit

test-int: test-tools install infra ## Run the integration tests against real Postgres and NATS (and the loaded platform), then the cluster's, then the reshard test and the fresh clone's timing alone
	npx vitest run --project int --project int-own-process --project platform
	npx vitest run --project int-cluster
	npx vitest run --project int-quiet
	npx vitest run --project timed

VITEST_REPORT := .local/vitest-report.json
VITEST_TIMED_REPORT := .local/vitest-timed-report.json
# The exactness and chaos tests again on a three-server JetStream cluster: a run of their own after the
# suite, so their stacks do not crowd the suite's on two cores.
VITEST_CLUSTER_REPORT := .local/vitest-cluster-report.json
# The file whose time bound is the platform's, alone (vitest.config.ts, QUIET).
VITEST_QUIET_REPORT := .local/vitest-quiet-report.json

test-tools: ## Make sure Prometheus, promtool, Chromium and helm are here for the tests: installed as root, else named with how to get them
	bash scripts/test-tools.sh ensure

test: test-tools install lint typecheck proto-check openapi-check client-check python-client-check openapi-lint infra ## Everything CI runs: checks, then unit and integration tests, then the cluster's, then the reshard test and the fresh clone's timing alone
	@mkdir -p .local && rm -f .local/test-cpu.jsonl
	npx vitest run --project unit --project int --project int-own-process --project platform --reporter=default --reporter=json --outputFile.json=$(VITEST_REPORT)
	npx vitest run --project int-cluster --reporter=default --reporter=json --outputFile.json=$(VITEST_CLUSTER_REPORT)
	npx vitest run --project int-quiet --reporter=default --reporter=json --outputFile.json=$(VITEST_QUIET_REPORT)
	npx vitest run --project timed --reporter=default --reporter=json --outputFile.json=$(VITEST_TIMED_REPORT)
	@node -e 'const rs = ["./$(VITEST_REPORT)", "./$(VITEST_CLUSTER_REPORT)", "./$(VITEST_QUIET_REPORT)", "./$(VITEST_TIMED_REPORT)"].map((f) => require(f)); const n = (k) => rs.reduce((s, r) => s + r[k], 0); console.log(`$${n("numPassedTests")} passed, $${n("numFailedTests")} failed, $${n("numPendingTests") + n("numTodoTests")} skipped`)'
	@$(TS) test/file-cpu-log.ts 15

ITERATIONS ?= 20
SUITE_RUNS ?= 0
test-stress: test-tools install infra ## The stack and chaos test files ITERATIONS (20) times in a row beside the rest of the suite; a line per iteration
	ITERATIONS=$(ITERATIONS) SUITE_RUNS=$(SUITE_RUNS) bash scripts/stress-stack.sh

bench: install infra ## CPU per request, req/s and p99 of the platform as real processes beside bare fastify and a Redis rate-limit peer, at 1, 2 and 4 ledger shards (BENCH_SHARDS), then each service's own
	$(TS) bench/run.ts
	$(TS) bench/settlement-publish.ts
	$(TS) bench/nats-messages.ts
	$(TS) bench/record-batch.ts
	$(TS) bench/metric-updates.ts
	$(TS) test/bench/gateway-path.ts
	$(TS) bench/answer-body.ts
	$(TS) bench/admission-book.ts
	$(TS) bench/shards.ts
	$(TS) services/equities-data/bench/run.ts
	$(TS) services/options-analytics/bench/run.ts
	$(TS) services/filings-reader/bench/read.ts
	$(TS) clients/python/scripts/bench.ts
	$(TS) bench/chaos.ts

bench-ledger: install infra ## The metered quote as the usage log grows (0, 10M, 50M events; BENCH_LEDGER_SIZES): req/s, p99, Postgres CPU and disk per event, ledger start-up
	$(TS) bench/ledger-volume.ts

chaos: install ## SIGKILL each process, NATS and a private Postgres in turn under load; fails on a broken invariant
	$(TS) bench/chaos.ts

clean: ## Stop the private instances, remove dist/ bundles and .local/
	bash scripts/infra.sh stop
	rm -rf services/*/dist services/*/.test-dist-* .local
