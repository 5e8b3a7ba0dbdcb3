"""BFCL multi-turn run live over every public entry: entries per second and agreement.

A model on 127.0.0.1 (tests/episodes/bfcl_replayer.py) answers each turn and
step as the public glyphh-ada-1.1 ``multi_turn_base`` results recorded them;
``run_plan`` runs every entry of the question file through the ``openai``
connector with BFCL's simulated APIs executing the calls
(``tooleval.serving.bfcl:multi_turn``), scores ``bfcl_multi_turn`` into SQLite
and writes BFCL's result file. Printed: entries per second (the whole run:
model requests, calls, recording, grading, storing, writing the file), how
many entries reproduce the published calls per turn and step, and how many
verdicts agree between BFCL's own checker on the written file, ``tooleval
score --format bfcl`` on it (the command, in process), the run's ``bfcl_multi_turn``
and BFCL's published score file.

    python bench/bench_bfcl_live.py --concurrency 8 [--entries 200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conformance.bfcl_multi_turn_reference import reference_verdict  # noqa: E402
from tests.episodes.bfcl_replayer import call_steps  # noqa: E402
from tests.episodes.test_bfcl_live import _public, run_live, tooleval_score  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--data", type=Path, default=DATA, help="../shared/data")
    args = parser.parse_args()
    root, questions, results, answers, published_failed = _public(args.data)
    questions = questions[: args.entries]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        began = time.perf_counter()
        rows, written = run_live(tmp, questions, results, concurrency=args.concurrency)
        seconds = time.perf_counter() - began
        scored = tooleval_score(tmp, root)
    by_id = {q["id"]: q for q in questions}
    same_calls = agree = errors = passed = 0
    for entry_id, row in rows.items():
        errors += row.error is not None
        live = written[entry_id]["result"]
        same_calls += call_steps(live) == results[entry_id]["result"]
        bfcl = reference_verdict(by_id[entry_id], answers[entry_id], live, "fc")
        published = (entry_id not in published_failed, published_failed.get(entry_id))
        run = row.results[0]
        verdicts = {
            bfcl,
            published,
            scored[entry_id],
            (run.passed, run.diagnosis.details["bfcl_error_type"]),
        }
        agree += len(verdicts) == 1
        passed += bool(bfcl[0])
    n = len(rows)
    print(
        f"{n} entries in {seconds:.1f} s ({n / seconds:.2f} entries/s, concurrency "
        f"{args.concurrency}); {errors} row errors; calls reproduced per turn and step: "
        f"{same_calls}/{n}; verdicts agreeing (BFCL's checker, tooleval score, the run, "
        f"BFCL's score file): {agree}/{n}; {passed} pass"
    )


if __name__ == "__main__":
    main()
