# The two commands: `make run` starts the whole service on this machine, `make test`
# runs the whole suite. Both set up what they need first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV  := .venv
TOOLS := .venv-tools
PY    := $(VENV)/bin/python
# Python 3.13 (the Lambda runtime) when present, from PATH or pyenv; else python3 (3.11+).
PY313 := $(shell for p in python3.13 $$HOME/.pyenv/versions/3.13*/bin/python3.13 python3; do \
           "$$p" -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1 && { echo "$$p"; break; }; done)
export SAM_CLI_TELEMETRY := 0
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# the test processes serve many threads (moto, the devstack's servers, the chain): glibc's malloc would
# give each thread an arena of its own and keep what they free; two arenas a process bound that
export MALLOC_ARENA_MAX := 2

.PHONY: help run test lint unit fuzz integration e2e browser build deploy clean openapi idl bench programs .sbf-toolchain

help:
	@echo "make run    start the whole service on 127.0.0.1 (gateway :3000, chain :8899), seeded"
	@echo "make test   run the whole test suite (sets itself up)"
	@echo "make fuzz   the programs' invariant fuzzer, long budget (FUZZ_EXAMPLES=1000, FUZZ_STEPS=40)"
	@echo "make lint   cargo fmt and clippy (programs), ruff (lint, format), mypy, cfn-lint and sam validate --lint"
	@echo "make build  sam build (no Docker; uses Python 3.13)"
	@echo "make openapi  regenerate docs/openapi.json (Swagger UI: /docs on make run), docs/openapi-platform.json"
	@echo "             (/docs/platform), the SDKs' error catalogues and the TypeScript SDK's types"
	@echo "make programs  build the SBF programs into programs/out/*.so (installs Debian's Rust/LLVM)"
	@echo "make idl    regenerate what comes from idl/*.json (the layer's copy, docs/onchain.md tables)"
	@echo "make bench  figures: bench/results.json and docs/benchmarks.md (runs make build first;"
	@echo "            BEFORE=<rev> also measures that commit's code in the same cold-start rounds)"

$(VENV)/.ready: requirements-dev.txt layers/dependencies/requirements.txt functions/account_signin/requirements.txt
	test -x $(PY) || $(PY313) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	echo "$(CURDIR)/shared" >  $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/partner-dev.pth
	echo "$(CURDIR)"        >> $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/partner-dev.pth
	printf '#!/bin/sh\nexec "%s/$(PY)" -m partnerctl "$$@"\n' "$(CURDIR)" > $(VENV)/bin/partnerctl
	chmod +x $(VENV)/bin/partnerctl
	touch $@

$(TOOLS)/.ready: requirements-tools.txt
	test -x $(TOOLS)/bin/python || python3 -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install -q -r requirements-tools.txt
	touch $@

# Debian's Chromium for the browser tests (no browser download: Playwright drives this one).
.chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi; }

# The ecosystem's Node clients for the chain-client tests (tests/node): Node 20+ (the machine's, else
# Debian's nodejs and npm) and the packages pinned in tests/node/package-lock.json (`npm ci`).
tests/node/node_modules/.ready: tests/node/package.json tests/node/package-lock.json
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; fi; }
	cd tests/node && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The TypeScript SDK's toolchain (tsc, eslint, openapi-typescript) and dependencies, pinned in
# sdks/typescript/package-lock.json; Node as for tests/node.
sdks/typescript/node_modules/.ready: sdks/typescript/package.json sdks/typescript/package-lock.json tests/node/node_modules/.ready
	cd sdks/typescript && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Debian's Rust and LLVM 22 for the on-chain programs (no rustup, no cargo, no downloads):
# rustc-web + libstd-rust-web-dev-bpf (core for bpfel-unknown-none as bitcode), llvm-22
# (llvm-link, opt, llc, llvm-ar), clang-22 (the linker tests compile small C objects).
SBF_PACKAGES := clang-22 llvm-22 rustc-web libstd-rust-web-dev-bpf cargo-web rust-web-clippy rustfmt-web
.sbf-toolchain:
	@{ test -x /usr/bin/rustc && test -d /usr/lib/rustlib/bpfel-unknown-none/lib && \
	   command -v llc-22 >/dev/null && command -v clang-22 >/dev/null && \
	   test -x /usr/bin/cargo && test -x /usr/bin/cargo-clippy && test -x /usr/bin/rustfmt; } || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SBF_PACKAGES) >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SBF_PACKAGES) >/dev/null; fi; }

# programs/<name>/src/lib.rs -> programs/out/<name>.so (skips what is up to date)
programs: $(VENV)/.ready .sbf-toolchain
	$(PY) -m tools.sbf.build

# Debian's cargo, clippy and rustfmt (cargo runs `cargo-<cmd>` from $CARGO_HOME/bin first: a rustup
# toolchain in ~/.cargo has no bpfel core, so CARGO_HOME is the build's own), checking the programs
# for their own target; nothing is fetched (no dependencies). Debian's cargo-fmt needs the crate's
# directory, not --manifest-path.
CARGO := env PATH=/usr/bin:/bin CARGO_HOME=$(CURDIR)/programs/target/cargo-home cargo
lint: $(TOOLS)/.ready $(VENV)/.ready .sbf-toolchain
	cd programs && $(CARGO) fmt --check
	$(CARGO) clippy --offline --quiet --manifest-path $(CURDIR)/programs/Cargo.toml --target bpfel-unknown-none -- -D warnings
	$(TOOLS)/bin/ruff check .
	$(TOOLS)/bin/ruff format --check .
	$(PY) -m tools.import_cycles
	$(PY) -m mypy
	$(TOOLS)/bin/cfn-lint template.yaml
	$(TOOLS)/bin/sam validate --lint --region us-east-1 --template-file template.yaml

test: $(VENV)/.ready $(TOOLS)/.ready .chromium tests/node/node_modules/.ready sdks/typescript/node_modules/.ready lint programs
	# unit tests in processes of their own: the integration and e2e workers run a devstack's timers and
	# pollers in the background, and some unit tests drive process-wide state (the AWS session)
	$(PY) -m pytest -n 2 --dist loadfile -q tests/unit
	$(PY) -m pytest -n 2 --dist loadfile -q tests --ignore=tests/unit

unit: $(VENV)/.ready
	$(PY) -m pytest -q tests/unit

# the programs' invariant fuzzer with a long budget (make test runs a bounded one); prints each
# sequence's steps, the counts per rule and instruction, and any falsifying example
FUZZ_EXAMPLES ?= 1000
FUZZ_STEPS ?= 40
fuzz: $(VENV)/.ready programs
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_STEPS=$(FUZZ_STEPS) FUZZ_VERBOSE=1 FUZZ_ERRORS=1 $(PY) -m tests.programs.fuzz_machine

openapi: $(VENV)/.ready sdks/typescript/node_modules/.ready
	$(PY) -m tools.openapi
	$(PY) -m tools.openapi_platform
	cd sdks/typescript && node scripts/generate.mjs

idl: $(VENV)/.ready
	$(PY) -m tools.idl

# RUN_ARGS: e.g. `make run RUN_ARGS="--rpc-proxy-port 8898"` (a second chain endpoint, docs/guide.md)
run: $(VENV)/.ready programs
	$(PY) -m devstack.run $(RUN_ARGS)

build: $(TOOLS)/.ready
	PATH="$$(dirname $(PY313)):$$PATH" $(TOOLS)/bin/sam build --template-file template.yaml

# BEFORE=<git rev>: also measure that commit's code in the same cold-start rounds (its own
# `sam build` for the layers column), e.g. `make bench BEFORE=e5af6ab`
bench: $(VENV)/.ready build programs
ifdef BEFORE
	rm -rf bench/out/before && mkdir -p bench/out/before && git archive $(BEFORE) | tar -x -C bench/out/before
	git rev-parse --short $(BEFORE) > bench/out/before/.rev
	cd bench/out/before && PATH="$$(dirname $(PY313)):$$PATH" $(CURDIR)/$(TOOLS)/bin/sam build --template-file template.yaml
	$(PY) -m bench.run --before bench/out/before
else
	$(PY) -m bench.run
endif

deploy: build
	$(TOOLS)/bin/sam deploy

clean:
	rm -rf .aws-sam .devstack
