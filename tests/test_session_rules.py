"""The session rules in tests/conftest.py, run in a separate pytest on small test files:
the hypothesis ``ci`` profile bounds a test's own settings; a missing optional package
skips with the reason (module import, import inside a test, a filterwarnings category)
instead of an error or an INTERNALERROR; a missing import inside ``src/`` still fails."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()


@pytest.fixture
def session(pytester):
    pytester.makeconftest(CONFTEST)
    return pytester


def test_ci_profile_caps_a_tests_own_examples(session, monkeypatch):
    session.makepyfile(
        test_prop="""
        from hypothesis import given, settings, strategies as st

        CALLS = []

        @settings(max_examples=500, deadline=None)
        @given(st.integers())
        def test_many(n):
            CALLS.append(n)

        def test_count():
            assert 0 < len(CALLS) <= 60, len(CALLS)
        """
    )
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    result = session.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["hypothesis profile: ci"])


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


def test_missing_optional_packages_skip_with_the_reason(session):
    session.makepyfile(
        test_module_import="""
        import ragas  # noqa: F401

        def test_never_collected():
            pass
        """,
        test_inside="""
        import pytest

        def test_imports_inside():
            import langchain_community  # noqa: F401

        @pytest.mark.filterwarnings("ignore::langchain_core.nowhere.BetaWarning")
        def test_filter_mark():
            pass

        def test_plain():
            pass
        """,
    )
    session.syspathinsert()
    blocker = session.makepyfile(
        blockopt="""
        import importlib.abc, sys

        class Blocker(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("ragas", "langchain_core", "langchain_community"):
                    raise ModuleNotFoundError(f"No module named '{name}'", name=name)

        sys.meta_path.insert(0, Blocker())
        """
    )
    assert blocker.exists()
    result = session.runpytest_subprocess("-p", "blockopt", "-p", "no:randomly", "-rs")
    result.assert_outcomes(passed=1, skipped=3)
    assert "INTERNALERROR" not in result.stdout.str()
    out = result.stdout.str()
    assert (
        "test_module_import.py:0: needs the optional package 'ragas' (pip install -e '.[ragas-compat-test]')"
        in out
    )
    assert "needs the optional package 'langchain_community'" in out
    assert "needs the optional package 'langchain_core'" in out


def test_an_unknown_missing_module_still_fails(session):
    session.makepyfile(
        test_typo="""
        def test_typo():
            import tooleval_no_such_module  # noqa: F401
        """
    )
    result = session.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(failed=1)
