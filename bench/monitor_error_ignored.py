"""Precision and recall of ``error_ignored`` on a labelled set of sessions.

    python bench/monitor_error_ignored.py [--show-errors]

``bench/monitor_error_ignored.jsonl`` holds 82 sessions, each a list of calls
(tool, failed or not) and a final answer, labelled ``ignored`` true when a
person reading it says the answer glosses over a failure that stands. The
bench scores the shipped detector and, for comparison, the word-list rule it
replaced (a failed call, no later call of the tool, none of a list of
acknowledgement words in the answer).

The set was written together with the detector, so its figures are an upper
bound for traffic it has not seen; the misses listed with ``--show-errors``
are the kinds of answer it still gets wrong.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from tooleval.model import ToolCall
from tooleval.monitor.error_ignored import error_ignored
from tooleval.monitor.session import Session, TracedCall

HERE = Path(__file__).parent

# The rule before issue 15, kept here to compare against.
_OLD_WORDS = (
    "error", "errors", "fail", "failed", "failure", "failing", "unable", "cannot", "can't",
    "can not", "couldn't", "could not", "wasn't able", "was not able", "not able",
    "unavailable", "not available", "sorry", "apologize", "apologise", "unfortunately",
    "problem", "issue", "went wrong", "try again", "timed out", "timeout", "not found", "denied",
)  # fmt: skip
_OLD = re.compile(
    r"\b(" + "|".join(re.escape(w).replace("'", "['’]") for w in _OLD_WORDS) + r")\b",
    re.IGNORECASE,
)


def old_rule(session: Session) -> bool:
    answer = session.output or ""
    for index, call in enumerate(session.calls):
        if not call.is_error:
            continue
        if any(later.name == call.name for later in session.calls[index + 1 :]):
            continue
        if _OLD.search(answer):
            continue
        return True
    return False


def load() -> list[tuple[dict, Session]]:
    out = []
    for line in (HERE / "monitor_error_ignored.jsonl").read_text().splitlines():
        row = json.loads(line)
        calls = [
            TracedCall(
                ToolCall(
                    c["name"],
                    c["args"],
                    result={"error": "failed"} if c["is_error"] else {"ok": True},
                    is_error=c["is_error"],
                )
            )
            for c in row["calls"]
        ]
        out.append((row, Session(row["id"], calls, output=row["answer"])))
    return out


def score(labelled: list[tuple[dict, Session]], predict) -> dict:
    tp = fp = fn = tn = 0
    errors = []
    for row, session in labelled:
        predicted, actual = predict(session), row["ignored"]
        tp += predicted and actual
        fp += predicted and not actual
        fn += actual and not predicted
        tn += not predicted and not actual
        if predicted != actual:
            errors.append((row["id"], "FP" if predicted else "FN", row["answer"], row["note"]))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(f1, 3),
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()
    labelled = load()
    positives = sum(row["ignored"] for row, _ in labelled)
    print(f"{len(labelled)} sessions, {positives} labelled ignored")
    for name, predict in (
        ("error_ignored (structure first)", lambda s: bool(error_ignored(s))),
        ("word list (before)", old_rule),
    ):
        result = score(labelled, predict)
        errors = result.pop("errors")
        print(f"{name}: {json.dumps(result)}")
        if args.show_errors:
            for error in errors:
                print("   ", *error, sep=" | ")


if __name__ == "__main__":
    main()
