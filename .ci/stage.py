"""Record one stage of ``make test`` (wall and CPU seconds), or print the table of stages.

    python3 .ci/stage.py TABLE NAME START LOAD STATUS TIMES   record a stage that ended
    python3 .ci/stage.py TABLE --print                        the stages recorded, and the total

``make test``'s ``stage`` macro runs the stage's command in a subshell and calls this
with the epoch second it started, the 1-minute load average then, its exit status and
a file holding the shell's ``times`` output (whose second line is the CPU time of the
shell's finished children: the stage, every subprocess included). CPU seconds are the
honest figure on a shared machine; wall seconds depend on the load, printed beside
them (at the stage's start and end). Stages may run side by side (``make test`` runs the
suite beside the other checks), so the total wall time is the span from the first stage's
start to the last one's end, not the sum. Standard library only: it runs before the venv
exists.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

_CLOCK = re.compile(r"(\d+)m([\d.]+)s")


def children_cpu(times_output: str) -> float:
    """User + system seconds of the shell's children, from ``times`` output.

    >>> children_cpu("0m0.002s 0m0.000s\\n1m2.500s 0m0.250s\\n")
    62.75
    """
    lines = times_output.splitlines()
    clocks = _CLOCK.findall(lines[1] if len(lines) > 1 else "")
    return round(sum(int(minutes) * 60 + float(seconds) for minutes, seconds in clocks), 3)


def record(table: Path, name: str, started: float, load: str, status: int, times: Path) -> None:
    wall = time.time() - started
    cpu = children_cpu(times.read_text())
    times.unlink()
    load_after = f"{os.getloadavg()[0]:.1f}"
    verdict = "ok" if status == 0 else f"exit {status}"
    print(f"== stage {name}: {wall:.0f} s wall, {cpu:.0f} CPU-s ({verdict})", flush=True)
    table.parent.mkdir(parents=True, exist_ok=True)
    with table.open("a") as handle:
        handle.write(
            f"{name}\t{wall:.1f}\t{cpu:.1f}\t{load}\t{load_after}\t{verdict}\t{started:.0f}\n"
        )


def print_table(table: Path) -> int:
    if not table.is_file():
        print(f"no stages recorded in {table}")
        return 0
    rows = [line.split("\t") for line in table.read_text().splitlines() if line]
    print(f"{'stage':<16} {'wall s':>7} {'CPU s':>7}  load (start-end)")
    spans = []
    for name, wall, cpu, before, after, verdict, started in rows:
        note = "" if verdict == "ok" else f"  {verdict}"
        print(f"{name:<16} {float(wall):7.0f} {float(cpu):7.0f}  {before}-{after}{note}")
        spans.append((float(started), float(started) + float(wall)))
    elapsed = max(end for _, end in spans) - min(start for start, _ in spans)
    cpus = sum(float(row[2]) for row in rows)
    print(f"{'total':<16} {elapsed:7.0f} {cpus:7.0f}  (elapsed; on {os.cpu_count()} cores)")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[1] == "--print":
        return print_table(Path(argv[0]))
    if len(argv) == 6:
        table, name, started, load, status, times = argv
        record(Path(table), name, float(started), load, int(status), Path(times))
        return int(status)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
