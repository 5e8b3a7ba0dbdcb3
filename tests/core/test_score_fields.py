"""``tooleval score --fields``: result lines cut to the keys a pipeline reads.

The default stays the full line byte for byte; a preset or a list writes only
those keys, in that order, the same bytes whether the compiled kernel or
Python scored the rows, with ``--table`` and a gate still reading the whole
results.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import pytest

from tooleval.cli.main import main
from tooleval.errors import ConfigError
from tooleval.metrics.engine import ENV_DISABLE
from tooleval.scoring.fields import FieldsWriter, parse_fields, project

ROWS = [
    {"id": "ok", "tools_called": [{"name": "f", "args": {"a": 1}}], "expected_tools": ["f"]},
    {
        "id": "bad",
        "tools_called": [{"name": "f", "args": {"a": 1}}, "h"],
        "expected_tools": [{"name": "f", "args": {"a": 2}}, "g"],
    },
    {"id": "late", "tools_called": ["g", "f"], "expected_tools": ["f", "g"]},
    {"id": "none", "tools_called": [], "expected_tools": []},
    {"id": "unbound", "tools_called": ["f"], "expected_tools": None},
]
METRICS = ["--metric", "tool_correctness", "--metric", "trajectory_match"]


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in ROWS))
    return path


def _score(tmp_path: Path, *extra: str, name: str = "out.jsonl") -> tuple[int, bytes]:
    out = tmp_path / name
    code = main(["score", str(_data(tmp_path)), *METRICS, "-o", str(out), *extra])
    return code, out.read_bytes() if out.exists() else b""


@pytest.mark.parametrize("kernel", [True, False])
def test_compact_lines_are_the_full_lines_cut_whichever_engine_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: bool
) -> None:
    if not kernel:
        monkeypatch.setenv(ENV_DISABLE, "1")
    else:
        monkeypatch.delenv(ENV_DISABLE, raising=False)
    _, full = _score(tmp_path)
    _, default = _score(tmp_path, "--fields", "full", name="default.jsonl")
    assert default == full  # the default is the full line, byte for byte
    _, compact = _score(tmp_path, "--fields", "compact", name="compact.jsonl")
    lines = [json.loads(line) for line in compact.splitlines()]
    assert [list(line) for line in lines] == [["id", "metric", "score", "verdict", "code"]] * 10
    verdicts = {(x["id"], x["metric"]): (x["verdict"], x["code"]) for x in lines}
    assert verdicts[("ok", "tool_correctness")] == ("pass", "ok")
    assert verdicts[("bad", "tool_correctness")] == ("fail", "missing+extra+arguments")
    assert verdicts[("late", "trajectory_match")] == ("fail", "order")
    assert verdicts[("none", "tool_correctness")] == ("pass", "ok")
    assert verdicts[("unbound", "trajectory_match")] == ("unscored", "unscored")
    assert compact == b"".join(
        project(line + b"\n", parse_fields("compact")) for line in full.splitlines()
    )
    assert len(compact) * 4 < len(full)


@pytest.mark.parametrize(
    "fields", ["id,score,passed,reason", "diagnosis,code,verdict,params,threshold,metric"]
)
def test_both_engines_write_the_same_cut_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fields: str
) -> None:
    monkeypatch.delenv(ENV_DISABLE, raising=False)
    _, kernel = _score(tmp_path, "--fields", fields, name="k.jsonl")
    _, threads = _score(tmp_path, "--fields", fields, "--workers", "2", name="t.jsonl")
    monkeypatch.setenv(ENV_DISABLE, "1")
    _, python = _score(tmp_path, "--fields", fields, name="p.jsonl")
    _, full = _score(tmp_path, name="full.jsonl")
    assert kernel == threads == python
    cut = parse_fields(fields)
    assert python == b"".join(project(line + b"\n", cut) for line in full.splitlines())
    first = json.loads(kernel.splitlines()[0])
    assert list(first) == list(cut)


def test_table_and_gate_read_the_whole_results_under_compact_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, compact = _score(tmp_path, "--fields", "compact", "--table", "--min-pass-rate", "0.9")
    assert code == 1  # the gate still sees every verdict
    table = capsys.readouterr().out
    assert "tool_correctness" in table and "bad" in table
    assert compact.count(b"\n") == 10


def test_a_bad_field_is_refused_before_any_row(tmp_path: Path) -> None:
    code, written = _score(tmp_path, "--fields", "id,scor")
    assert code == 2 and written == b""
    for text in ("", "id,id", "compact,id", "id,,score"):
        with pytest.raises(ConfigError, match="--fields"):
            parse_fields(text)


def test_the_writer_cuts_lines_that_arrive_in_pieces() -> None:
    sink = io.BytesIO()
    writer = FieldsWriter(sink, ("score", "id"))
    line = b'{"id":"a","metric":"m","score":1.0,"passed":true}\n'
    for piece in (line[:7], line[7:] + line[:20], line[20:]):
        assert writer.write(piece) == len(piece)
    writer.flush()
    assert sink.getvalue() == b'{"score":1.0,"id":"a"}\n' * 2
