"""Every thread a command starts is joined before the process ends (issue 37).

A native pool torn down at interpreter exit can abort the process ("terminate called
without an active exception", exit -6). Each case runs a real process that runs a
command through ``main``, then prints the Python threads still alive; the Parquet
reader keeps Arrow on the calling thread, the kernel's scoped threads are joined, the
``--workers`` pool is shut down, and the receiver-free commands start no thread.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# after the command: the exit code and the names of the Python threads still alive
PROBE = """
import sys, threading
from tooleval.cli.main import main
code = main(sys.argv[1:])
print("EXIT", code, sorted(t.name for t in threading.enumerate()))
"""


def _rows() -> list[dict]:
    return [
        {"id": f"r{i}", "input": f"q{i}", "tools": json.dumps(["a"]), "gold": json.dumps(["a"])}
        for i in range(40)
    ]


@pytest.fixture
def datasets(tmp_path) -> dict[str, Path]:
    pa = pytest.importorskip("pyarrow", reason="the Parquet cases need pyarrow")
    import pyarrow.parquet as pq

    rows = _rows()
    parquet = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet)
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return {"parquet": parquet, "jsonl": jsonl, "folder": tmp_path}


BIND = [
    "--metric",
    "tool_correctness",
    "--bind",
    "expected_tools=gold",
    "--bind",
    "tools_called=tools",
]
CASES = {
    "parquet, kernel": (lambda d: ["score", str(d["parquet"]), *BIND], {}),
    "parquet, python": (lambda d: ["score", str(d["parquet"]), *BIND], {"TOOLEVAL_NO_KERNEL": "1"}),
    "jsonl, two workers": (
        lambda d: ["score", str(d["jsonl"]), *BIND, "--workers", "2", "-o", str(d["folder"] / "o")],
        {},
    ),
    "dataset check, parquet": (lambda d: ["dataset", "check", str(d["parquet"]), *BIND[2:]], {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_command_leaves_no_thread_running_and_ends_cleanly(datasets, case):
    argv, extra = CASES[case]
    env = {**os.environ, **extra}
    env.pop("TOOLEVAL_STORE", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv(datasets)],
        capture_output=True, text=True, timeout=120, env=env, cwd=datasets["folder"],
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "terminate called" not in done.stderr
    (probe,) = [line for line in done.stdout.splitlines() if line.startswith("EXIT ")]
    code, threads = probe.split(" ", 2)[1:]
    assert code in ("0", "1"), done.stderr[-2000:]
    assert threads == "['MainThread']", threads


# run as the command is (``main()`` with the process's own arguments), with an atexit
# handler and a non-daemon thread of the caller's, to see the early end keeps Python's exit
COMMAND = """
import atexit, sys, threading, time
from tooleval.cli.main import main
done = []
def late():
    time.sleep(0.2)
    done.append(1)
threading.Thread(target=late).start()
atexit.register(lambda: print("ATEXIT", done, flush=True))
sys.argv = ["tooleval", *sys.argv[1:]]
sys.exit(main())
"""


@pytest.mark.parametrize("bind", [True, False], ids=["scored", "refused"])
def test_after_parquet_the_command_ends_with_pythons_exit_work_done(datasets, bind):
    """After Parquet was read the process ends without the native teardown (Arrow's pools
    could abort it, exit -6), but its threads are joined, atexit handlers run and every
    line is written, with the command's own exit code."""
    argv = ["score", str(datasets["parquet"]), *(BIND if bind else BIND[:2])]
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_STORE"}
    done = subprocess.run(
        [sys.executable, "-c", COMMAND, *argv],
        capture_output=True, text=True, timeout=120, env=env, cwd=datasets["folder"],
    )  # fmt: skip
    assert done.returncode == (0 if bind else 2), done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[-1] == "ATEXIT [1]"  # the caller's thread finished before the handlers ran
    if bind:
        assert len(lines) == 41 and all(line.startswith('{"id":"r') for line in lines[:40])
    else:
        assert "no column is bound" in done.stderr and len(lines) == 1
