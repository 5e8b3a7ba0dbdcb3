"""After the suite: a test that hung (passed its deadline) runs once more, in a fresh pytest.

Usage: ``rerun_hung.py STATUS FAILURES PYTEST``: STATUS is the suite's exit status,
FAILURES the JSON lines tests/conftest.py wrote for each failed test phase
(``TOOLEVAL_FAILURES_FILE``), PYTEST the pytest to run.

- STATUS 0, or anything but 1 (interrupted, internal error, usage error, no tests):
  that status, unchanged.
- STATUS 1 with any failure that is not a hang: 1. An ordinary failure is never rerun.
- STATUS 1 with only hangs: each hung test runs once more in a new pytest process (its own
  deadline again, no state left from the hung one), and the exit status is that run's.
  The hung tests are named either way, so a hang that passed the second time stays in
  the output for someone to chase.

Exits 2 on a bad invocation or an unreadable FAILURES file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def _failures(path: Path) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            row = json.loads(line)
            rows.append({"nodeid": str(row["nodeid"]), "hung": bool(row["hung"])})
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path} line {number}: not a failure record ({exc})") from None
    return rows


def main(argv: list[str]) -> int:
    if len(argv) != 3 or not argv[0].lstrip("-").isdigit():
        print("usage: rerun_hung.py STATUS FAILURES PYTEST", file=sys.stderr)
        return 2
    status, failures, pytest = int(argv[0]), Path(argv[1]), argv[2]
    if status != 1:
        return status
    try:
        rows = _failures(failures)
    except ValueError as exc:
        print(f"rerun_hung: {exc}", file=sys.stderr)
        return 2
    if not rows:
        print(f"rerun_hung: the suite failed and {failures} names no failed test", file=sys.stderr)
        return 1
    plain = sorted({r["nodeid"] for r in rows if not r["hung"]})
    hung = sorted({r["nodeid"] for r in rows if r["hung"]})
    if plain:
        if hung:
            print(f"rerun_hung: not rerunning the {len(hung)} hung test(s): other tests failed")
        return 1
    print(f"== {len(hung)} test(s) passed their deadline; each runs once more in a fresh pytest:")
    for nodeid in hung:
        print(f"   {nodeid}")
    sys.stdout.flush()
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_FAILURES_FILE"}
    again = subprocess.run([pytest, "-q", "-p", "no:randomly", *hung], check=False, env=env)
    verdict = "passed the second time" if again.returncode == 0 else "failed again"
    print(f"== the hung test(s) {verdict} (exit {again.returncode})")
    return again.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
