# Names vulture reports as unused in src/tooleval that are used from outside
# Python's call graph (protocols, frameworks, decorators, module hooks).
# `make test` runs vulture ([tool.vulture] in pyproject.toml) and fails on any
# finding under src/ (tests and bench count as callers). Decorated routes and
# SQLAlchemy compilers are skipped by ignore_decorators there.
# This file is read by vulture only; it is never imported.
# ruff: noqa
_ = object()

# module-level __getattr__/__dir__: lazy names of tooleval and tooleval.store (PEP 562)
__getattr__
__dir__

# cli/main.py: the documented exit codes, named even where a number is returned
EXIT_GATE_FAILED

# compat/ragas/metrics.py: ragas' metric protocol (keyword and method names ragas calls)
callbacks
_.abatch_score

# traces/files.py: io.RawIOBase protocol of the gunzip and replay streams
_.readable
_.readinto

# judge/gguf_text.py: a tokenizers.Tokenizer attribute set for the library to use
_.pre_tokenizer

# benchmarks/bfcl/checker.py: a field of the Verdict record (which call failed)
call_index

# monitor/serve.py: http.server's handler and server API
_.daemon_threads
protocol_version
_.log_message
_.do_GET
_.do_POST
_.close_connection

# pytest_plugin.py: pytest hooks (registered through the pytest11 entry point)
pytest_configure
pytest_generate_tests

# store/engine.py: sqlite3 connection attribute set for SQLAlchemy's pysqlite dialect
_.isolation_level

# store/search_index.py: SQLAlchemy's cache flag on a custom SQL construct
inherit_cache
