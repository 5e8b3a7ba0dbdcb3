"""Calibration sets that ship: labelled rows built from public data, labels nobody here wrote.

Only the definitions ship; the data is read where it lies (``--data DIR``, else
``$TOOLEVAL_SHARED_DATA``, else ``../shared/data`` from the working directory),
never copied into a store's package or the repository:

- ``tau-airline``: ``task_success`` on tau-bench's gpt-4o airline trajectories
  (``tau_bench/trajectories/gpt-4o-airline.json``, sierra-research/tau-bench,
  MIT). The label is tau-bench's own reward: pass when the run ended with the
  database in the task's goal state (reward 1.0), fail otherwise.
- ``tau2-airline``: ``task_success`` on a tau2-bench airline run
  (``tau2_bench/trajectories/whissle_airline_run1.json``, sierra-research/tau2-bench,
  MIT; a results file from that repository's pull request 448). The label is
  tau2's reward (its database, action and communication checks).
- ``bfcl-tools-error``: ``tools_error`` on BFCL V4 results of the model
  glyphh-ada-1.1 (``bfcl/results``, ``bfcl/scores``, ``bfcl/data``;
  ShishirPatil/gorilla, Apache-2.0) in the single-turn categories that make
  calls. The label is BFCL's own checker: pass when the id is not in the
  category's score file (the call was valid), fail when it is listed there
  with its ``error_type`` (kept as the label's note).

A set becomes a stored run (``calibration set NAME``) whose rows hold the
samples and whose labels are the set's; :func:`tooleval.calibration.calibrate`
then judges every labelled row, so the viewer and ``judge labels export`` see
them like any run's.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval.errors import ConfigError
from tooleval.formats.rows import sample_from_row
from tooleval.model import Sample

__all__ = [
    "CALIBRATION_SETS",
    "CalibrationSet",
    "LabelledRow",
    "data_root",
    "set_rows",
    "store_set",
]

DATA_ENV = "TOOLEVAL_SHARED_DATA"
_MAX_FUNCTIONS_CHARS = 4000
# BFCL's single-turn categories where the model calls functions (irrelevance: no call to judge).
_BFCL_CATEGORIES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
)
_BFCL_MODEL = "glyphh-ada-1.1"


@dataclass(frozen=True, slots=True)
class LabelledRow:
    """One row of a set: its id, the sample a judge reads, the label and where it came from."""

    row_id: str
    sample: Sample
    passed: bool
    note: str


@dataclass(frozen=True, slots=True)
class CalibrationSet:
    """A shipped set: the judged metric it calibrates, its data files and how rows are read."""

    name: str
    metric: str
    summary: str
    origin: str
    licence: str
    needs: str  # the file or folder under the data root whose absence is reported
    read: Callable[[Path], Iterator[LabelledRow]]


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}", path=str(path)) from None


def _tau_rows(root: Path) -> Iterator[LabelledRow]:
    runs = _load_json(root / "tau_bench" / "trajectories" / "gpt-4o-airline.json")
    for run in runs:
        reward = run.get("reward")
        if reward not in (0.0, 1.0):
            continue
        row_id = f"task{run['task_id']}-trial{run.get('trial', 0)}"
        sample = sample_from_row({"id": row_id, "messages": run["traj"]})
        yield LabelledRow(row_id, sample, reward == 1.0, f"tau-bench reward {reward}")


def _tau2_message(message: dict[str, Any]) -> dict[str, Any]:
    role = message.get("role")
    if role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.get("id"),
            "content": message.get("content"),
        }
    out: dict[str, Any] = {"role": role, "content": message.get("content") or ""}
    calls = message.get("tool_calls") or []
    if calls:
        out["tool_calls"] = [
            {
                "id": call.get("id"),
                "type": "function",
                "function": {
                    "name": call.get("name"),
                    "arguments": json.dumps(call.get("arguments") or {}),
                },
            }
            for call in calls
        ]
    return out


def _tau2_rows(root: Path) -> Iterator[LabelledRow]:
    results = _load_json(root / "tau2_bench" / "trajectories" / "whissle_airline_run1.json")
    for simulation in results.get("simulations", []):
        reward = (simulation.get("reward_info") or {}).get("reward")
        if reward not in (0.0, 1.0):
            continue
        row_id = f"task{simulation['task_id']}-trial{simulation.get('trial', 0)}"
        messages = [_tau2_message(m) for m in simulation.get("messages", [])]
        sample = sample_from_row({"id": row_id, "messages": messages})
        yield LabelledRow(row_id, sample, reward == 1.0, f"tau2 reward {reward}")


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    yield json.loads(line)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}", path=str(path)) from None


def _bfcl_calls(result: Any) -> list[dict[str, Any]] | None:
    """The model's decoded calls (``[{name: arguments JSON}]``), or None when not calls."""
    if not isinstance(result, list) or not result:
        return None
    calls = []
    for number, item in enumerate(result):
        if not isinstance(item, dict) or len(item) != 1:
            return None
        ((name, arguments),) = item.items()
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        calls.append(
            {
                "id": f"call{number}",
                "type": "function",
                "function": {"name": name, "arguments": text},
            }
        )
    return calls


def _bfcl_rows(root: Path) -> Iterator[LabelledRow]:
    bfcl = root / "bfcl"
    for category in _BFCL_CATEGORIES:
        name = f"BFCL_v4_{category}"
        results = bfcl / "results" / _BFCL_MODEL / f"{name}_result.json"
        scores = bfcl / "scores" / _BFCL_MODEL / f"{name}_score.json"
        questions = bfcl / "data" / f"{name}.json"
        if not (results.is_file() and scores.is_file() and questions.is_file()):
            continue
        failed = {
            entry["id"]: str(entry.get("error_type") or "invalid")
            for entry in _jsonl(scores)
            if "id" in entry
        }
        asked = {entry["id"]: entry for entry in _jsonl(questions)}
        for entry in _jsonl(results):
            row_id = entry.get("id")
            question = asked.get(row_id)
            calls = _bfcl_calls(entry.get("result"))
            if question is None or calls is None:
                continue
            functions = json.dumps(question.get("function", []), ensure_ascii=False)
            turns = question.get("question") or [[]]
            messages = [
                {
                    "role": "system",
                    "content": "Functions the assistant may call (JSON schema):\n"
                    + functions[:_MAX_FUNCTIONS_CHARS],
                },
                *turns[0],
                {"role": "assistant", "content": "", "tool_calls": calls},
            ]
            sample = sample_from_row({"id": row_id, "messages": messages})
            error = failed.get(row_id)
            note = f"BFCL checker: {error}" if error else "BFCL checker: valid"
            yield LabelledRow(str(row_id), sample, error is None, note)


CALIBRATION_SETS: dict[str, CalibrationSet] = {
    s.name: s
    for s in (
        CalibrationSet(
            "tau-airline",
            "task_success",
            "task success on tau-bench's gpt-4o airline trajectories; label: its reward",
            "sierra-research/tau-bench, historical_trajectories/gpt-4o-airline.json",
            "MIT",
            "tau_bench/trajectories/gpt-4o-airline.json",
            _tau_rows,
        ),
        CalibrationSet(
            "tau2-airline",
            "task_success",
            "task success on a tau2-bench airline run; label: tau2's reward",
            "sierra-research/tau2-bench, results file of pull request 448",
            "MIT",
            "tau2_bench/trajectories/whissle_airline_run1.json",
            _tau2_rows,
        ),
        CalibrationSet(
            "bfcl-tools-error",
            "tools_error",
            "tool-call errors on BFCL V4 results; label: BFCL's own checker (error type as note)",
            f"ShishirPatil/gorilla, berkeley-function-call-leaderboard, model {_BFCL_MODEL}",
            "Apache-2.0",
            "bfcl/scores",
            _bfcl_rows,
        ),
    )
}


def data_root(given: str | os.PathLike[str] | None = None) -> Path:
    """Where the sets' data is read from: ``given``, ``$TOOLEVAL_SHARED_DATA``, ``../shared/data``."""
    if given:
        return Path(given)
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    return Path.cwd().parent / "shared" / "data"


def set_rows(
    name: str, *, data: str | os.PathLike[str] | None = None, rows: int = 40, seed: int = 7
) -> tuple[CalibrationSet, list[LabelledRow]]:
    """A seeded, label-balanced sample of ``rows`` rows of set ``name`` (0: every row).

    Raises :class:`ConfigError` naming the path and the option when the data is not there.
    """
    found = CALIBRATION_SETS.get(name)
    if found is None:
        raise ConfigError(
            f"unknown calibration set {name!r}; expected one of {', '.join(CALIBRATION_SETS)}",
            field="--set",
        )
    if rows < 0:
        raise ConfigError(f"expected a whole number >= 0, got {rows}", field="--rows")
    root = data_root(data)
    if not (root / found.needs).exists():
        raise ConfigError(
            f"calibration set {name!r} reads {found.needs} under the data folder, and "
            f"{root / found.needs} does not exist; pass --data DIR (the folder holding "
            f"{found.needs.split('/')[0]}/) or set ${DATA_ENV}",
            field="--data",
        )
    every = list(found.read(root))
    if not every:
        raise ConfigError(f"calibration set {name!r} found no labelled row under {root}")
    if rows == 0 or rows >= len(every):
        return found, every
    rng = random.Random(seed)
    passed = [r for r in every if r.passed]
    failed = [r for r in every if not r.passed]
    half = min(rows // 2, len(passed), len(failed))
    chosen = rng.sample(passed, half) + rng.sample(failed, half)
    taken = {r.row_id for r in chosen}
    rest = [r for r in every if r.row_id not in taken]
    chosen += rng.sample(rest, rows - len(chosen))
    rng.shuffle(chosen)
    return found, chosen


def store_set(
    store: Any,
    name: str,
    *,
    data: str | os.PathLike[str] | None = None,
    rows: int = 40,
    seed: int = 7,
) -> str:
    """Store a sample of set ``name`` as a run with its labels; return the run's id."""
    from tooleval.store import Label, MetricSpec, RowRecord

    found, chosen = set_rows(name, data=data, rows=rows, seed=seed)
    run_id: str = store.create_run(
        f"calibration set {name}",
        dataset={"calibration_set": name, "origin": found.origin, "licence": found.licence},
        connector={},
        metrics=[MetricSpec(found.metric)],
        config={"calibration_set": {"name": name, "rows": len(chosen), "seed": seed}},
        tags=["calibration-set"],
    )
    store.add_rows(
        run_id,
        [RowRecord(run_id, i, row.row_id, row.sample) for i, row in enumerate(chosen)],
    )
    labels = [
        Label(i, found.metric, row.passed, note=row.note, labeller=f"{name} (public labels)")
        for i, row in enumerate(chosen)
    ]
    store.labels.set_labels(run_id, labels)
    store.finish_run(run_id)
    return run_id
