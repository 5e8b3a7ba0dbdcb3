"""BFCL's multi-turn categories, graded as BFCL's ``multi_turn_checker`` grades them.

For each user turn, the model's decoded steps run on the model's instances
and the turn's reference calls on separate reference instances (both set up
once per entry from its ``initial_config``; state carries over between
turns). Then, for a turn with reference calls:

* a turn where the model made no decodable call fails
  (``multi_turn:empty_turn_model_response``);
* every public attribute of each reference instance must equal the model
  instance's (``multi_turn:instance_state_mismatch``);
* the turn's reference results must all be among the model's results of
  this and earlier turns, as a multiset (``multi_turn:execution_response_mismatch``).

A turn without reference calls is executed (its state counts later) but not
checked. Steps BFCL's decoder cannot read, or that decode to nothing, are
skipped. A result with a different number of turns than the reference is
``multi_turn:force_terminated``, one that is not a list
``multi_turn:inference_error``. ``multi_turn_long_context`` entries load
their long scenarios (``long_context=True``).

>>> verdict = check_entry(
...     {"id": "multi_turn_base_x", "involved_classes": ["MathAPI"], "initial_config": {}},
...     [["add(a=1, b=2)"]], [[[{"add": '{"a": 1, "b": 2}'}]]], mode="fc")
>>> verdict.valid, verdict.error_type
(True, None)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.benchmarks.bfcl.decode_python import BfclDecodeError
from tooleval.benchmarks.bfcl.multi_turn_data import MULTI_TURN_CATEGORIES
from tooleval.benchmarks.bfcl.multi_turn_env import BfclApis, UndecodableStep, api_version
from tooleval.benchmarks.bfcl.reader import decode_bfcl
from tooleval.environments.diff import state_diff
from tooleval.model import Diagnosis, Result

__all__ = [
    "MULTI_TURN_CATEGORIES",
    "MultiTurnVerdict",
    "check_entry",
    "decode_turns",
    "multi_turn_result",
]

METRIC = "bfcl_multi_turn"


@dataclass(slots=True)
class MultiTurnVerdict:
    """BFCL's verdict on one entry: ``valid``, its error type and message, and what ran."""

    valid: bool
    error_type: str | None = None
    error_message: str | None = None
    turn: int | None = None
    differences: list[dict[str, Any]] = field(default_factory=list)
    missing_results: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"valid": self.valid}
        for key in ("error_type", "error_message", "turn"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.differences:
            out["differences"] = self.differences
        if self.missing_results:
            out["missing_results"] = self.missing_results
        return out


def _normalised_step(step: Any, mode: str) -> Any:
    # BFCL's FC conversion takes one {name: args} object as a one-call list,
    # and each key of a several-key object as its own call.
    if mode == "fc":
        if isinstance(step, dict):
            step = [step]
        if isinstance(step, list) and all(isinstance(i, dict) for i in step):
            return [{k: v} for item in step for k, v in item.items()]
    return step


def decode_turns(result: Any, mode: str) -> list[list[list[dict[str, Any]]]]:
    """Per turn, the decodable, non-empty steps of a model's result (BFCL skips the others)."""
    turns: list[list[list[dict[str, Any]]]] = []
    for turn in result:
        steps = []
        for step in turn if isinstance(turn, list) else []:
            try:
                decoded = decode_bfcl(_normalised_step(step, mode), mode=mode)
            except (BfclDecodeError, ValueError, TypeError, RecursionError):
                continue
            if decoded:
                steps.append(decoded)
        turns.append(steps)
    return turns


def _has_empty_nested(value: Any) -> bool:
    """An argument BFCL's ``parse_nested_value`` cannot turn into text (an empty ``{}``)."""
    if not isinstance(value, dict):
        return False
    if all(isinstance(v, dict) for v in value.values()):  # read as a nested call: first key only
        return not value or any(_has_empty_nested(v) for v in next(iter(value.values())).values())
    return any(_has_empty_nested(v) for v in value.values())


def _executable(step: list[dict[str, Any]], nested: bool) -> bool:
    return not nested or not any(
        _has_empty_nested(v) for call in step for args in call.values() for v in args.values()
    )


def _run_step(apis: BfclApis, step: list[dict[str, Any]], nested: bool) -> list[str]:
    results = []
    for call in step:
        for name, args in call.items():
            try:
                results.append(apis.execute(name, args, nested=nested))
            except UndecodableStep as exc:  # unreachable after _executable; kept as an error text
                results.append(f"Error during execution: {exc}")
    return results


def _public(instance: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(instance).items() if not k.startswith("_")}


def _state_mismatch(
    model: BfclApis, reference: BfclApis
) -> tuple[str, list[dict[str, Any]]] | None:
    for class_name, ref in reference.instances.items():
        mine = model.instances[class_name]
        changed = [
            attr
            for attr, value in _public(ref).items()
            if getattr(mine, attr, _MISSING) != value  # BFCL's rule: Python ==, public attributes
        ]
        if changed:
            expected = {a: getattr(ref, a) for a in changed}
            actual = {a: getattr(mine, a, None) for a in changed}
            paths = [d.to_dict() for d in state_diff(expected, actual)] or [
                {"path": a, "expected": repr(expected[a]), "actual": repr(actual[a])}
                for a in changed
            ]
            return class_name, [{"class": class_name, **p} for p in paths[:50]]
    return None


_MISSING = object()


def _multiset_missing(wanted: Sequence[str], have: Sequence[str]) -> list[str]:
    pool = list(have)
    missing = []
    for item in wanted:
        try:
            pool.remove(item)
        except ValueError:
            missing.append(item)
    return missing


def check_entry(
    entry: Mapping[str, Any],
    ground_truth: Sequence[Sequence[str]],
    result: Any,
    *,
    mode: str = "fc",
) -> MultiTurnVerdict:
    """BFCL's verdict for one multi-turn entry (question ``entry``, its ``ground_truth``, ``result``)."""
    if not isinstance(result, list):
        return MultiTurnVerdict(
            False,
            "multi_turn:inference_error",
            "Error during inference phase. Model did not output a list of model responses.",
        )
    if len(result) != len(ground_truth):
        return MultiTurnVerdict(
            False,
            "multi_turn:force_terminated",
            f"Model was force-terminated during inference phase. The length of the model result "
            f"turns ({len(result)}) does not match the length of the ground truth turns "
            f"({len(ground_truth)}).",
        )
    category = str(entry["id"]).rsplit("_", 1)[0]
    long_context = "long_context" in category or "composite" in category
    classes, config = entry["involved_classes"], entry.get("initial_config") or {}
    model = BfclApis(classes, config, long_context=long_context)
    reference = BfclApis(classes, config, long_context=long_context)
    nested = not (mode == "fc" or mode.endswith("_fc"))  # prompting decoders read nested calls
    turns = [[s for s in steps if _executable(s, nested)] for steps in decode_turns(result, mode)]
    all_results: list[str] = []
    for index, (reference_calls, steps) in enumerate(zip(ground_truth, turns, strict=True)):
        for step in steps:
            all_results.extend(_run_step(model, step, nested))
        reference_results = [reference.run_text(text) for text in reference_calls]
        if not reference_calls:
            continue
        if not steps:
            return MultiTurnVerdict(
                False,
                "multi_turn:empty_turn_model_response",
                f"Model response list is empty for turn {index}",
                index,
            )
        mismatch = _state_mismatch(model, reference)
        if mismatch is not None:
            return MultiTurnVerdict(
                False,
                "multi_turn:instance_state_mismatch",
                f"Model instance for {mismatch[0]} does not match the state with ground truth "
                "instance.",
                index,
                differences=mismatch[1],
            )
        missing = _multiset_missing(reference_results, all_results)
        if missing:
            return MultiTurnVerdict(
                False,
                "multi_turn:execution_response_mismatch",
                f"Model response execution results so far does not contain all the ground truth "
                f"response execution results for turn {index}.",
                index,
                missing_results=missing,
            )
    return MultiTurnVerdict(True)


def multi_turn_result(
    entry: Mapping[str, Any],
    ground_truth: Sequence[Sequence[str]],
    result: Any,
    *,
    mode: str,
    metric: str = METRIC,
    params: Mapping[str, Any] | None = None,
) -> Result:
    """The verdict as a tooleval Result (score 1/0), naming the bfcl-eval version it ran on.

    The diagnosis ``details`` hold ``error`` (the short form of BFCL's label),
    ``bfcl_error_type`` (BFCL's label), ``bfcl`` (the verdict with the turn,
    differing paths and missing results) and ``bfcl_eval_version``.
    """
    version = api_version()
    verdict = check_entry(entry, ground_truth, result, mode=mode)
    details = {
        "kind": "multi_turn",
        "error": None if verdict.error_type is None else verdict.error_type.split(":", 1)[1],
        "bfcl_error_type": verdict.error_type,
        "bfcl": verdict.to_dict(),
        "bfcl_eval_version": version,
    }
    diagnosis = Diagnosis(details=details)
    used = {**(params or {}), "mode": mode}
    if verdict.valid:
        reason = "every turn matches BFCL's state and response checks"
    else:
        reason = f"{details['error']}: {verdict.error_message}"
    return Result.scored(
        metric,
        1.0 if verdict.valid else 0.0,
        reason=f"{reason} (bfcl-eval {version})",
        params=used,
        diagnosis=diagnosis,
    )


def multi_turn_mode(result: Any, mode: str) -> str:
    """``fc`` or ``prompt`` for ``mode="auto"`` (text steps are prompting), else ``mode``."""
    if mode != "auto":
        return mode
    steps = (
        [s for turn in result if isinstance(turn, list) for s in turn]
        if isinstance(result, list)
        else []
    )
    return "prompt" if any(isinstance(s, str) for s in steps) else "fc"
