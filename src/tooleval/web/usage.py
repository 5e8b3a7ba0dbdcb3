"""Tokens and cost of a run: the agent's, from what its rows recorded, and the judge's.

Where the figures come from (nothing is estimated, no price is made up):

- **agent tokens**: a monitored session's ``sample.metadata["usage"]``
  (``input_tokens`` / ``output_tokens``, summed from its model spans), else the
  recorded raw response's ``usage`` (OpenAI's ``prompt_tokens`` /
  ``completion_tokens``, or ``input_tokens`` / ``output_tokens``; a multi-turn
  conversation's ``{"turns": [...]}`` summed). A row that recorded neither is
  counted as *not recorded*, never as 0 tokens.
- **agent cost**: only the cost a row recorded itself (``tooleval monitor
  --prices`` stores each session's); no price table, no cost.
- **judge tokens**: the usage each judged result keeps in
  ``diagnosis.details["judge"]`` (:class:`tooleval.model.usage.JudgeUsage`);
  a judge records no price, so its cost is unknown unless a ``cost`` was recorded.

A stopped run's figures are counted once and kept with its aggregates.

>>> from tooleval.model import Sample
>>> from tooleval.store.records import RowRecord
>>> row = RowRecord("r", 0, "q", Sample(), raw_response={"usage": {"prompt_tokens": 12,
...                 "completion_tokens": 3}})
>>> agent_usage(row)
(12, 3, None)
>>> count_usage([row]).agent_tokens
(12, 3)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from tooleval.report.html import Safe, el
from tooleval.store import StoreReader
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "NO_PRICE",
    "RunUsage",
    "agent_usage",
    "count_usage",
    "run_usage",
    "short_usage",
    "usage_block",
]

NO_PRICE = "cost unknown: no price configured"
_DOCUMENT = "viewer-usage/1"
#: A running run is counted fresh on each view up to this many rows.
_LIVE_LIMIT = 2_000
#: A stopped run is counted on its first view up to this many rows (every row is decoded:
#: about 7 s for 20,000 rows on a loaded 2-core machine); a bigger one is not counted.
VIEW_LIMIT = 100_000
_PAIRS = (("prompt_tokens", "completion_tokens"), ("input_tokens", "output_tokens"))


def _whole(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value < 0 or value > 2**53:  # NaN, negative, absurd
        return None
    return int(value)


def _tokens(usage: Any) -> tuple[int, int] | None:
    if not isinstance(usage, Mapping):
        return None
    for inp, out in _PAIRS:
        a, b = _whole(usage.get(inp)), _whole(usage.get(out))
        if a is not None or b is not None:
            return a or 0, b or 0
    return None


def _raw_tokens(raw: Any) -> tuple[int, int] | None:
    if not isinstance(raw, Mapping):
        return None
    found = _tokens(raw.get("usage"))
    turns = raw.get("turns")
    if found is None and isinstance(turns, list):
        parts = [t for t in (_raw_tokens(turn) for turn in turns[:10_000]) if t is not None]
        if parts:
            found = (sum(p[0] for p in parts), sum(p[1] for p in parts))
    return found


def agent_usage(row: RowRecord) -> tuple[int, int, float | None] | None:
    """``(tokens in, tokens out, recorded cost or None)`` of one row's agent; None: not recorded."""
    metadata = row.sample.metadata if row.sample is not None else {}
    recorded = metadata.get("usage") if isinstance(metadata, Mapping) else None
    tokens = _tokens(recorded)
    cost = None
    if tokens is not None and isinstance(recorded, Mapping):
        value = recorded.get("cost")
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            cost = float(value)
    if tokens is None:
        tokens = _raw_tokens(row.raw_response)
    return None if tokens is None else (tokens[0], tokens[1], cost)


@dataclass(frozen=True, slots=True)
class RunUsage:
    """A run's agent and judge tokens, with what is known of their cost."""

    rows: int
    agent_rows: int  # rows whose agent tokens were recorded
    agent_in: int
    agent_out: int
    agent_cost: float | None  # summed over agent_cost_rows
    agent_cost_rows: int
    judge_calls: int
    judge_cached: int
    judge_in: int
    judge_out: int
    judge_cost: float | None
    judged: bool  # a judged metric ran

    @property
    def agent_tokens(self) -> tuple[int, int]:
        return self.agent_in, self.agent_out


def count_usage(rows: Iterable[RowRecord]) -> RunUsage:
    """Sum the agent's and the judge's recorded usage over ``rows``."""
    from tooleval.model.usage import JudgeUsage

    n = agent_rows = agent_in = agent_out = cost_rows = 0
    cost = 0.0
    judge = JudgeUsage()
    judged = False
    judge_cost: float | None = None
    for row in rows:
        n += 1
        found = agent_usage(row)
        if found is not None:
            agent_rows += 1
            agent_in += found[0]
            agent_out += found[1]
            if found[2] is not None:
                cost_rows += 1
                cost += found[2]
        for result in row.results:
            details = result.diagnosis.details if result.diagnosis else {}
            usage = details.get("judge") if isinstance(details, Mapping) else None
            if not isinstance(usage, Mapping):
                continue
            judged = True
            judge.add({k: v for k, v in usage.items() if _whole(v) is not None})
            spent = usage.get("cost")
            if isinstance(spent, int | float) and not isinstance(spent, bool) and spent >= 0:
                judge_cost = (judge_cost or 0.0) + float(spent)
    totals = judge.to_dict()
    return RunUsage(
        rows=n,
        agent_rows=agent_rows,
        agent_in=agent_in,
        agent_out=agent_out,
        agent_cost=round(cost, 8) if cost_rows else None,
        agent_cost_rows=cost_rows,
        judge_calls=totals["calls"],
        judge_cached=totals["cached_calls"],
        judge_in=totals["tokens_in"],
        judge_out=totals["tokens_out"],
        judge_cost=judge_cost,
        judged=judged,
    )


def run_usage(store: StoreReader, run: RunInfo, *, stored_only: bool = False) -> RunUsage | None:
    """The run's usage: kept with a stopped run's aggregates, counted once.

    None when not known without reading too much: a running run of more than
    2,000 rows (a smaller one is counted again on every view), a stopped one
    of more than ``VIEW_LIMIT`` rows, or (``stored_only``, the runs list) a
    run not counted yet.
    """
    from tooleval.analysis.aggregates import FINISHED, stamp

    finished = run.status in FINISHED
    if finished:
        payload = store.aggregates.load_aggregate(run.id, _DOCUMENT, row_count=run.row_count)
        if isinstance(payload, dict) and payload.get("stamp") == stamp(run.status, run.finished_at):
            try:
                return RunUsage(**{k: v for k, v in payload.items() if k != "stamp"})
            except TypeError:
                pass  # written by another version: count again
    if stored_only or run.row_count > (VIEW_LIMIT if finished else _LIVE_LIMIT):
        return None
    usage = count_usage(store.iter_rows(run.id))
    if finished:
        document = asdict(usage) | {"stamp": stamp(run.status, run.finished_at)}
        store.aggregates.save_aggregate(run.id, _DOCUMENT, document, row_count=run.row_count)
    return usage


def _count(n: int) -> str:
    return f"{n:,}"


def _cost_text(cost: float | None, rows: int, of: int) -> str:
    if cost is None:
        return NO_PRICE
    text = f"{cost:,.4f} (as recorded with the rows)"
    return text if rows == of else f"{text}, for {rows} of {of} rows; the others: no price"


def short_usage(usage: RunUsage | None) -> str | None:
    """One line for the runs list (``12,400 agent tokens · 3,100 judge tokens``), or None.

    >>> short_usage(count_usage([]))
    """
    if usage is None:
        return None
    parts = []
    if usage.agent_rows:
        parts.append(f"{_count(usage.agent_in + usage.agent_out)} agent tokens")
    if usage.judged:
        parts.append(f"{_count(usage.judge_in + usage.judge_out)} judge tokens")
    if parts and usage.agent_cost is not None:
        parts.append(f"cost {usage.agent_cost:,.4f}")
    return " · ".join(parts) or None


def usage_block(usage: RunUsage | None, *, running: bool = False) -> Safe:
    """The overview's "Tokens and cost" table (agent, judge), saying what is not known."""
    head = el("h2", "Tokens and cost", id="usage")
    if usage is None:
        why = (
            "Counted once the run has stopped (it is too big to count on every view)."
            if running
            else f"Not counted: the viewer reads every row to count tokens, and stops at "
            f"{VIEW_LIMIT:,} rows."
        )
        return el("section", head, el("p", why, class_="muted"), class_="usage")
    cells = ("", "counted", "tokens in", "tokens out", "cost")
    if usage.agent_rows:
        missing = usage.rows - usage.agent_rows
        agent = [
            f"{_count(usage.agent_rows)} rows"
            + (f" ({_count(missing)} did not record usage)" if missing else ""),
            _count(usage.agent_in),
            _count(usage.agent_out),
            _cost_text(usage.agent_cost, usage.agent_cost_rows, usage.agent_rows),
        ]
    else:
        agent = ["not recorded: no row's response carries token usage", "–", "–", NO_PRICE]
    if usage.judged:
        judge = [
            f"{_count(usage.judge_calls)} calls ({_count(usage.judge_cached)} from the cache)",
            _count(usage.judge_in),
            _count(usage.judge_out),
            NO_PRICE if usage.judge_cost is None else f"{usage.judge_cost:,.4f} (as recorded)",
        ]
    else:
        judge = ["no judged metric ran", "–", "–", "–"]
    body = [
        el(
            "tr",
            el("th", who, scope="row"),
            *(el("td", v, class_="num" if i in (1, 2) else None) for i, v in enumerate(values)),
        )
        for who, values in (("agent", agent), ("judge", judge))
    ]
    table = el(
        "table",
        el("thead", el("tr", *(el("th", c, scope="col") for c in cells))),
        el("tbody", body),
        class_="usage-table",
    )
    return el(
        "section",
        head,
        el("div", table, class_="table-scroll", tabindex="0", aria_label="tokens and cost"),
        class_="usage",
    )
