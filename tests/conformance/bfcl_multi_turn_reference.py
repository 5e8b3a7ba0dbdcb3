"""BFCL's own multi-turn evaluation, run as the reference in the tests (never in src/).

``reference_verdict`` does what ``eval_runner._evaluate_single_multi_turn_entry``
does (that module imports every provider SDK, so its few lines are restated
here) with BFCL's own decoders and ``multi_turn_checker``.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import random
from pathlib import Path
from typing import Any

_names = itertools.count()


def reference_verdict(entry: dict[str, Any], ground_truth: list[list[str]], result: Any, mode: str):
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import is_empty_execute_response
    from bfcl_eval.model_handler.utils import (
        convert_to_function_call,
        default_decode_execute_prompting,
    )

    if type(result) is not list:
        return False, "multi_turn:inference_error"
    if len(result) != len(ground_truth):
        return False, "multi_turn:force_terminated"
    decode = convert_to_function_call if mode == "fc" else default_decode_execute_prompting
    decoded_turns = []
    for turn in result:
        steps = []
        for step in turn:
            try:
                decoded = decode(step)
                if is_empty_execute_response(decoded):
                    continue
                steps.append(decoded)
            except Exception:
                continue
        decoded_turns.append(steps)
    # BFCL keeps instances in module globals keyed by model name and entry id: a fresh
    # name per call keeps verdicts independent; the instances are dropped afterwards.
    name = f"reference{next(_names)}"
    try:
        verdict = multi_turn_checker(
            decoded_turns, ground_truth, copy.deepcopy(entry), entry["id"].rsplit("_", 1)[0], name
        )
    finally:
        for key in [k for k in vars(multi_turn_utils) if k.startswith(name)]:
            del vars(multi_turn_utils)[key]
    return verdict["valid"], verdict.get("error_type")


# ------------------------------------------------------------- seeded mutations of ground truth

MUTATIONS = (
    "exact",
    "wrong_argument",
    "missing_call",
    "extra_write",
    "reordered_writes",
    "undecodable_step",
    "prompt_exact",
    "prompt_wrong_argument",
)


def _fc_step(name: str, kwargs: dict[str, Any]) -> list[dict[str, str]]:
    return [{name: json.dumps(kwargs)}]


def _prompt_step(name: str, kwargs: dict[str, Any]) -> str:
    return "[" + name + "(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")]"


def _changed(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + rng.choice((1, 7, -3))
    if isinstance(value, str):
        return value + rng.choice(("_x", "2", " "))
    if isinstance(value, list):
        return value[1:] if value else ["x"]
    if isinstance(value, dict):
        return {**value, "extra": 1}
    return "changed"


def mutate(ground_truth: list[list[str]], kind: str, seed: int) -> tuple[Any, str]:
    """A model result (and its mode) made from ``ground_truth`` with one seeded change."""
    from tooleval.benchmarks.bfcl.multi_turn_env import parse_call_text

    rng = random.Random(f"{kind}:{seed}")
    turns = [[parse_call_text(text) for text in turn] for turn in ground_truth]
    calls = [(t, i) for t, turn in enumerate(turns) for i in range(len(turn))]
    if kind.endswith("wrong_argument"):
        with_args = [(t, i) for t, i in calls if turns[t][i][2]]
        if with_args:
            t, i = rng.choice(with_args)
            name, args, kwargs = turns[t][i]
            key = rng.choice(sorted(kwargs))
            turns[t][i] = (name, args, {**kwargs, key: _changed(kwargs[key], rng)})
    elif kind == "missing_call" and calls:
        t, i = rng.choice(calls)
        del turns[t][i]
    elif kind == "extra_write" and calls:
        t, i = rng.choice(calls)
        turns[t].insert(i + 1, turns[t][i])
    elif kind == "reordered_writes":
        pairs = [(t, i) for t, turn in enumerate(turns) for i in range(len(turn) - 1)]
        if pairs:
            t, i = rng.choice(pairs)
            turns[t][i], turns[t][i + 1] = turns[t][i + 1], turns[t][i]
    mode = "prompt" if kind.startswith("prompt") else "fc"
    render = _prompt_step if mode == "prompt" else _fc_step
    result: list[list[Any]] = [[render(name, kwargs) for name, _, kwargs in turn] for turn in turns]
    if kind == "undecodable_step" and calls:
        t, i = rng.choice(calls)
        result[t][i] = rng.choice(([{turns[t][i][0]: "{not json"}], "I will now do it.", [[1, 2]]))
    return result, mode


@functools.cache
def load_multi_turn(category: str) -> tuple[tuple[dict[str, Any], list[list[str]]], ...]:
    """(question, ground truth) pairs of one category from bfcl-eval's own data.

    Read once per process and shared: callers never change them (both checkers copy an
    entry's initial state before they run it).
    """
    import bfcl_eval

    root = Path(bfcl_eval.__file__).parent / "data"
    answers = {}
    for line in (root / "possible_answer" / f"BFCL_v4_{category}.json").read_text().splitlines():
        item = json.loads(line)
        answers[item["id"]] = item["ground_truth"]
    pairs = []
    for line in (root / f"BFCL_v4_{category}.json").read_text().splitlines():
        entry = json.loads(line)
        pairs.append((entry, answers[entry["id"]]))
    return tuple(pairs)
