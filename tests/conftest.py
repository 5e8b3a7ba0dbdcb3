"""Fixtures and test-session rules shared by every test area.

- **Hypothesis profiles.** ``ci`` (selected by ``CI=true``, by ``make test``, or by
  ``HYPOTHESIS_PROFILE=ci``) bounds every property test: at most
  ``CI_MAX_EXAMPLES`` examples, derandomized (the same examples on every run), a
  generous per-example deadline, and no "too slow" health check, which a shared CPU
  trips. The bounds cap a test's own ``@settings`` too: several tests ask for 300-600
  examples, which took up to 123 s each on a loaded machine. ``dev`` (the default
  otherwise) keeps each test's own settings, for exploring locally.
- **Missing optional dependencies skip, with the reason.** A test module or a test
  that imports a package which is not installed (``ray``, ``ragas``,
  ``langchain_core``, ...) is reported as skipped, naming the package and the extra
  that installs it, instead of an error (not when the import happens inside ``src/``:
  that is a bug); a ``filterwarnings`` mark naming a warning class from such a
  package (which pytest would turn into an INTERNALERROR that ends the whole session)
  skips its test the same way.
- **Where the time goes.** With ``TOOLEVAL_TEST_PROFILE=DIR`` each process (each xdist
  worker) writes the CPU seconds (its own, and its finished subprocesses') and the wall
  seconds of every test file to ``DIR``, and the session ends with the costliest files.
  Session fixtures are charged to the first test that asks for them.
- **Parallel runs.** ``make test`` runs ``pytest -n 2`` (pytest-xdist). Every
  resource a test shares is per worker: the PostgreSQL server, the Ray cluster and
  the viewer are session fixtures (one per worker, each on a free 127.0.0.1 port,
  data in a temporary directory), and files go to ``tmp_path`` (per test).
- **Costliest files first.** ``make test`` hands whole files to the workers
  (``--dist loadfile --no-loadscope-reorder``) in the order of the items, and the items
  are ordered by each file's measured seconds, longest first (``tests/file_costs.json``;
  files not in it keep their order, after the others): the longest-processing-time
  rule, so that no worker is left with one long file while the other sits idle.
  ``TOOLEVAL_TEST_PROFILE=DIR`` also writes ``DIR/file_costs.json`` in that file's
  shape; copy it over ``tests/file_costs.json`` when the suite's costs have moved.
- **Every test has a deadline** (pytest-timeout, ``timeout`` in pyproject). With
  ``TOOLEVAL_FAILURES_FILE=PATH`` the session (the controller, under xdist) appends one
  JSON line per failed test phase to ``PATH``: ``{"nodeid", "when", "hung"}``, ``hung``
  when the test failed by passing its deadline. ``make test`` hands the file to
  ``.ci/rerun_hung.py``, which runs such tests once more in a fresh pytest when nothing
  else failed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
# ../shared/data next to the repository, or where TOOLEVAL_SHARED_DATA points (a work tree
# that does not sit beside the shared folder).
SHARED_DATA = Path(os.environ.get("TOOLEVAL_SHARED_DATA") or REPO_ROOT.parent / "shared" / "data")
SRC = REPO_ROOT / "src"
# Test files that take seconds each (subprocesses, signals, big inputs): `make check` skips
# them, `make test` runs them. Measured with `pytest --durations`; see docs/contributing.md.
SLOW_FILES: tuple[str, ...] = (
    "tests/compat/test_ragas_differential.py",  # imports ragas, 10,000 random samples
    "tests/monitor/test_instrumented.py",  # real OpenAI / LangGraph instrumentation
    "tests/monitor/test_serve.py",  # receivers in subprocesses, SIGTERM
    "tests/runs/test_concurrency_and_signals.py",  # two processes, signals, leases
    "tests/runs/test_resume.py",  # SIGINT / SIGTERM / SIGKILL mid-run
    "tests/runs/test_testing.py",  # pytest in a subprocess
    "tests/examples/test_ci_agent.py",  # the worked example end to end
    "tests/test_session_rules.py",  # pytest sessions in subprocesses
    "tests/conformance/test_tau_bench_replay.py",  # 200 tau-bench runs replayed
    "tests/monitor/test_restart.py",  # receivers stopped and started in subprocesses
    "tests/stats/test_oracles.py",  # bootstrap and permutation oracles (scipy, statsmodels)
    "tests/connectors/test_attempt_deadline.py",  # servers that drip-feed until the deadline
    "tests/llm/test_judge_deadline.py",  # judges that drip-feed until the deadline
    "tests/judged/test_shipped_sets_parse.py",  # the local judge on every shipped set's row
    "tests/scoring/test_one_pipeline.py",  # hostile rows through every entry point
    "tests/store/test_disk_full.py",  # runs under ulimit -f in subprocesses
    "tests/core/test_cli_init.py",  # scaffolds run by tooleval and pytest in subprocesses
)
# Single tests of seconds in files that are otherwise quick (file::name).
SLOW_TESTS: frozenset[str] = frozenset(
    {
        "tests/core/test_adversarial_readers.py::test_a_deep_otlp_document_is_a_named_problem_not_out_of_memory",
        "tests/core/test_adversarial_readers.py::test_trace_sessions_with_nothing_read_is_exit_2_not_an_empty_listing",
        "tests/core/test_file_commands_contract.py::test_20_a_hard_partial_order_row_is_unscored_with_the_reason",
    }
)

CI_MAX_EXAMPLES = 60
# Per example, a guard against a runaway example rather than a timing check: generous
# enough for a fuzz example that runs a CLI subprocess on a loaded 2-core machine.
CI_DEADLINE = timedelta(seconds=30)

# Optional packages the tests import, and the pyproject extra that installs each.
OPTIONAL_EXTRAS = {
    "ray": "ray",
    "pyarrow": "parquet",
    "psycopg": "postgres",
    "openai": "judge",
    "gguf": "local",
    "tokenizers": "local",
    "numpy": "local",
    "fastapi": "web",
    "uvicorn": "web",
    "jinja2": "web",
    "opentelemetry": "otel",
    "ijson": "otel",
    "ragas": "ragas-compat-test",
    "langchain": "ragas-compat-test",
    "langchain_core": "ragas-compat-test",
    "langchain_community": "ragas-compat-test",
    "langchain_openai": "ragas-compat-test",
    "langgraph": "ragas-compat-test",
    "openinference": "otel",
    "playwright": "dev",
    "hypothesis": "dev",
}
_MISSING = re.compile(r"No module named '([\w.]+)'")


def _install_hint(module: str) -> str:
    top = module.split(".")[0]
    extra = OPTIONAL_EXTRAS.get(top)
    where = f"pip install -e '.[{extra}]'" if extra else "it is not installed"
    return f"needs the optional package {top!r} ({where})"


def _register_hypothesis_profiles() -> str | None:
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:
        return None
    settings.register_profile(
        "ci",
        max_examples=CI_MAX_EXAMPLES,
        deadline=CI_DEADLINE,
        derandomize=True,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile("dev")
    if os.environ.get("HYPOTHESIS_PROFILE"):
        name = os.environ["HYPOTHESIS_PROFILE"]
    else:
        name = "ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"
    settings.load_profile(name)
    return name


HYPOTHESIS_PROFILE = _register_hypothesis_profiles()


def pytest_report_header(config: pytest.Config) -> str:
    return f"hypothesis profile: {HYPOTHESIS_PROFILE or 'hypothesis not installed'}"


def _bound_hypothesis_test(function: object) -> None:
    """Cap a property test's own ``@settings`` at the ``ci`` profile's bounds."""
    from hypothesis import HealthCheck, settings

    own = getattr(function, "_hypothesis_internal_use_settings", None)
    if own is None:
        return
    deadline = own.deadline
    if deadline is None or deadline > CI_DEADLINE:
        deadline = CI_DEADLINE
    checks = {*own.suppress_health_check, HealthCheck.too_slow}
    function._hypothesis_internal_use_settings = settings(  # type: ignore[attr-defined]
        own,
        max_examples=min(own.max_examples, CI_MAX_EXAMPLES),
        deadline=deadline,
        derandomize=True,
        suppress_health_check=list(checks),
    )


def _missing_warning_module(mark: pytest.Mark) -> str | None:
    """The module a ``filterwarnings`` mark's category needs, when it cannot be imported."""
    for arg in mark.args:
        parts = str(arg).split(":")
        category = parts[2].strip() if len(parts) > 2 else ""
        if "." not in category:
            continue
        module = category.rsplit(".", 1)[0]
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            found = None
        if found is None:
            return module
    return None


# What `make check` leaves out, told by what a test uses (fixtures, hypothesis), so a new
# test is marked without anyone remembering to: (marker, fixtures that imply it).
_FIXTURE_MARKS = (
    ("browser", {"page", "browser", "viewer_url"}),
    ("postgres", {"pg_url"}),
    ("ray", {"ray_cluster"}),
)


def _mark_by_what_it_needs(item: pytest.Item, function: object) -> None:
    fixtures = set(getattr(item, "fixturenames", ()))
    for marker, implied in _FIXTURE_MARKS:
        if fixtures & implied:
            item.add_marker(marker)
    if getattr(function, "is_hypothesis_test", False):
        item.add_marker("property")
    if item.path.name.startswith("test_browser"):
        item.add_marker("browser")
    where = (
        item.path.relative_to(REPO_ROOT).as_posix() if item.path.is_relative_to(REPO_ROOT) else ""
    )
    name = getattr(item, "originalname", item.name)
    if where in SLOW_FILES or f"{where}::{name}" in SLOW_TESTS:
        item.add_marker("slow")


FILE_COSTS = Path(__file__).with_name("file_costs.json")


def _file_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def _costliest_first(items: list[pytest.Item]) -> None:
    """Order ``items`` by their file's measured seconds, longest first (a stable sort)."""
    try:
        costs = json.loads(FILE_COSTS.read_text())
    except (OSError, ValueError):
        return
    if not isinstance(costs, dict):
        return
    items.sort(key=lambda item: -float(costs.get(_file_of(item), 0.0)))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _costliest_first(items)
    bounded: set[int] = set()
    for item in items:
        for mark in list(item.iter_markers("filterwarnings")):
            module = _missing_warning_module(mark)
            if module is not None:
                # Drop the mark first: pytest would raise on it before any skip is seen.
                item.own_markers[:] = [m for m in item.own_markers if m is not mark]
                item.add_marker(pytest.mark.skip(reason=_install_hint(module)))
        function = getattr(item, "obj", None)
        _mark_by_what_it_needs(item, function)
        if (
            HYPOTHESIS_PROFILE == "ci"
            and getattr(function, "is_hypothesis_test", False)
            and id(function) not in bounded
        ):
            bounded.add(id(function))
            _bound_hypothesis_test(function)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """A test module that cannot import an optional package is skipped, with the reason."""
    report = yield
    if report.failed and isinstance(collector, pytest.Module):
        found = _MISSING.search(str(report.longrepr))
        if found and found.group(1).split(".")[0] in OPTIONAL_EXTRAS:
            report.outcome = "skipped"
            report.longrepr = (str(collector.path), 0, f"Skipped: {_install_hint(found.group(1))}")
            report.result = []
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A test whose own import of an optional package fails is skipped, with the reason.

    Only when no frame of ``src/`` is involved: tooleval importing a package it does
    not declare is a bug, and stays a failure.
    """
    report = yield
    excinfo = call.excinfo
    if report.failed and excinfo is not None and excinfo.errisinstance(ModuleNotFoundError):
        name = getattr(excinfo.value, "name", None) or ""
        in_src = any(Path(str(entry.path)).is_relative_to(SRC) for entry in excinfo.traceback)
        if name.split(".")[0] in OPTIONAL_EXTRAS and not in_src:
            report.outcome = "skipped"
            report.longrepr = (
                str(item.path),
                item.location[1] or 0,
                f"Skipped: {_install_hint(name)}",
            )
    return report


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The public third-party data in ``../shared/data`` (skips when absent)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"third-party data not found at {SHARED_DATA}; these conformance tests need ../shared/data"
        )
    return SHARED_DATA


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    """One real PostgreSQL server per process (per xdist worker), started on first use.

    Its URL names the database ``tooleval_test``; test areas' ``pg_url`` fixtures create
    databases of their own on it (``tests.pg_server.create_database``). Skips when no
    PostgreSQL server binaries are installed.
    """
    from tests.pg_server import PostgresUnavailable, postgres_server

    try:
        with postgres_server() as url:
            yield url
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


# --- TOOLEVAL_FAILURES_FILE: each failed test phase, and whether it hung -----------------------
# Taken out of the environment: a pytest that a test starts (a subprocess, pytester) must never
# write its own deliberate failures into the outer suite's file, where rerun_hung.py would read
# them as real failures and then rerun no hang.
FAILURES_FILE = os.environ.pop("TOOLEVAL_FAILURES_FILE", None)
HUNG = re.compile(r"Timeout \(>[0-9.]+s\) from pytest-timeout")


_IN_WORKER = [False]


def pytest_configure(config: pytest.Config) -> None:
    # an xdist worker has workerinput (PYTEST_XDIST_WORKER would also be set in a pytest
    # that a test starts from inside a worker)
    _IN_WORKER[0] = hasattr(config, "workerinput")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # the controller sees every worker's reports: one writer, no duplicates
    if not FAILURES_FILE or not report.failed or _IN_WORKER[0]:
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", "") or str(report.longrepr)[-2000:]
    line = {"nodeid": report.nodeid, "when": report.when, "hung": bool(HUNG.search(message))}
    Path(FAILURES_FILE).parent.mkdir(parents=True, exist_ok=True)
    with open(FAILURES_FILE, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


# --- TOOLEVAL_TEST_PROFILE: CPU and wall seconds per test file -------------------------------
PROFILE_DIR = os.environ.get("TOOLEVAL_TEST_PROFILE")
_PROFILE: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if not PROFILE_DIR:
        return (yield)
    cpu, children, wall = time.process_time(), _children_cpu(), time.perf_counter()
    try:
        return (yield)
    finally:
        spent = _PROFILE[_file_of(item)]
        spent[0] += time.process_time() - cpu
        spent[1] += _children_cpu() - children
        spent[2] += time.perf_counter() - wall


def pytest_sessionfinish(session: pytest.Session) -> None:
    if PROFILE_DIR and _PROFILE:
        folder = Path(PROFILE_DIR)
        folder.mkdir(parents=True, exist_ok=True)
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        (folder / f"{name}-{os.getpid()}.json").write_text(json.dumps(dict(_PROFILE)))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not PROFILE_DIR or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    total: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for part in Path(PROFILE_DIR).glob("*-*.json"):  # the workers' files
        for where, spent in json.loads(part.read_text()).items():
            total[where] = [a + b for a, b in zip(total[where], spent, strict=True)]
    ranked = sorted(total.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    cpu = sum(s[0] + s[1] for s in total.values())
    # each file's wall seconds (what a worker is busy for), the shape of tests/file_costs.json
    walls = sorted(total.items(), key=lambda kv: -kv[1][2])
    costs = {where: round(spent[2], 1) for where, spent in walls if spent[2] >= 0.5}
    (Path(PROFILE_DIR) / "file_costs.json").write_text(json.dumps(costs, indent=1) + "\n")
    terminalreporter.section(f"CPU per test file (TOOLEVAL_TEST_PROFILE, {cpu:.0f} CPU-s in all)")
    terminalreporter.write_line(f"{'cpu-s':>7} {'own':>7} {'subproc':>7} {'wall-s':>7}  file")
    for where, (own, children, wall) in ranked[:50]:
        terminalreporter.write_line(
            f"{own + children:7.1f} {own:7.1f} {children:7.1f} {wall:7.1f}  {where}"
        )
