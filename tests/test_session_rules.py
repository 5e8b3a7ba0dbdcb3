"""The session rules in tests/conftest.py, run in a separate pytest on small test files:
the hypothesis ``ci`` profile bounds a test's own settings; a missing optional package
skips with the reason (module import, import inside a test, a filterwarnings category)
instead of an error or an INTERNALERROR; a missing import inside ``src/`` still fails."""

from __future__ import annotations

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
def ci_session(tmp_path_factory) -> str:
    """The output of one pytest subprocess (profile ``ci``) over CI_SESSION_FILES."""
    folder = tmp_path_factory.mktemp("ci-session")
    (folder / "conftest.py").write_text(CONFTEST)
    for name, text in CI_SESSION_FILES.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(text))
    # (not profiled as a session of its own: its CPU is this test's subprocess CPU)
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_TEST_PROFILE"}
    env.update(HYPOTHESIS_PROFILE="ci", PYTHONPATH=str(folder))
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
    return result.stdout


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


def test_a_test_past_its_deadline_fails_with_its_stack_and_the_next_one_runs(pytester):
    # the suite's own settings (pyproject: timeout, signal method), shortened to 1 s here
    pytester.makeini("[pytest]\ntimeout = 1\ntimeout_method = signal\n")
    pytester.makepyfile(
        test_hang="""
        import threading

        def test_waits_for_ever():
            threading.Event().wait()

        def test_after_it():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:xdist", timeout=60)
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*Timeout (>1.0s) from pytest-timeout*", "*test_waits_for_ever*"])


def test_the_suite_runs_with_a_deadline_on_every_test(pytestconfig):
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert float(pytestconfig.getini("timeout")) == 300
    assert pytestconfig.getini("timeout_method") == "signal"
