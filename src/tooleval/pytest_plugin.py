"""pytest plugin: one test per dataset row, plus ``assert_tool_calls``.

Enabled by the ``pytest11`` entry point once tooleval is installed (or with
``-p tooleval.pytest_plugin``). Two ways to parametrize over a dataset::

    from tooleval.pytest_plugin import tooleval_cases
    from tooleval.testing import assert_tool_calls

    @pytest.mark.parametrize("case", tooleval_cases("cases.jsonl"))
    def test_agent(case):
        assert_tool_calls(case.expected_tools, my_agent(case.user_input()))  # truth first

    @pytest.mark.tooleval_dataset("cases.jsonl", bind={"expected_tools": "gold"})
    def test_agent_too(tooleval_case):          # the Sample of one row
        ...

Test ids are the rows' ids; relative paths resolve from the test file's
folder. A row whose cells cannot be read becomes a skipped test whose reason
(``row could not be read: ...``, as runs store it; see :mod:`tooleval.scoring`)
names the row and column (it is never dropped silently). A dataset that
cannot be read at all, or a bad ``bind`` (an unknown field or column, with
the likely one), is a collection error naming the marker (the message alone,
no traceback) and no test runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

__all__ = ["tooleval_cases"]


def _resolve(path: str | Path, base: Path | None) -> Path:
    candidate = Path(path)
    if candidate.is_absolute() or base is None:
        return candidate
    beside = base / candidate
    return beside if beside.exists() or not candidate.exists() else candidate


def tooleval_cases(
    path: str | Path, *, bind: Mapping[str, str] | None = None, base: Path | None = None
) -> list[Any]:
    """``pytest.param`` per dataset row (the row's Sample), with the row id as test id."""
    from tooleval.datasets import load_dataset
    from tooleval.scoring import UNREADABLE

    if base is None:
        caller = inspect.stack()[1].filename
        base = Path(caller).resolve().parent if caller and not caller.startswith("<") else None
    dataset = load_dataset(_resolve(path, base), bind=bind)
    params = []
    for row in dataset.rows:
        marks = [pytest.mark.skip(reason=f"{UNREADABLE}: {row.error}")] if row.error else []
        params.append(pytest.param(row.sample, id=str(row.row_id), marks=marks))
    return params


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "tooleval_dataset(path, bind=None): run the test once per row of a tooleval dataset "
        "(the row's Sample is the `tooleval_case` argument)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("tooleval_dataset")
    if marker is None or "tooleval_case" not in metafunc.fixturenames:
        return
    if not marker.args:
        raise pytest.UsageError("@pytest.mark.tooleval_dataset needs a dataset path")
    from tooleval.errors import ToolEvalError

    base = Path(str(metafunc.definition.path)).parent
    try:
        cases = tooleval_cases(marker.args[0], bind=marker.kwargs.get("bind"), base=base)
    except ToolEvalError as exc:  # a bad path or bind: said once, before any test runs
        raise pytest.Collector.CollectError(  # shown as its message alone, no traceback
            f"@pytest.mark.tooleval_dataset({marker.args[0]!r}) on {metafunc.definition.nodeid}: "
            f"{exc}"
        ) from None
    metafunc.parametrize("tooleval_case", cases)
