"""Measure how tooleval's benchmark profiles agree with the benchmarks' own verdicts.

Usage::

    .venv/bin/python bench/conformance_report.py                 # print the markdown
    .venv/bin/python bench/conformance_report.py --write docs/conformance.md

``--write`` replaces the block between ``<!-- generated:start -->`` and
``<!-- generated:end -->`` in the given file, so the measured numbers and the
list of every disagreement are never typed by hand. Reads ``../shared/data``
(or ``--data``).

Three measurements:

1. BFCL (glyphh-ada-1.1): per category, ``bfcl_ast`` pass/fail vs BFCL's
   score files (an id listed there failed, every other id passed), and the
   error label on the ids both call failed; the same with
   ``assignment="optimal"``.
2. tau2 (whissle airline run): ``tau2_actions`` per-action verdicts vs the
   stored ``action_checks[i].action_match``.
3. tau-bench (gpt-4o airline): ``tool_correctness`` verdicts (several
   settings) vs the stored ``r_actions`` reward, as confusion tables.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from tooleval.benchmarks.bfcl.folder import load_bfcl  # noqa: E402
from tooleval.benchmarks.bfcl.metric import bfcl_ast  # noqa: E402
from tooleval.benchmarks.tau2.metric import tau2_actions  # noqa: E402
from tooleval.benchmarks.tau2.reader import load_tau2_results  # noqa: E402
from tooleval.benchmarks.tau_bench.reader import load_tau_bench  # noqa: E402

START, END = "<!-- generated:start -->", "<!-- generated:end -->"
BFCL_MODEL = "glyphh-ada-1.1"


def bfcl_section(data: Path) -> list[str]:
    bfcl = data / "bfcl"
    started = time.perf_counter()
    by_category = load_bfcl(bfcl / "results" / BFCL_MODEL, bfcl)
    lines = [
        f"### BFCL: `bfcl_ast` vs BFCL's score files ({BFCL_MODEL})",
        "",
        "| category | ids | BFCL pass | tooleval pass | agreement | same error label on common failures | optimal-assignment disagreements |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    disagreements: list[str] = []
    label_mismatches: list[str] = []
    total_ids = total_agree = 0
    for category, samples in by_category.items():
        score_file = bfcl / "scores" / BFCL_MODEL / f"BFCL_v4_{category}_score.json"
        with score_file.open(encoding="utf-8") as handle:
            failed = {
                entry["id"]: entry
                for entry in (json.loads(line) for line in list(handle)[1:] if line.strip())
            }
        agree = ours_pass = labels_same = common_fail = optimal_diff = 0
        for sample in samples:
            result = bfcl_ast(sample)
            theirs = sample.id not in failed
            ours = bool(result.passed)
            ours_pass += ours
            if ours == theirs:
                agree += 1
            else:
                bfcl_label = failed[sample.id]["error_type"] if not theirs else "passed"
                disagreements.append(
                    f"| {sample.id} | {'pass' if ours else 'fail'} | "
                    f"{'pass' if theirs else 'fail'} ({bfcl_label}) | {_cell(result.reason)} |"
                )
            if not ours and not theirs:
                common_fail += 1
                ours_label = result.diagnosis.details.get("bfcl_error_type")
                if ours_label == failed[sample.id]["error_type"]:
                    labels_same += 1
                else:
                    label_mismatches.append(
                        f"| {sample.id} | {ours_label} | {failed[sample.id]['error_type']} |"
                    )
            if bool(bfcl_ast(sample, assignment="optimal").passed) != ours:
                optimal_diff += 1
        n = len(samples)
        total_ids += n
        total_agree += agree
        lines.append(
            f"| {category} | {n} | {n - len(failed)} | {ours_pass} | {agree / n:.2%} "
            f"| {labels_same}/{common_fail} | {optimal_diff} |"
        )
    elapsed = time.perf_counter() - started
    lines += [
        f"| **all** | {total_ids} | | | {total_agree / total_ids:.2%} | | |",
        "",
        f"Loading and scoring all {total_ids} ids twice took {elapsed:.1f} s.",
        "",
        "#### BFCL disagreements (pass/fail)",
        "",
    ]
    if disagreements:
        lines += [
            "| id | tooleval | BFCL | tooleval's reason |",
            "|---|---|---|---|",
            *disagreements,
        ]
    else:
        lines.append("None: every id gets BFCL's verdict.")
    lines += ["", "#### BFCL error-label differences on ids both call failed", ""]
    if label_mismatches:
        lines += ["| id | tooleval label | BFCL label |", "|---|---|---|", *label_mismatches]
    else:
        lines.append("None.")
    return lines


def tau2_section(data: Path) -> list[str]:
    path = data / "tau2_bench" / "trajectories" / "whissle_airline_run1.json"
    samples = load_tau2_results(path)
    agree = total = sims = sims_agree = 0
    rows: list[str] = []
    for sample in samples:
        stored = sample.metadata["tau2"]["action_checks"]
        if stored is None:
            continue
        result = tau2_actions(sample)
        ours = [c["matched"] for c in result.diagnosis.details.get("action_checks", [])]
        sims += 1
        sims_agree += ours == stored
        for index, (theirs, mine) in enumerate(zip(stored, ours, strict=True)):
            total += 1
            agree += theirs == mine
            if theirs != mine:
                call = sample.expected_tools.calls[index]
                rows.append(f"| {sample.id} | {index} | {call.name} | {mine} | {theirs} |")
    lines = [
        "### tau2: `tau2_actions` vs stored `action_match` (whissle_airline_run1)",
        "",
        f"- per action: {agree}/{total} agree ({agree / total:.2%})",
        f"- per simulation (all of its actions): {sims_agree}/{sims} agree",
        f"- simulations without `action_checks` (tasks with no gold action): {len(samples) - sims}",
        "",
    ]
    if rows:
        lines += [
            "| simulation | action | name | tooleval | tau2 |",
            "|---|---:|---|---|---|",
            *rows,
        ]
    else:
        lines.append("No disagreements.")
    return lines


def tau_bench_section(data: Path) -> list[str]:
    from tooleval.metrics.correctness import tool_correctness

    samples = load_tau_bench(data / "tau_bench" / "trajectories" / "gpt-4o-airline.json")
    labelled = [s for s in samples if s.metadata["tau_bench"]["r_actions"] is not None]
    settings = [
        ("ordering off, extra calls penalised", {"order": "flexible"}),
        ("ordering on, extra calls penalised", {"order": "strict"}),
        ("ordering off, extra calls ignored", {"order": "flexible", "extra_calls": "ignore"}),
        ("ordering on, extra calls ignored", {"order": "strict", "extra_calls": "ignore"}),
    ]
    lines = [
        "### tau-bench: `tool_correctness` (exact_match) vs `r_actions` (gpt-4o airline)",
        "",
        f"{len(labelled)} of {len(samples)} runs carry an `r_actions` label (the others have only "
        "`r_outputs` or an empty reward); `r_actions` = 1 when replaying the gold actions gives the same "
        "database as the agent's run. `pass, r=0` = tooleval passes a run the benchmark fails.",
        "",
        "| setting | pass, r=1 | pass, r=0 | fail, r=1 | fail, r=0 | agreement |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for title, options in settings:
        table: Counter[tuple[bool, bool]] = Counter()
        for sample in labelled:
            result = tool_correctness(
                sample.expected_tools, sample.actual_calls(), exact_match=True, **options
            )
            table[(bool(result.passed), sample.metadata["tau_bench"]["r_actions"] == 1.0)] += 1
        agree = table[(True, True)] + table[(False, False)]
        lines.append(
            f"| {title} | {table[(True, True)]} | {table[(True, False)]} | "
            f"{table[(False, True)]} | {table[(False, False)]} | {agree / len(labelled):.1%} |"
        )
    lines += ["", *_filtered_tables(labelled)]
    return lines


_READ_PREFIXES = ("get_", "search_", "list_", "calculate", "think")


def _is_read(call) -> bool:
    return call.name.startswith(_READ_PREFIXES)


def _filtered_tables(labelled: list) -> list[str]:
    """The same comparison on the calls that can change the database.

    tau-bench's reward replays the gold actions and compares database hashes,
    so reads never matter, a call that returned an error changed nothing, and
    ``transfer_to_human_agents`` ends the episode without being replayed.
    """
    from tooleval.metrics.correctness import tool_correctness
    from tooleval.model import ExpectedTools

    def failed(call) -> bool:
        return str(call.result or "").startswith("Error")

    def transfer(call) -> bool:
        return call.name == "transfer_to_human_agents"

    variants = [
        ("write calls only", lambda c: _is_read(c), lambda c: _is_read(c)),
        (
            "write calls that succeeded, transfer_to_human_agents dropped",
            lambda c: _is_read(c) or transfer(c),
            lambda c: _is_read(c) or transfer(c) or failed(c),
        ),
    ]
    lines = [
        "Restricted to calls that can change the database (reads are names starting with "
        + ", ".join(f"`{p}`" for p in _READ_PREFIXES)
        + "; a call whose tool result starts with `Error` changed nothing); "
        "ordering off, extra calls penalised, exact_match:",
        "",
        "| calls compared | pass, r=1 | pass, r=0 | fail, r=1 | fail, r=0 | agreement |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    misses: list[str] = []
    for title, drop_expected, drop_actual in variants:
        table: Counter[tuple[bool, bool]] = Counter()
        for sample in labelled:
            expected = [c for c in sample.expected_tools.calls if not drop_expected(c)]
            actual = [c for c in sample.actual_calls() if not drop_actual(c)]
            result = tool_correctness(ExpectedTools(tuple(expected)), actual, exact_match=True)
            label = sample.metadata["tau_bench"]["r_actions"] == 1.0
            table[(bool(result.passed), label)] += 1
            if variants[-1][0] == title and bool(result.passed) != label:
                misses.append(f"| {sample.id} | {label} | {_cell(result.reason)} |")
        agree = table[(True, True)] + table[(False, False)]
        lines.append(
            f"| {title} | {table[(True, True)]} | {table[(True, False)]} | "
            f"{table[(False, True)]} | {table[(False, False)]} | {agree / len(labelled):.1%} |"
        )
    lines += ["", "Runs the last setting still gets wrong:", ""]
    if misses:
        lines += ["| run | r_actions = 1 | tool_correctness reason |", "|---|---|---|", *misses]
    else:
        lines.append("None.")
    return lines


def _cell(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--write", type=Path, help="replace the generated block in this file")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"data folder not found: {args.data}", file=sys.stderr)
        return 2
    lines = [
        *bfcl_section(args.data),
        "",
        *tau2_section(args.data),
        "",
        *tau_bench_section(args.data),
    ]
    text = "\n".join(lines) + "\n"
    if args.write is None:
        sys.stdout.write(text)
        return 0
    document = args.write.read_text(encoding="utf-8")
    if START not in document or END not in document:
        print(f"{args.write} has no {START} ... {END} block", file=sys.stderr)
        return 2
    head, _, rest = document.partition(START)
    _, _, tail = rest.partition(END)
    args.write.write_text(f"{head}{START}\n{text}{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
