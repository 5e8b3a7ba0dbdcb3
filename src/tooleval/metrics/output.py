"""``output_contains``: does the agent's final answer contain the given values?

A cheap, judge-free complement to the call metrics, e.g. to pin down the
order id a row is about.

>>> output_contains(["4471"], "Order 4471 is cancelled.").score
1.0
>>> r = output_contains(["4471", "refund"], "Order 4471 is cancelled.")
>>> r.score, r.reason
(0.0, "output contains 1 of 2 values (require 'all'); output lacks 'refund'")
>>> output_contains(["4471", "refund"], "Order 4471 is cancelled.", require="any").score
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

from tooleval.errors import ConfigError
from tooleval.metrics._analysis import THRESHOLD_HELP, choice, threshold_value
from tooleval.metrics.reasons import capped, explain
from tooleval.model import Alias, Aliases, Diagnosis, Result, Sample, accepts_aliases
from tooleval.model.metric import metric

__all__ = [
    "ALIASES",
    "MESSAGE_SCOPES",
    "REQUIRE",
    "MessageScope",
    "Require",
    "agent_texts",
    "output_contains",
    "output_contains_sample",
]

NAME = "output_contains"
#: Every value must appear, or one is enough.
Require = Literal["all", "any"]
#: Where to look: the final answer, or every agent message (tau-bench's check).
MessageScope = Literal["final", "agent"]
REQUIRE: tuple[str, ...] = get_args(Require)
MESSAGE_SCOPES: tuple[str, ...] = get_args(MessageScope)
#: The seed called ``require`` ``mode`` (a name other metrics use for other things).
ALIASES = Aliases(
    names={"mode": Alias({v: {"require": v} for v in REQUIRE}, "former name of require")}
)


def agent_texts(messages: Sequence[Any]) -> list[str]:
    """Every assistant message's text with commas removed, as tau-bench reads them.

    tau-bench's output check looks for each expected output in each agent
    reply, lower-cased, after ``.replace(",", "")`` (so ``"1,093"`` is found
    as ``"1093"``); pass the list to :func:`output_contains`.

    >>> from tooleval.model import AssistantMessage, UserMessage
    >>> agent_texts([UserMessage("hi"), AssistantMessage("Total: 1,093.34")])
    ['Total: 1093.34']
    """
    out = []
    for message in messages:
        if getattr(message, "role", None) == "assistant":
            content = getattr(message, "content", "") or ""
            out.append(content.replace(",", ""))
    return out


@accepts_aliases(NAME, ALIASES)
def output_contains(
    values: Sequence[Any] | str | None,
    output: str | Sequence[str] | None,
    *,
    require: Require = "all",
    case_sensitive: bool = False,
    threshold: float | None = None,
) -> Result:
    """1.0 when ``output`` contains every value (``require="all"``) or any value (``"any"``).

    Values that are not strings are looked for as text (``4471`` finds
    "4471"). Matching ignores case unless ``case_sensitive``. No values at
    all: unscored (there is nothing to check). A missing output is "".
    ``output`` may also be a list of texts (e.g. every agent message, see
    :func:`agent_texts`): a value is found when one of them contains it.

    >>> output_contains([], "anything").score is None
    True
    """
    require = choice(require, "require", REQUIRE, metric=NAME)  # type: ignore[assignment]
    if not isinstance(case_sensitive, bool):
        raise ConfigError(
            f"{NAME}: case_sensitive must be true or false, got {case_sensitive!r}",
            field="case_sensitive",
        )
    threshold = threshold_value(threshold, metric=NAME)
    params = {"require": require, "case_sensitive": case_sensitive, "threshold": threshold}
    wanted = _wanted(values)
    if not wanted:
        return Result.unscored(
            NAME, "no values to look for in the output", params=params, threshold=threshold
        )
    texts = _texts(output)
    haystacks = texts if case_sensitive else [t.casefold() for t in texts]
    found = [
        v for v in wanted if any((v if case_sensitive else v.casefold()) in h for h in haystacks)
    ]
    return _verdict(wanted, found, require, params, threshold)


def _wanted(values: Any) -> list[str]:
    """The values to look for, as non-empty texts (one string is one value)."""
    if isinstance(values, str):
        values = [values]
    if values is not None and not isinstance(values, Sequence):
        raise ConfigError(
            f"{NAME}: values must be a list of strings, got {type(values).__name__}",
            field="values",
        )
    wanted = [v if isinstance(v, str) else _text(v) for v in (values or []) if v is not None]
    return [v for v in wanted if v != ""]


def _checked_values(values: Any) -> Any:
    """The validator of the ``values`` option (kept as given)."""
    try:
        _wanted(values)
    except ConfigError as exc:  # "output_contains: values must ...": the caller names the metric
        raise ConfigError(exc.message.removeprefix(f"{NAME}: "), field="values") from None
    return values


def _texts(output: Any) -> list[str]:
    """The texts to search: one output, or each of a list of them (a missing output is "")."""
    if isinstance(output, str) or output is None:
        return ["" if output is None else output]
    if isinstance(output, Sequence):
        return [t if isinstance(t, str) else str(t) for t in output]
    return [str(output)]


def _verdict(
    wanted: list[str],
    found: list[str],
    require: str,
    params: dict[str, Any],
    threshold: float | None,
) -> Result:
    missing = [v for v in wanted if v not in found]
    ok = not missing if require == "all" else bool(found)
    details: dict[str, Any] = {
        "values": [capped(v) for v in wanted],
        "found": [capped(v) for v in found],
        "require": require,
    }
    if missing:
        # With "any" and a hit, absent values are not a defect: keep them out of the reason.
        key = "absent_values" if ok and require == "any" else "missing_values"
        details[key] = [capped(v) for v in missing]
    diagnosis = Diagnosis(details=details)
    summary = f"output contains {len(found)} of {len(wanted)} values (require {require!r})"
    return Result.scored(
        NAME,
        1.0 if ok else 0.0,
        reason=explain(diagnosis, summary),
        params=params,
        threshold=threshold,
        diagnosis=diagnosis,
    )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@metric(
    NAME,
    "the final output contains the given values (metadata.output_contains or the values "
    "option); no judge",
    requires=("output",),
    help={
        "values": "values to find; null reads metadata.output_contains of the row",
        "require": "all: every value must appear; any: one is enough",
        "case_sensitive": "match case exactly",
        "messages": "final: the final answer; agent: every agent message with commas removed "
        "(tau-bench's output check)",
        "threshold": THRESHOLD_HELP,
    },
    aliases=ALIASES,
    checks={"values": _checked_values},
)
def output_contains_sample(
    sample: Sample,
    *,
    values: Any = None,
    require: Require = "all",
    case_sensitive: bool = False,
    messages: MessageScope = "final",
    threshold: float | None = None,
) -> Result:
    """``output_contains`` on a Sample: its final output (or agent messages), its values.

    ``values=None`` reads the row's ``metadata.output_contains``; the
    diagnosis records where the values came from (``values_source``).

    >>> from tooleval.model import AssistantMessage
    >>> sample = Sample(messages=[AssistantMessage("Order 4471 is cancelled.")])
    >>> output_contains_sample(sample, values=["4471"]).score
    1.0
    """
    source = "option"
    if values is None:
        values, source = sample.metadata.get("output_contains"), "metadata.output_contains"
    # messages="agent" is tau-bench's output check: every agent reply, commas removed
    output = agent_texts(sample.messages) if messages == "agent" else sample.final_output()
    result = output_contains(
        values, output, require=require, case_sensitive=case_sensitive, threshold=threshold
    )
    result.diagnosis.details["values_source"] = source
    return result
