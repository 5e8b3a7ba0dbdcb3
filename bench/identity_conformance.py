"""Bytes of ``tooleval score`` on conformance data: two versions of the sources side by side.

Runs the same ``tooleval score`` commands (BFCL, tau-bench, tau2, NESTFUL,
Seal-Tools and the bundled examples; default metrics, several metrics,
``--table`` and a gate) with two source trees and compares stdout, stderr,
the exit status and the ``--output`` file byte for byte. Each command runs in
its own process with ``PYTHONPATH`` set to the tree's ``src``.

    # an older commit against the current tree, both in pure Python
    git worktree add --detach /tmp/r31-old 06e532c
    python bench/identity_conformance.py --old /tmp/r31-old/src --no-kernel
    # the current tree with the kernel against the current tree without it
    python bench/identity_conformance.py --kernel-vs-python

Prints one line per command (same / differs) and, for each difference, the
first lines that differ; ``--show N`` sets how many. Exit 0 when every
command gave the same bytes, 1 otherwise. Data from ``$TOOLEVAL_SHARED_DATA``
or ``../shared/data`` beside the checkout; commands whose data is absent are
reported as skipped.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"


def shared_data() -> Path | None:
    named = os.environ.get("TOOLEVAL_SHARED_DATA")
    candidates = [Path(named)] if named else []
    candidates += [ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"]
    return next((c for c in candidates if (c / "bfcl").is_dir()), None)


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...]
    needs: tuple[str, ...]  # paths under the shared data folder that must exist


def _predictions(data: Path, scratch: Path) -> dict[str, Path]:
    """Prediction files for the benchmarks that ship none (NESTFUL, Seal-Tools), made from
    their references as the conformance tests make them: every third row with a wrong
    argument, every seventh with a call dropped (NESTFUL) or no prediction (Seal-Tools)."""
    made: dict[str, Path] = {}
    sgd = data / "nestful" / "data" / "non-executable" / "non-executable-sgd-data.json"
    if sgd.exists():
        items = []
        for n, ref in enumerate(json.loads(sgd.read_text(encoding="utf-8"))):
            calls = copy.deepcopy(ref["output"])
            if n % 3 == 0:
                for call in calls:
                    if call["name"] != "var_result" and call["arguments"]:
                        call["arguments"][next(iter(call["arguments"]))] = "WRONG"
                        break
            if n % 7 == 0:
                calls = calls[:-1]
            items.append(
                {
                    "input": ref["input"],
                    "output": json.dumps(ref["output"]),
                    "generated_text": json.dumps(calls),
                }
            )
        made["nestful"] = scratch / "nestful_predictions.jsonl"
        made["nestful"].write_text("".join(json.dumps(i) + "\n" for i in items))
    seal = data / "seal_tools" / "test_out_domain.jsonl"
    if seal.exists():
        rows = []
        for n, line in enumerate(seal.read_text(encoding="utf-8").splitlines()):
            ref = json.loads(line)
            predict: object = copy.deepcopy(ref["calling"])
            if n % 3 == 0:
                for call in predict:  # type: ignore[attr-defined]
                    if call["parameters"]:
                        call["parameters"][next(iter(call["parameters"]))] = "WRONG"
                        break
            if n % 7 == 0:
                predict = -1
            rows.append({"id": ref["id"], "predict": [predict]})
        made["seal-tools"] = scratch / "pred_test_out_domain.jsonl"
        made["seal-tools"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    return made


def cases(data: Path, made: dict[str, Path]) -> list[Case]:
    bfcl, tau, tau2 = data / "bfcl", data / "tau_bench", data / "tau2_bench"
    nest, seal = data / "nestful" / "data", data / "seal_tools"
    results = str(bfcl / "results" / "glyphh-ada-1.1")
    tau_runs = str(tau / "trajectories" / "gpt-4o-airline.json")
    tau2_runs = str(tau2 / "trajectories" / "whissle_airline_run1.json")
    sgd = str(nest / "non-executable" / "non-executable-sgd-data.json")
    nestful = str(made.get("nestful", sgd))
    seal_ref = str(seal / "test_out_domain.jsonl")
    seal_pred = str(made.get("seal-tools", seal_ref))
    support = str(ROOT / "examples" / "support_agent.jsonl")
    orders = str(ROOT / "examples" / "orders_env" / "scored_calls.jsonl")
    gate = ("--min-pass-rate", "0.5", "--max-unscored-rate", "0.2")
    several = ("--metric", "tool_correctness", "--metric", "tool_call_f1")
    three = (*several, "--metric", "tool_call_accuracy")
    return [
        Case("bfcl", (results, "--format", "bfcl", "--data", str(bfcl)), ("bfcl",)),
        Case(
            "bfcl --table", (results, "--format", "bfcl", "--data", str(bfcl), "--table"), ("bfcl",)
        ),
        Case("bfcl gate", (results, "--format", "bfcl", "--data", str(bfcl), *gate), ("bfcl",)),
        Case("tau-bench calls", (tau_runs, "--format", "tau-bench"), ("tau_bench",)),
        Case("tau-bench --table", (tau_runs, "--format", "tau-bench", "--table"), ("tau_bench",)),
        Case(
            "tau-bench replay",
            (tau_runs, "--format", "tau-bench", "--data", str(tau / "source"), "--table", *gate),
            ("tau_bench/source",),
        ),
        Case("tau2", (tau2_runs,), ("tau2_bench",)),
        Case("tau2 --table", (tau2_runs, "--table", *gate), ("tau2_bench",)),
        Case("nestful", (nestful, "--format", "nestful", "--data", sgd), ("nestful",)),
        Case("nestful --table", (nestful, "--data", sgd, "--table", *gate), ("nestful",)),
        Case(
            "seal-tools", (seal_pred, "--format", "seal-tools", "--data", seal_ref), ("seal_tools",)
        ),
        Case(
            "seal-tools --table",
            (seal_pred, "--format", "seal-tools", "--data", seal_ref, "--table", *gate),
            ("seal_tools",),
        ),
        Case("support_agent", (support, "--metric", "tool_correctness"), ()),
        Case("support_agent three", (support, *three), ()),
        Case("support_agent three --table gate", (support, *three, "--table", *gate), ()),
        Case("orders scored_calls", (orders, *three, "--table", *gate), ()),
        Case(
            "tau-bench trajectories as rows", (tau_runs, *three, "--table", *gate), ("tau_bench",)
        ),
    ]


@dataclass(frozen=True)
class Output:
    code: int
    stdout: bytes
    stderr: bytes
    results: bytes


def run(src: Path, case: Case, kernel: bool, scratch: Path) -> Output:
    env = dict(os.environ, PYTHONPATH=str(src), TOOLEVAL_PROGRESS_SECONDS="100000")
    env.pop("TOOLEVAL_NO_KERNEL", None)
    if not kernel:
        env["TOOLEVAL_NO_KERNEL"] = "1"
    out = scratch / "results.jsonl"
    out.unlink(missing_ok=True)
    args = [str(PYTHON), "-m", "tooleval", "score", *case.args, "--no-progress", "-o", str(out)]
    done = subprocess.run(args, env=env, capture_output=True, cwd=scratch, timeout=1800)
    results = out.read_bytes() if out.exists() else b""
    # the old and the new tree live in different folders; a path printed is not a figure
    stderr = done.stderr.replace(str(src).encode(), b"SRC")
    return Output(done.returncode, done.stdout, stderr, results)


FIGURES = ("id", "metric", "score", "passed", "threshold", "reason")


def _figures(line: bytes) -> tuple[object, ...]:
    """What a result line says of the row (its details and parameters aside)."""
    try:
        found = json.loads(line)
    except ValueError:
        return (line,)
    return tuple(found.get(k) for k in FIGURES) if isinstance(found, dict) else (line,)


def differences(a: Output, b: Output, show: int) -> list[str]:
    lines: list[str] = []
    if a.code != b.code:
        lines.append(f"    exit {a.code} -> {b.code}")
    for part in ("stdout", "stderr", "results"):
        old, new = getattr(a, part), getattr(b, part)
        if old == new:
            continue
        old_lines, new_lines = old.splitlines(), new.splitlines()
        if len(old_lines) == len(new_lines):  # the same lines, some changed: show where
            changed = [
                (i, a, b)
                for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True))
                if a != b
            ]
            lines.append(f"    {part}: {len(changed)} of {len(old_lines)} lines differ")
            if part == "results":
                moved = [i + 1 for i, a, b in changed if _figures(a) != _figures(b)]
                lines.append(
                    f"    results: {len(moved)} lines with another id, metric, score, verdict,"
                    f" threshold or reason{f' (lines {moved[:10]})' if moved else ''}"
                )
            for i, a, b in changed[:show]:
                at = next(j for j in range(min(len(a), len(b)) + 1) if a[j : j + 1] != b[j : j + 1])
                lines.append(
                    f"      line {i + 1}: ...{a[max(0, at - 80) : at + 160].decode(errors='replace')}"
                )
                lines.append(
                    f"      now     : ...{b[max(0, at - 80) : at + 160].decode(errors='replace')}"
                )
            continue
        diff = difflib.unified_diff(
            old.decode(errors="replace").splitlines(),
            new.decode(errors="replace").splitlines(),
            lineterm="",
            n=0,
        )
        body = [line for line in diff if not line.startswith(("---", "+++"))]
        lines.append(f"    {part}: {sum(1 for x in body if x[:1] in '+-')} lines differ")
        lines += [f"      {line[:300]}" for line in body[:show]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="the other tree's src folder")
    parser.add_argument("--no-kernel", action="store_true", help="both sides in pure Python")
    parser.add_argument(
        "--kernel-vs-python",
        action="store_true",
        help="the current tree with the kernel against itself without it",
    )
    parser.add_argument("--only", help="run the cases whose name contains this")
    parser.add_argument("--show", type=int, default=12, help="differing lines shown per part")
    args = parser.parse_args(argv)
    if not args.kernel_vs_python and args.old is None:
        parser.error("give --old SRC or --kernel-vs-python")
    data = shared_data()
    if data is None:
        print("skipped: no shared data (set TOOLEVAL_SHARED_DATA)")
        return 0
    src = ROOT / "src"
    same = differ = 0
    with tempfile.TemporaryDirectory(prefix="identity-") as tmp:
        scratch = Path(tmp)
        for case in cases(data, _predictions(data, scratch)):
            if args.only and args.only not in case.name:
                continue
            if any(not (data / need).exists() for need in case.needs):
                print(f"skipped  {case.name}: {', '.join(case.needs)} absent")
                continue
            if args.kernel_vs_python:
                a, b = run(src, case, True, scratch), run(src, case, False, scratch)
            else:
                kernel = not args.no_kernel
                a, b = run(args.old, case, kernel, scratch), run(src, case, kernel, scratch)
            lines = differences(a, b, args.show)
            if lines:
                differ += 1
                print(f"differs  {case.name} (exit {a.code})", *lines, sep="\n", flush=True)
            else:
                same += 1
                print(f"same     {case.name} (exit {a.code}, {len(a.results)} bytes)", flush=True)
    print(f"{same} same, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
