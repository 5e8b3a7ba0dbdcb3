"""A third-party benchmark, installed from a distribution that is only an entry point.

The toy package is written to a temporary folder with its own
``*.dist-info/entry_points.txt`` (group ``tooleval.benchmarks``) and put on
the subprocess's ``PYTHONPATH``: no tooleval source is edited. It is then
scored with ``tooleval score --format toy``, found by detection, and listed by
``tooleval metrics``, its metric registered through its record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOY_PACKAGE = '''
"""A toy benchmark: {"toy_rows": [{"q": id, "want": [names], "got": [names]}]}."""

import json
from pathlib import Path

from tooleval.benchmarks import Benchmark, unreadable
from tooleval.errors import DatasetError
from tooleval.model import ExpectedTools, MetricInfo, Param, Result, Sample, ToolCall


def toy_exact(sample, *, strict=True):
    want = [c.name for c in sample.expected_tools.calls]
    got = [c.name for c in sample.actual_calls()]
    same = want == got if strict else sorted(want) == sorted(got)
    return Result.scored("toy_exact", 1.0 if same else 0.0, reason=f"{got} vs {want}",
                         params={"strict": strict})


def read(path, data=None):
    try:
        doc = json.loads(Path(path).read_text())
        rows = doc["toy_rows"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"not a toy file: {exc}", path=str(path)) from None
    for index, row in enumerate(rows):
        if not isinstance(row.get("got"), list):
            yield unreadable(row.get("q", index), "field got: expected a list of names")
            continue
        yield Sample(
            id=str(row["q"]),
            tools_called=[ToolCall(n) for n in row["got"]],
            expected_tools=ExpectedTools(tuple(ToolCall(n) for n in row["want"])),
        )


BENCHMARK = Benchmark(
    name="toy",
    title="Toy",
    aliases=("toy-bench",),
    description="a toy results JSON object",
    read=read,
    default_metric="toy_exact",
    metrics=(
        MetricInfo(
            name="toy_exact",
            description="the toy benchmark's own verdict: the same tool names",
            params={"strict": Param(True, "order matters")},
            requires=("tools_called", "expected_tools"),
            needs_judge=False,
            score_sample=toy_exact,
        ),
    ),
    detect=lambda value: isinstance(value, dict) and isinstance(value.get("toy_rows"), list),
    docs="https://example.org/toy",
)
'''


@pytest.fixture(scope="module")
def toy_env(tmp_path_factory) -> dict[str, str]:
    """An environment whose PYTHONPATH holds the toy package and its dist-info."""
    root = tmp_path_factory.mktemp("toy_dist")
    (root / "toy_bench").mkdir()
    (root / "toy_bench" / "__init__.py").write_text(textwrap.dedent(TOY_PACKAGE))
    info = root / "toy_bench-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-bench\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tooleval.benchmarks]\ntoy = toy_bench:BENCHMARK\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    env["TOOLEVAL_NO_KERNEL"] = "1"
    return env


def _tooleval(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tooleval.cli.main", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


@pytest.fixture
def toy_file(tmp_path: Path) -> Path:
    path = tmp_path / "toy_results.json"
    rows = [
        {"q": "a", "want": ["search", "book"], "got": ["search", "book"]},
        {"q": "b", "want": ["search", "book"], "got": ["book", "search"]},
        {"q": "c", "want": ["search"], "got": "search"},  # a record the toy reader cannot read
    ]
    path.write_text(json.dumps({"toy_rows": rows}, indent=2))
    return path


def test_toy_benchmark_scored_with_format_toy(toy_env, toy_file):
    proc = _tooleval(toy_env, "score", str(toy_file), "--format", "toy")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["id"], r["metric"], r["score"]) for r in rows] == [
        ("a", "toy_exact", 1.0),
        ("b", "toy_exact", 0.0),
        ("c", "toy_exact", None),
    ]
    assert rows[2]["reason"] == "field got: expected a list of names"
    assert rows[0]["params"] == {"strict": True}


def test_toy_benchmark_names_options_and_detection(toy_env, toy_file):
    # any spelling of the name or an alias; the default metric's options take --option
    loose = _tooleval(
        toy_env, "score", str(toy_file), "--format", "Toy_Bench", "--option", "strict=false"
    )
    assert loose.returncode == 0, loose.stderr
    assert [json.loads(line)["score"] for line in loose.stdout.splitlines()] == [1.0, 1.0, None]
    detected = _tooleval(toy_env, "score", str(toy_file))  # no --format: the record's detect
    assert detected.returncode == 0, detected.stderr
    assert json.loads(detected.stdout.splitlines()[0])["metric"] == "toy_exact"
    wrong = _tooleval(toy_env, "score", str(toy_file), "--format", "tyo")
    assert wrong.returncode == 2
    assert "did you mean 'toy'?" in wrong.stderr and wrong.stderr.count("\n") == 1


def test_toy_benchmark_listed_by_tooleval_metrics(toy_env):
    listed = _tooleval(toy_env, "metrics", "--json")
    assert listed.returncode == 0, listed.stderr
    toy = next(row for row in json.loads(listed.stdout) if row["name"] == "toy_exact")
    assert toy["benchmark"] == "toy" and toy["params"]["strict"]["default"] is True
    table = _tooleval(toy_env, "metrics")
    assert table.returncode == 0, table.stderr
    assert "toy (toy-bench)" in table.stdout and "a toy results JSON object" in table.stdout


def test_a_broken_entry_point_is_named(tmp_path):
    info = tmp_path / "broken_bench-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-bench\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tooleval.benchmarks]\nbroken = no_such_module:X\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path), TOOLEVAL_NO_KERNEL="1")
    proc = _tooleval(env, "score", str(tmp_path / "x.json"), "--format", "bfcl")
    assert proc.returncode == 2
    assert "benchmark 'broken' (no_such_module:X)" in proc.stderr
    assert "Traceback" not in proc.stderr
