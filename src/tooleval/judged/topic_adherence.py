"""Topic adherence: does the agent stay inside its allowed topics?

Two judge calls: the first lists the subjects the user raised; the second
decides, for every subject at once, whether the agent *answered* it and
whether it is *on topic* (belongs to a reference topic). From the counts

- precision = answered on-topic / all answered
- recall    = answered on-topic / (answered on-topic + refused on-topic)
- f1        = 2·answered on-topic / (2·answered on-topic + answered off-topic + refused on-topic)

computed from integers, so a perfect row is exactly 1.0. Undefined cases are
stated, not hidden: no subject extracted → unscored; a ratio whose
denominator is 0 (precision when nothing was answered, recall when no subject
was on topic, f1 when neither applies) → ``empty`` (default ``"unscored"``;
``"zero"`` scores 0.0, ``"perfect"`` 1.0), the option every metric has for
"nothing to compare". The seed's names stay as aliases: ``mode`` for
``measure``, ``zero_division`` (None / 0.0 / 1.0) for ``empty``.

>>> topic_adherence_score({"answered_on": 2, "answered_off": 1, "refused_on": 0,
...                        "refused_off": 0}, "precision")
0.6666666666666666
>>> topic_adherence_score({"answered_on": 2, "answered_off": 0, "refused_on": 0,
...                        "refused_off": 1}, "recall")
1.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from tooleval.judged.flow import Ask, Flow, arun_flow, require_judge, run_flow
from tooleval.judged.prompts import (
    TOPIC_EXTRACT_SCHEMA,
    TOPIC_EXTRACT_TEMPLATE,
    TOPIC_VERDICT_SCHEMA,
    TOPIC_VERDICT_TEMPLATE,
    TRANSCRIPT_LEGEND,
    messages_for,
)
from tooleval.judged.render import render_conversation
from tooleval.model import Alias, Aliases, Diagnosis, Result, Sample
from tooleval.model.metric import (
    EMPTY_CHOICES,
    MAX_CHARS_HELP,
    THRESHOLD_HELP,
    Empty,
    metric,
    with_async,
)

__all__ = [
    "ALIASES",
    "EMPTY_CHOICES",
    "MEASURES",
    "Measure",
    "atopic_adherence",
    "count_topic_verdicts",
    "topic_adherence",
    "topic_adherence_score",
    "topic_extract_messages",
    "topic_verdict_messages",
]

METRIC = "topic_adherence"
#: What share the score is: of answers on topic, of on-topic requests answered, or their F1.
Measure = Literal["precision", "recall", "f1"]
MEASURES: tuple[str, ...] = get_args(Measure)
_EMPTY_SCORES = {"perfect": 1.0, "zero": 0.0}
ALIASES = Aliases(
    names={
        "mode": Alias({m: {"measure": m} for m in MEASURES}, "former name of measure"),
        "zero_division": Alias(
            {None: {"empty": "unscored"}, 0.0: {"empty": "zero"}, 1.0: {"empty": "perfect"}},
            "former name of empty: null is unscored, 0.0 zero, 1.0 perfect",
        ),
    }
)


def topic_extract_messages(conversation: str) -> list[dict[str, str]]:
    prompt = TOPIC_EXTRACT_TEMPLATE.format(legend=TRANSCRIPT_LEGEND, conversation=conversation)
    return messages_for(prompt)


def topic_verdict_messages(
    conversation: str, topics: Sequence[str], reference_topics: Sequence[str]
) -> list[dict[str, str]]:
    numbered = "\n".join(f"{i}. {t}" for i, t in enumerate(topics, start=1))
    allowed = ", ".join(f'"{t}"' for t in reference_topics)
    prompt = TOPIC_VERDICT_TEMPLATE.format(
        reference_topics=f"[{allowed}]",
        topics=numbered,
        legend=TRANSCRIPT_LEGEND,
        conversation=conversation,
    )
    return messages_for(prompt)


def clean_topics(raw: Sequence[str]) -> list[str]:
    """Drop blanks and case-insensitive duplicates, keep order."""
    seen: set[str] = set()
    out = []
    for topic in raw:
        text = topic.strip()
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out


def check_verdicts(parsed: Mapping[str, Any], count: int) -> str | None:
    """One verdict per subject, numbered 1..count (or in order without numbers)."""
    verdicts = parsed["verdicts"]
    if len(verdicts) != count:
        return f"expected {count} verdict(s), one per subject, got {len(verdicts)}"
    numbers = sorted(v["subject"] for v in verdicts)
    if numbers != list(range(1, count + 1)):
        return f"subjects must be numbered 1 to {count}, got {numbers}"
    return None


def count_topic_verdicts(verdicts: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Counts of answered/refused × on/off topic from per-subject verdicts."""
    counts = {"answered_on": 0, "answered_off": 0, "refused_on": 0, "refused_off": 0}
    for verdict in verdicts:
        kind = "answered" if verdict["answered"] else "refused"
        side = "on" if verdict["on_topic"] else "off"
        counts[f"{kind}_{side}"] += 1
    return counts


def topic_adherence_score(counts: Mapping[str, int], measure: str) -> float | None:
    """The ``measure`` ratio from counts, or None when its denominator is 0."""
    good = counts["answered_on"]
    if measure == "precision":
        denominator = good + counts["answered_off"]
        numerator = good
    elif measure == "recall":
        denominator = good + counts["refused_on"]
        numerator = good
    else:
        denominator = 2 * good + counts["answered_off"] + counts["refused_on"]
        numerator = 2 * good
    if denominator == 0:
        return None
    return numerator / denominator


def _topic_flow(
    sample: Sample,
    reference_topics: Sequence[str],
    measure: str,
    empty: str,
    params: dict[str, Any],
    threshold: float | None,
    max_chars: int,
) -> Flow:
    conversation = render_conversation(sample, max_chars=max_chars)
    extracted = yield Ask(
        "extract_topics", topic_extract_messages(conversation), TOPIC_EXTRACT_SCHEMA
    )
    topics = clean_topics(extracted["topics"])
    details: dict[str, Any] = {"topics": topics, "reference_topics": list(reference_topics)}
    if not topics:
        return Result.unscored(
            METRIC,
            "the judge found no topic in the user's messages",
            params=params,
            threshold=threshold,
            diagnosis=Diagnosis(details=details),
        )
    parsed = yield Ask(
        "topic_verdicts",
        topic_verdict_messages(conversation, topics, reference_topics),
        TOPIC_VERDICT_SCHEMA,
        check=lambda value: check_verdicts(value, len(topics)),
    )
    verdicts = sorted(parsed["verdicts"], key=lambda v: v["subject"])
    details["verdicts"] = [
        {"topic": topics[v["subject"] - 1], "answered": v["answered"], "on_topic": v["on_topic"]}
        for v in verdicts
    ]
    counts = count_topic_verdicts(verdicts)
    details["counts"] = counts
    for name in MEASURES:
        details[name] = topic_adherence_score(counts, name)
    score = details[measure]
    off = [v["topic"] for v in details["verdicts"] if v["answered"] and not v["on_topic"]]
    refused = [v["topic"] for v in details["verdicts"] if not v["answered"] and v["on_topic"]]
    summary = f"{len(topics)} topic(s); answered off-topic: {off or 'none'}; refused on-topic: {refused or 'none'}"
    if score is None:
        if empty == "unscored":
            return Result.unscored(
                METRIC,
                f"{measure} is undefined for this row ({summary}; empty='unscored')",
                params=params,
                threshold=threshold,
                diagnosis=Diagnosis(details=details),
            )
        score = _EMPTY_SCORES[empty]
        summary += f"; {measure} undefined, empty={empty!r}"
    return Result.scored(
        METRIC,
        score,
        reason=f"{measure} {score:.3g}: {summary}",
        params=params,
        threshold=threshold,
        diagnosis=Diagnosis(details=details),
    )


def _prepare(sample, reference_topics, measure, empty, threshold, max_chars):
    topics = reference_topics if reference_topics is not None else sample.reference_topics
    params = {"measure": measure, "empty": empty}
    if isinstance(topics, str):
        topics = [t for t in (p.strip() for p in topics.split(",")) if t]
    if not topics:
        return params, None
    return params, _topic_flow(sample, list(topics), measure, empty, params, threshold, max_chars)


def _no_topics(params, threshold) -> Result:
    return Result.unscored(
        METRIC,
        "no reference_topics for this row (pass reference_topics= or bind a reference_topics column)",
        params=params,
        threshold=threshold,
    )


@metric(
    METRIC,
    "LLM judge: share of the agent's answers that stay within the row's reference_topics "
    "(precision), or of on-topic requests it answered (recall), or F1",
    requires=("messages", "reference_topics"),
    help={
        "measure": "precision, recall or f1",
        "empty": "nothing to compare (the measure's denominator is 0, e.g. precision when "
        "nothing was answered): perfect (1.0), zero (0.0) or unscored",
        "max_chars": MAX_CHARS_HELP,
        "threshold": THRESHOLD_HELP,
    },
    aliases=ALIASES,
)
def topic_adherence(
    sample: Sample,
    reference_topics: Sequence[str] | None = None,
    *,
    judge: Any = None,
    measure: Measure = "precision",
    empty: Empty = "unscored",
    max_chars: int = 2000,
    threshold: float | None = None,
) -> Result:
    """Share of the agent's engagement that stayed within ``reference_topics``.

    ``reference_topics`` defaults to ``sample.reference_topics``; without any,
    the row is unscored. See the module docstring for the three measures and
    the undefined cases (``empty``).
    """
    judge = require_judge(judge, METRIC)
    params, flow = _prepare(sample, reference_topics, measure, empty, threshold, max_chars)
    if flow is None:
        return _no_topics(params, threshold)
    return run_flow(flow, judge, metric=METRIC, params=params, threshold=threshold)


@with_async(topic_adherence)
async def atopic_adherence(
    sample: Sample,
    reference_topics: Sequence[str] | None = None,
    *,
    judge: Any = None,
    measure: Measure = "precision",
    empty: Empty = "unscored",
    max_chars: int = 2000,
    threshold: float | None = None,
) -> Result:
    """Async twin of :func:`topic_adherence`."""
    judge = require_judge(judge, METRIC)
    params, flow = _prepare(sample, reference_topics, measure, empty, threshold, max_chars)
    if flow is None:
        return _no_topics(params, threshold)
    return await arun_flow(flow, judge, metric=METRIC, params=params, threshold=threshold)
