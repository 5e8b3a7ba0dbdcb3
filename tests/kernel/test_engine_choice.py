"""Which engine ``fastest_engine`` gives, and the pure-Python engine every install has.

These run with or without the compiled kernel: a missing kernel is simulated.
"""

from __future__ import annotations

import orjson
import pytest

from tooleval.metrics import bind
from tooleval.metrics import engine as engine_module
from tooleval.metrics.engine import fastest_engine, kernel_status
from tooleval.scoring import score_line

ROW = {"id": "a", "tools_called": [{"name": "f", "args": {"x": 1}}], "expected_tools": ["f"]}


@pytest.fixture
def no_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine where the kernel was never built."""
    monkeypatch.delenv(engine_module.ENV_DISABLE, raising=False)
    monkeypatch.setattr(engine_module, "_loaded", [None])
    monkeypatch.setattr(engine_module, "_noticed", [])


def _python(metric, lines):
    return b"".join(
        score_line(metric, n, line) for n, line in enumerate(lines, start=1) if line.strip()
    )


def test_without_the_kernel_scores_in_python_and_says_so_once(no_kernel, monkeypatch, capsys):
    monkeypatch.setattr(engine_module, "_NOTICE_ROWS", 3)
    metric = bind("tool_call_accuracy")
    engine = fastest_engine(metric)
    assert kernel_status() == "absent"
    assert not engine.compiled and engine.eligible
    lines = [orjson.dumps(ROW) + b"\n"] * 5 + [b"  \n"]
    got = b"".join(engine.score_lines(lines, lambda n, line: score_line(metric, n, line)))
    assert got == _python(metric, lines)
    again = fastest_engine(metric)
    b"".join(again.score_lines(lines, lambda n, line: score_line(metric, n, line)))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiled kernel" in err
    # a remedy a pip user can act on (no checkout, no make)
    assert "https://rustup.rs" in err and "pip" in err and "make" not in err


def test_no_notice_for_a_small_file_or_a_metric_the_kernel_never_takes(no_kernel, capsys):
    metric = bind("tau2_actions")
    engine = fastest_engine(metric)
    assert not engine.eligible
    small = fastest_engine(bind("tool_call_f1"))
    lines = [orjson.dumps(ROW) + b"\n"] * 3
    b"".join(small.score_lines(lines, lambda n, line: b"x\n"))
    assert capsys.readouterr().err == ""


def test_disabled_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine_module.ENV_DISABLE, "1")
    assert kernel_status() == "disabled"
    engine = fastest_engine(bind("tool_call_accuracy"))
    assert not engine.compiled and not engine.eligible


def test_a_file_without_a_final_newline_keeps_its_last_row(tmp_path) -> None:
    metric = bind("trajectory_match")
    path = tmp_path / "rows.jsonl"
    path.write_bytes(orjson.dumps(ROW) + b"\n\n" + orjson.dumps(ROW))
    with path.open("rb") as source:
        got = b"".join(
            fastest_engine(metric).score_lines(source, lambda n, line: score_line(metric, n, line))
        )
    assert got.count(b"\n") == 2
    assert got == _python(metric, path.read_bytes().splitlines(keepends=True))
