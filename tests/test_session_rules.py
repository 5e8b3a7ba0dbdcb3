"""The session rules in tests/conftest.py, run in a separate pytest on small test files:
the hypothesis ``ci`` profile bounds a test's own settings; a missing optional package
skips with the reason (module import, import inside a test, a filterwarnings category)
instead of an error or an INTERNALERROR; a missing import inside ``src/`` still fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()


@pytest.fixture
def session(pytester):
    pytester.makeconftest(CONFTEST)
    return pytester


def test_dev_profile_keeps_a_tests_own_settings(session, monkeypatch):
    session.makepyfile(
        test_prop="""
        from hypothesis import given, settings, strategies as st

        CALLS = []

        @settings(max_examples=150, deadline=None, database=None)
        @given(st.integers())
        def test_many(n):
            CALLS.append(n)

        def test_count():
            assert len(CALLS) > 60, len(CALLS)
        """
    )
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "dev")
    result = session.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


# The ci-profile checks, the missing-package checks and the typo check share one pytest
# subprocess (the packages are blocked for the whole session; the profile test imports none).
CI_SESSION_FILES = {
    "test_prop": """
        from hypothesis import given, settings, strategies as st

        CALLS = []

        @settings(max_examples=500, deadline=None)
        @given(st.integers())
        def test_many(n):
            CALLS.append(n)

        def test_count():
            assert 0 < len(CALLS) <= 60, len(CALLS)
        """,
    "test_module_import": """
        import ragas  # noqa: F401

        def test_never_collected():
            pass
        """,
    "test_inside": """
        import pytest

        def test_imports_inside():
            import langchain_community  # noqa: F401

        @pytest.mark.filterwarnings("ignore::langchain_core.nowhere.BetaWarning")
        def test_filter_mark():
            pass

        def test_plain():
            pass
        """,
    "test_typo": """
        def test_typo():
            import tooleval_no_such_module  # noqa: F401
        """,
    "blockopt": """
        import importlib.abc, sys

        class Blocker(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("ragas", "langchain_core", "langchain_community"):
                    raise ModuleNotFoundError(f"No module named '{name}'", name=name)

        sys.meta_path.insert(0, Blocker())
        """,
}


@pytest.fixture(scope="module")
def ci_run(tmp_path_factory) -> tuple[str, Path]:
    """The output of one pytest subprocess (profile ``ci``) over CI_SESSION_FILES, and the
    failures file it recorded (``TOOLEVAL_FAILURES_FILE``, given to it alone)."""
    folder = tmp_path_factory.mktemp("ci-session")
    failures = folder / "failures.jsonl"
    (folder / "conftest.py").write_text(CONFTEST)
    for name, text in CI_SESSION_FILES.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(text))
    # (not profiled as a session of its own: its CPU is this test's subprocess CPU)
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_TEST_PROFILE"}
    env.update(
        HYPOTHESIS_PROFILE="ci", PYTHONPATH=str(folder), TOOLEVAL_FAILURES_FILE=str(failures)
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "blockopt", "-p", "no:randomly"]
        + ["-p", "no:cacheprovider", "-rA", f"--basetemp={folder / 'tmp'}"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "INTERNALERROR" not in result.stdout, result.stdout[-3000:]
    return result.stdout, failures


@pytest.fixture(scope="module")
def ci_session(ci_run) -> str:
    return ci_run[0]


@pytest.fixture(scope="module")
def ci_failures(ci_run) -> Path:
    return ci_run[1]


def test_ci_profile_caps_a_tests_own_examples(ci_session):
    assert "hypothesis profile: ci" in ci_session
    assert "PASSED test_prop.py::test_many" in ci_session
    assert "PASSED test_prop.py::test_count" in ci_session


def test_missing_optional_packages_skip_with_the_reason(ci_session):
    assert "PASSED test_inside.py::test_plain" in ci_session
    skipped = [line for line in ci_session.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 3, skipped
    assert (
        "test_module_import.py:0: needs the optional package 'ragas' (pip install -e '.[ragas-compat-test]')"
        in ci_session
    )
    assert "needs the optional package 'langchain_community'" in ci_session
    assert "needs the optional package 'langchain_core'" in ci_session
    # every test of the session is accounted for: 3 passed, 3 skipped and the typo failed
    assert "1 failed, 3 passed, 3 skipped" in ci_session.splitlines()[-1], ci_session[-500:]


def test_an_unknown_missing_module_still_fails(ci_session):
    assert "FAILED test_typo.py::test_typo" in ci_session


def test_the_suite_runs_with_a_deadline_on_every_test(pytestconfig):
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert float(pytestconfig.getini("timeout")) == 300
    assert pytestconfig.getini("timeout_method") == "signal"


RERUN_HUNG = Path(__file__).parents[1] / ".ci" / "rerun_hung.py"
FLAKY = """
import threading
from pathlib import Path

def test_hangs_the_first_time():
    mark = Path.cwd() / "hung-once"  # the suite and its rerun run in the same folder
    if not mark.exists():
        mark.touch()
        threading.Event().wait()

def test_passes():
    pass
"""


def _suite_then_rerun(folder: Path, tests: str) -> tuple[str, int, str, list[dict]]:
    """A pytest session over ``tests`` recording its failures, then .ci/rerun_hung.py:
    the suite's output, and the rerun's status, output and the failures recorded."""
    _hung_folder(folder, tests)
    failures = folder / "failures.jsonl"
    env = {**os.environ, "TOOLEVAL_FAILURES_FILE": str(failures)}
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-p", "no:xdist", f"--basetemp={folder / 'tmp'}"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    recorded = [json.loads(line) for line in failures.read_text().splitlines()]
    code, out = _rerun(folder, suite.returncode, failures)
    return suite.stdout, code, out, recorded


def _hung_folder(folder: Path, tests: str) -> None:
    folder.mkdir()
    (folder / "conftest.py").write_text(CONFTEST)
    # the suite's own settings (pyproject: timeout, signal method), shortened to 1 s here
    (folder / "pytest.ini").write_text("[pytest]\ntimeout = 1\ntimeout_method = signal\n")
    (folder / "test_cases.py").write_text(tests)


def _rerun(folder: Path, status: int, failures: Path) -> tuple[int, str]:
    env = {**os.environ, "TOOLEVAL_FAILURES_FILE": str(failures)}
    rerun = subprocess.run(
        [sys.executable, str(RERUN_HUNG), str(status), str(failures),
         str(Path(sys.executable).with_name("pytest"))],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return rerun.returncode, rerun.stdout + rerun.stderr


# Each inner pytest costs a second or more of start-up (and of waiting for a hang): one
# suite and its rerun serve the deadline and the hung-once cases; the other cases start
# from failure records (the conftest's recording is checked here and in the ci session).
@pytest.fixture(scope="module")
def hung_suite(tmp_path_factory) -> tuple[str, int, str, list[dict]]:
    return _suite_then_rerun(tmp_path_factory.mktemp("hung") / "suite", FLAKY)


def test_a_test_past_its_deadline_fails_with_its_stack_and_the_next_one_runs(hung_suite):
    suite, _, _, _ = hung_suite
    assert "1 failed, 1 passed" in suite.splitlines()[-1], suite[-2000:]
    assert "Timeout (>1.0s) from pytest-timeout" in suite
    assert "test_hangs_the_first_time" in suite


def test_a_test_that_hung_once_is_rerun_in_a_fresh_pytest_and_passes(hung_suite):
    _, code, out, recorded = hung_suite
    assert recorded == [
        {"nodeid": "test_cases.py::test_hangs_the_first_time", "when": "call", "hung": True}
    ]
    assert code == 0, out
    assert "1 test(s) passed their deadline" in out and "test_hangs_the_first_time" in out
    assert "passed the second time" in out


def test_a_test_that_hangs_every_time_fails_the_suite(tmp_path):
    folder = tmp_path / "suite"
    _hung_folder(folder, "import threading\n\ndef test_always():\n    threading.Event().wait()\n")
    failures = folder / "failures.jsonl"
    failures.write_text(
        json.dumps({"nodeid": "test_cases.py::test_always", "when": "call", "hung": True}) + "\n"
    )
    code, out = _rerun(folder, 1, failures)
    assert code == 1 and "failed again" in out


def test_an_ordinary_failure_is_never_rerun_and_keeps_the_hung_ones_from_a_rerun(
    ci_session, ci_failures, tmp_path
):
    # the ci session's typo is an ordinary failure, recorded as one
    recorded = [json.loads(line) for line in ci_failures.read_text().splitlines()]
    assert {r["nodeid"]: r["hung"] for r in recorded} == {"test_typo.py::test_typo": False}
    hung = {"nodeid": "test_cases.py::test_hangs_the_first_time", "when": "call", "hung": True}
    failures = tmp_path / "failures.jsonl"
    failures.write_text(ci_failures.read_text() + json.dumps(hung) + "\n")
    code, out = _rerun(tmp_path, 1, failures)
    assert code == 1 and "not rerunning the 1 hung test(s)" in out


@pytest.mark.parametrize(("status", "expected"), [(0, 0), (2, 2), (5, 5)])
def test_any_status_but_a_failure_passes_through(tmp_path, status, expected):
    done = subprocess.run(
        [sys.executable, str(RERUN_HUNG), str(status), str(tmp_path / "none.jsonl"), "pytest"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == expected


def test_a_failed_suite_with_no_record_or_a_bad_one_is_not_passed(tmp_path):
    def rerun(text: str | None) -> subprocess.CompletedProcess:
        path = tmp_path / "f.jsonl"
        if text is not None:
            path.write_text(text)
        return subprocess.run(
            [sys.executable, str(RERUN_HUNG), "1", str(path), "pytest"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip

    assert rerun(None).returncode == 1
    bad = rerun('{"nodeid": "x"}\n')
    assert bad.returncode == 2 and "line 1: not a failure record" in bad.stderr


def test_no_test_process_carries_the_outer_failures_file(session):
    """An inner pytest started by a test (this module starts several) inherits this process's
    environment: the suite's failures file is taken out of it at start, so an inner session's
    deliberate failures never land among the suite's own (rerun_hung.py would then rerun no hang)."""
    assert "TOOLEVAL_FAILURES_FILE" not in os.environ
    outer = session.path / "outer-failures.jsonl"
    session.makepyfile(test_inner="def test_fails():\n    assert False\n")
    inner = subprocess.run(
        [sys.executable, "-c",
         "import os, subprocess, sys;"
         "os.environ['TOOLEVAL_FAILURES_FILE'] = sys.argv[1];"
         "import conftest;"
         "print('TOOLEVAL_FAILURES_FILE' in os.environ, conftest.FAILURES_FILE == sys.argv[1])",
         str(outer)],
        cwd=session.path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    # the conftest keeps the file for its own session and leaves it out of every child's env
    assert inner.stdout.split() == ["False", "True"], inner.stdout + inner.stderr
