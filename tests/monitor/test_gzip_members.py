"""A valid ``.gz`` trace file (``gzip -t`` passes) is never reported as cut short.

Single members, concatenated members (``cat a.gz b.gz``), an empty gzip,
members ending exactly on a read boundary, NUL padding after the last
member, large files; from files and from stdin. Each file is checked with
``gzip -t`` first, so the test holds only valid files to this rule.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.monitor.ingest import read_sessions

REPO = Path(__file__).resolve().parents[2]


def _line(trace: int) -> bytes:
    span = {
        "traceId": f"{trace:032x}",
        "spanId": f"{trace:016x}",
        "name": "execute_tool f",
        "startTimeUnixNano": str(1_000 + trace),
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "f"}},
        ],
    }
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode() + b"\n"


def _lines(first: int, count: int) -> bytes:
    return b"".join(_line(t) for t in range(first, first + count))


def _boundary_member() -> bytes:
    # a member whose compressed size is a multiple of the 256 KiB read (incompressible padding)
    body = _lines(1, 3)
    for extra in range(0, 4096):
        member = gzip.compress(body + b" " * extra, mtime=0)
        if len(member) % 1024 == 0:
            return member
    return gzip.compress(body, mtime=0)


FILES = {
    "one-member": lambda: (gzip.compress(_lines(1, 5)), 5),
    "concatenated": lambda: (gzip.compress(_lines(1, 3)) + gzip.compress(_lines(4, 4)), 7),
    "many-members": lambda: (b"".join(gzip.compress(_line(t)) for t in range(1, 51)), 50),
    "empty-member-first": lambda: (gzip.compress(b"") + gzip.compress(_lines(1, 2)), 2),
    "nul-padded": lambda: (gzip.compress(_lines(1, 2)) + b"\0" * 4096, 2),
    "large": lambda: (gzip.compress(_lines(1, 20_000), compresslevel=1), 20_000),
    "boundary": lambda: (_boundary_member(), 3),
}


def _gzip_t(path: Path) -> None:
    if shutil.which("gzip") is None:
        pytest.skip("gzip is not installed")
    check = subprocess.run(["gzip", "-t", str(path)], capture_output=True, timeout=60)
    assert check.returncode == 0, check.stderr


@pytest.mark.parametrize("kind", sorted(FILES))
def test_a_valid_gzip_file_is_read_whole_and_not_called_cut(tmp_path, kind):
    data, sessions_expected = FILES[kind]()
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(data)
    _gzip_t(path)
    with read_sessions(path) as sessions:
        found = list(sessions)
        problems = [p.message for p in sessions.report.problems]
    assert len(found) == sessions_expected
    assert not [p for p in problems if "gzip" in p], problems


def test_an_empty_gzip_file_is_an_empty_input_not_a_cut(tmp_path):
    path = tmp_path / "empty.gz"
    path.write_bytes(gzip.compress(b""))
    _gzip_t(path)
    proc = subprocess.run(
        [sys.executable, "-m", "tooleval.cli.main", "monitor", str(path), "--no-store"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert "cut short" not in proc.stderr + proc.stdout


@pytest.mark.parametrize("kind", ["concatenated", "many-members", "nul-padded"])
def test_stdin_gzip_is_not_called_cut_in_json_problems(kind):
    data, count = FILES[kind]()
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_STORE"}
    proc = subprocess.run(
        [sys.executable, "-m", "tooleval.cli.main", "monitor", "-", "--no-store", "--json"],
        input=data, capture_output=True, cwd=REPO, env=env, timeout=120,
    )  # fmt: skip
    out = proc.stdout.decode() + proc.stderr.decode()
    assert "cut short" not in out, out[-2000:]


def test_a_cut_inside_a_member_is_still_reported(tmp_path):
    path = tmp_path / "cut.gz"
    path.write_bytes(gzip.compress(_lines(1, 3)) + gzip.compress(_lines(4, 3))[:-12])
    with read_sessions(path) as sessions:
        list(sessions)
        assert any("gzip stream is cut short" in p.message for p in sessions.report.problems)
