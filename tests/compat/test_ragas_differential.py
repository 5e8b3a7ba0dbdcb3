"""Differential test: tooleval.compat.ragas against the real ragas 0.4.3.

Random conversations from a seeded generator (repeated tool names, nested and
non-string argument values, look-alike values such as 1 / 1.0 / "1" / True,
empty lists on either side, length mismatches, calls spread over several AI
messages) are scored by both libraries; every score must be the same float.
ragas runs inside one event loop for the whole batch to keep this fast.
"""

from __future__ import annotations

import asyncio
import copy
import os
import random
import warnings
from typing import Any

import pytest

# ragas reads this when its analytics module is imported: no telemetry from tests.
os.environ["RAGAS_DO_NOT_TRACK"] = "true"

pytest.importorskip(
    "ragas",
    reason="ragas is not installed; install the `ragas-compat-test` extra to run the "
    "differential test against ragas 0.4.3",
)

import ragas  # noqa: E402
from ragas.dataset_schema import MultiTurnSample as RMultiTurnSample  # noqa: E402
from ragas.messages import AIMessage as RAIMessage  # noqa: E402
from ragas.messages import HumanMessage as RHumanMessage  # noqa: E402
from ragas.messages import ToolCall as RToolCall  # noqa: E402
from ragas.messages import ToolMessage as RToolMessage  # noqa: E402
from ragas.metrics._string import DistanceMeasure as RDistanceMeasure  # noqa: E402
from ragas.metrics._string import NonLLMStringSimilarity as RNonLLM  # noqa: E402
from ragas.metrics._tool_call_accuracy import ToolCallAccuracy as RToolCallAccuracy  # noqa: E402
from ragas.metrics._tool_call_f1 import ToolCallF1 as RToolCallF1  # noqa: E402
from ragas.metrics.collections import ToolCallAccuracy as CToolCallAccuracy  # noqa: E402
from ragas.metrics.collections import ToolCallF1 as CToolCallF1  # noqa: E402

from tooleval.compat import ragas as compat  # noqa: E402

N_SAMPLES = 10_000
N_SIMILARITY = 800  # per distance measure, through ragas' slower legacy path
SEED = 20240607

NAMES = ["search", "filter", "get_weather", "book", "lookup"]
KEYS = ["q", "city", "limit", "date", "opts", "tags", "x"]
STRINGS = ["Paris", "paris", "1", "True", "", "None", "a b", "[1, 2]", "Pariss"]
SCALARS: list[Any] = [0, 1, 2, 10, -1, 1.0, 0.5, 2.0, 1e20, 0.1 + 0.2, True, False, None]


def _value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if r < 0.4 or depth >= 2:
        return rng.choice(STRINGS) if rng.random() < 0.55 else rng.choice(SCALARS)
    if r < 0.7:
        items = [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        return tuple(items) if rng.random() < 0.1 else items
    return {k: _value(rng, depth + 1) for k in rng.sample(KEYS, rng.randint(0, 3))}


def _call(rng: random.Random) -> dict[str, Any]:
    keys = rng.sample(KEYS, rng.choice([0, 1, 1, 2, 2, 3]))
    return {"name": rng.choice(NAMES), "args": {k: _value(rng) for k in keys}}


def _look_alike(rng: random.Random, value: Any) -> Any:
    """A value that may print or hash the same as ``value`` without being it."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)  # same dict, different key order: str() differs
        return dict(items)
    if isinstance(value, list):
        return tuple(value) if rng.random() < 0.5 else list(reversed(value))
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return rng.choice([float(value), str(value), value + 1])
    if isinstance(value, float):
        return rng.choice([int(value), str(value), value])
    if isinstance(value, str):
        return rng.choice([value.upper(), value + "s", value, rng.choice(STRINGS)])
    return rng.choice(SCALARS)


def _mutate(rng: random.Random, call: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(call)
    r = rng.random()
    if r < 0.15:
        out["name"] = rng.choice(NAMES)
    elif r < 0.3 and out["args"]:
        out["args"].pop(rng.choice(list(out["args"])))
    elif r < 0.4:
        out["args"][rng.choice(KEYS)] = _value(rng)
    elif r < 0.5:
        items = list(out["args"].items())
        rng.shuffle(items)
        out["args"] = dict(items)
    elif out["args"]:
        key = rng.choice(list(out["args"]))
        out["args"][key] = _look_alike(rng, out["args"][key])
    return out


def _predicted(rng: random.Random, reference: list[dict[str, Any]]) -> list[dict[str, Any]]:
    mode = rng.random()
    if mode < 0.08:
        return []
    if mode < 0.16:
        return [_call(rng) for _ in range(rng.randint(1, 5))]
    if mode < 0.3:
        return copy.deepcopy(reference)
    pred = [_mutate(rng, c) if rng.random() < 0.35 else copy.deepcopy(c) for c in reference]
    if rng.random() < 0.3:
        rng.shuffle(pred)
    if pred and rng.random() < 0.15:
        pred.pop(rng.randrange(len(pred)))
    if rng.random() < 0.15:
        pred.insert(rng.randint(0, len(pred)), _call(rng))
    if pred and rng.random() < 0.12:
        pred.insert(rng.randint(0, len(pred)), copy.deepcopy(rng.choice(pred)))
    return pred


def _conversation(rng: random.Random, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Spread ``calls`` over 1-3 AI messages with the surrounding turns ragas allows."""
    messages: list[dict[str, Any]] = [{"type": "human", "content": "please help"}]
    if rng.random() < 0.2:
        # An AI turn without calls, spelled both ways ragas accepts.
        messages.append({"type": "ai", "content": "thinking", "tool_calls": rng.choice([None, []])})
    rest = list(calls)
    while rest:
        take = rng.randint(1, len(rest))
        chunk, rest = rest[:take], rest[take:]
        messages.append({"type": "ai", "content": "", "tool_calls": chunk})
        for _ in range(rng.randint(0, len(chunk))):
            messages.append({"type": "tool", "content": "ok"})
        if rng.random() < 0.3:
            messages.append({"type": "human", "content": "and then?"})
    messages.append({"type": "ai", "content": "done"})
    return messages


def generate(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        size = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4, 5, 8])
        # Few distinct names per case, so repeated tool names are common.
        reference = [_call(rng) for _ in range(size)]
        if reference and rng.random() < 0.3:
            reference.append(copy.deepcopy(rng.choice(reference)))
        cases.append(
            {
                "messages": _conversation(rng, _predicted(rng, reference)),
                "reference": reference,
            }
        )
    return cases


def _ragas_sample(case: dict[str, Any]) -> RMultiTurnSample:
    kinds = {"human": RHumanMessage, "tool": RToolMessage}
    messages = []
    for m in case["messages"]:
        if m["type"] == "ai":
            calls = m.get("tool_calls")
            messages.append(
                RAIMessage(
                    content=m["content"],
                    tool_calls=None if calls is None else [RToolCall(**c) for c in calls],
                )
            )
        else:
            messages.append(kinds[m["type"]](content=m["content"]))
    return RMultiTurnSample(
        user_input=messages, reference_tool_calls=[RToolCall(**c) for c in case["reference"]]
    )


def _compat_sample(case: dict[str, Any]) -> compat.MultiTurnSample:
    kinds = {"human": compat.HumanMessage, "tool": compat.ToolMessage}
    messages = []
    for m in case["messages"]:
        if m["type"] == "ai":
            calls = m.get("tool_calls")
            messages.append(
                compat.AIMessage(
                    content=m["content"],
                    tool_calls=None if calls is None else [compat.ToolCall(**c) for c in calls],
                )
            )
        else:
            messages.append(kinds[m["type"]](content=m["content"]))
    return compat.MultiTurnSample(
        user_input=messages,
        reference_tool_calls=[compat.ToolCall(**c) for c in case["reference"]],
    )


def _warned(caught: list[warnings.WarningMessage]) -> bool:
    return any(issubclass(w.category, UserWarning) for w in caught)


async def _ragas_legacy_scores(metric: Any, samples: list[RMultiTurnSample]) -> list[tuple]:
    out = []
    for s in samples:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            score = await metric.multi_turn_ascore(s)
        out.append((score, _warned([w for w in caught if "tool_call" in w.filename])))
    return out


async def _ragas_collection_scores(metric: Any, samples: list[RMultiTurnSample]) -> list[float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            (
                await metric.ascore(
                    user_input=s.user_input, reference_tool_calls=s.reference_tool_calls
                )
            ).value
            for s in samples
        ]


def _compat_legacy_scores(metric: Any, samples: list[compat.MultiTurnSample]) -> list[tuple]:
    out = []
    for s in samples:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            score = metric.multi_turn_score(s)
        out.append((score, _warned(caught)))
    return out


def _mismatches(name: str, cases: list, ours: list, theirs: list) -> list[str]:
    bad = []
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if a != b or type(a) is not type(b):
            bad.append(f"{name} case {i}: tooleval {a!r} vs ragas {b!r}: {cases[i]}")
    return bad


@pytest.fixture(scope="module")
def corpus() -> tuple[list, list, list]:
    cases = generate(N_SAMPLES, SEED)
    return cases, [_ragas_sample(c) for c in cases], [_compat_sample(c) for c in cases]


def test_ragas_version_is_the_pinned_one() -> None:
    assert ragas.__version__ == "0.4.3"


def test_corpus_covers_the_hard_cases(corpus) -> None:
    cases, _, samples = corpus
    predicted = [s.predicted_tool_calls() for s in samples]
    reference = [s.reference_tool_calls for s in samples]
    assert len(cases) >= 10_000
    assert sum(1 for p in predicted if not p) > 500
    assert sum(1 for r in reference if not r) > 500
    assert sum(1 for p, r in zip(predicted, reference, strict=True) if len(p) != len(r)) > 1000
    assert sum(1 for r in reference if len({c.name for c in r}) < len(r)) > 1000
    nested = sum(
        1 for r in reference for c in r for v in c.args.values() if isinstance(v, dict | list)
    )
    assert nested > 2000


@pytest.mark.parametrize("strict_order", [True, False])
def test_tool_call_accuracy_legacy_scores_and_warnings_match(corpus, strict_order) -> None:
    cases, theirs, ours = corpus
    expected = asyncio.run(
        _ragas_legacy_scores(RToolCallAccuracy(strict_order=strict_order), theirs)
    )
    actual = _compat_legacy_scores(compat.ToolCallAccuracy(strict_order=strict_order), ours)
    bad = _mismatches(f"accuracy strict={strict_order}", cases, actual, expected)
    assert not bad, f"{len(bad)} mismatches, first: " + "\n".join(bad[:5])
    scores = {score for score, _ in actual}
    assert {0.0, 1.0} < scores and len(scores) > 5  # the corpus reaches partial scores


@pytest.mark.parametrize("strict_order", [True, False])
def test_tool_call_accuracy_collections_api_matches(corpus, strict_order) -> None:
    cases, theirs, ours = corpus
    expected = asyncio.run(
        _ragas_collection_scores(CToolCallAccuracy(strict_order=strict_order), theirs)
    )
    metric = compat.ToolCallAccuracy(strict_order=strict_order)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        actual = [
            r.value
            for r in metric.batch_score(
                [
                    {"user_input": s.user_input, "reference_tool_calls": s.reference_tool_calls}
                    for s in ours
                ]
            )
        ]
    bad = _mismatches(f"collections accuracy strict={strict_order}", cases, actual, expected)
    assert not bad, f"{len(bad)} mismatches, first: " + "\n".join(bad[:5])


def test_tool_call_f1_matches_both_ragas_apis(corpus) -> None:
    cases, theirs, ours = corpus
    legacy = asyncio.run(_ragas_legacy_scores(RToolCallF1(), theirs))
    collections = asyncio.run(_ragas_collection_scores(CToolCallF1(), theirs))
    metric = compat.ToolCallF1()
    actual = [metric.multi_turn_score(s) for s in ours]
    bad = _mismatches("f1 legacy", cases, actual, [score for score, _ in legacy])
    bad += _mismatches("f1 collections", cases, actual, collections)
    assert not bad, f"{len(bad)} mismatches, first: " + "\n".join(bad[:5])
    assert len(set(actual)) > 5


@pytest.mark.parametrize("measure", ["levenshtein", "hamming", "jaro", "jaro_winkler"])
@pytest.mark.parametrize("strict_order", [True, False])
def test_string_similarity_argument_comparison_matches(corpus, measure, strict_order) -> None:
    cases, theirs, ours = corpus
    cases, theirs, ours = cases[:N_SIMILARITY], theirs[:N_SIMILARITY], ours[:N_SIMILARITY]
    theirs_metric = RToolCallAccuracy(
        strict_order=strict_order,
        arg_comparison_metric=RNonLLM(distance_measure=RDistanceMeasure(measure)),
    )
    expected = asyncio.run(_ragas_legacy_scores(theirs_metric, theirs))
    ours_metric = compat.ToolCallAccuracy(
        strict_order=strict_order,
        arg_comparison_metric=compat.NonLLMStringSimilarity(compat.DistanceMeasure(measure)),
    )
    actual = _compat_legacy_scores(ours_metric, ours)
    bad = _mismatches(f"{measure} strict={strict_order}", cases, actual, expected)
    assert not bad, f"{len(bad)} mismatches, first: " + "\n".join(bad[:5])


def test_a_ragas_similarity_object_is_accepted_as_is(corpus) -> None:
    # A migrating user may keep their ragas comparator object: it is read by
    # shape (its distance_measure), not by importing ragas.
    cases, theirs, ours = corpus
    ragas_similarity = RNonLLM(distance_measure=RDistanceMeasure.JARO)
    expected = asyncio.run(
        _ragas_legacy_scores(
            RToolCallAccuracy(arg_comparison_metric=ragas_similarity), theirs[:300]
        )
    )
    actual = _compat_legacy_scores(
        compat.ToolCallAccuracy(arg_comparison_metric=ragas_similarity), ours[:300]
    )
    assert not _mismatches("ragas object", cases, actual, expected)
