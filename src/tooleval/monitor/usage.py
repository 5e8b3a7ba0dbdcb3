"""Token usage, latency and cost of a session, from its model and tool spans.

:func:`session_usage` sums what the model spans record (``gen_ai.usage.input_tokens``
/ ``output_tokens``, the older ``prompt_tokens`` / ``completion_tokens``, or
OpenInference ``llm.token_count.prompt`` / ``completion``) per model, and times
every model and tool span (end minus start). :class:`PriceTable` turns tokens
into money from a table the user gives: per model, a price per million input
and output tokens.

>>> from tooleval.traces.genai import SpanFacts
>>> llm = SpanFacts("t", "s1", start_ns=0, end_ns=2_000_000, kind="llm", model="gpt-x",
...                 input_tokens=1000, output_tokens=200)
>>> usage = session_usage([llm])
>>> usage["input_tokens"], usage["output_tokens"], usage["llm_latency_ms"]
(1000, 200, 2.0)
>>> PriceTable({"gpt-x": {"input": 2.0, "output": 8.0}}).cost(usage)
{'cost': 0.0036, 'currency': 'USD', 'unpriced_models': []}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tooleval.errors import ConfigError
from tooleval.monitor.config_file import read_config_file

__all__ = ["PriceTable", "session_usage"]


def _ms(start: int | None, end: int | None) -> float | None:
    if start is None or end is None or end < start:
        return None
    return round((end - start) / 1e6, 3)


def _place(fact: Any) -> dict[str, Any]:
    """Where a span sits in the session's tree and time, and how it ended."""
    return {
        "span_id": fact.span_id,
        "parent_span_id": fact.parent_span_id,
        "name": fact.name,
        "start_ns": fact.start_ns,
        "latency_ms": _ms(fact.start_ns, fact.end_ns),
        "is_error": fact.error is not None,
        "error": fact.error,
    }


def _error_message(result: Any) -> str | None:
    """A failed tool's message: the result's ``error`` field, or the result's text."""
    if (type(result) is dict or isinstance(result, Mapping)) and result.get("error") not in (
        None,
        "",
        False,
        True,
    ):
        return str(result["error"])
    if isinstance(result, str) and result.strip():
        return result.strip().splitlines()[0][:300]
    return None


def session_usage(facts: Iterable[Any]) -> dict[str, Any]:
    """Tokens per model, model and tool latency, and the session's wall time (ms)."""
    models: dict[str, dict[str, int]] = {}
    llm_spans: list[dict[str, Any]] = []
    tool_spans: list[dict[str, Any]] = []
    first = last = None
    seen_llm: set[str] = set()
    agent_spans: list[dict[str, Any]] = []
    seen_agent: set[str] = set()
    for fact in facts:
        if fact.start_ns is not None:
            first = fact.start_ns if first is None else min(first, fact.start_ns)
        end = fact.end_ns or fact.start_ns
        if end is not None:
            last = end if last is None else max(last, end)
        if fact.kind == "llm" and fact.span_id not in seen_llm:
            seen_llm.add(fact.span_id)
            model = fact.model or "(unknown model)"
            entry = models.setdefault(model, {"calls": 0, "input_tokens": 0, "output_tokens": 0})
            entry["calls"] += 1
            entry["input_tokens"] += fact.input_tokens or 0
            entry["output_tokens"] += fact.output_tokens or 0
            llm_spans.append(
                {
                    **_place(fact),
                    "model": fact.model,
                    "input_tokens": fact.input_tokens,
                    "output_tokens": fact.output_tokens,
                }
            )
        elif fact.kind == "tool":
            for call in fact.calls:
                tool_spans.append(
                    {
                        **_place(fact),
                        "tool": call.name,
                        "is_error": call.is_error,
                        "error": fact.error or _error_message(call.result)
                        if call.is_error
                        else None,
                    }
                )
        elif fact.kind == "agent" and fact.span_id not in seen_agent:
            seen_agent.add(fact.span_id)
            agent_spans.append(_place(fact))
    llm_latencies = [s["latency_ms"] for s in llm_spans if s["latency_ms"] is not None]
    tool_latencies = [s["latency_ms"] for s in tool_spans if s["latency_ms"] is not None]
    return {
        "llm_calls": len(llm_spans),
        "input_tokens": sum(m["input_tokens"] for m in models.values()),
        "output_tokens": sum(m["output_tokens"] for m in models.values()),
        "models": models,
        "llm_latency_ms": round(sum(llm_latencies), 3),
        "llm_latency_max_ms": max(llm_latencies, default=None),
        "tool_latency_ms": round(sum(tool_latencies), 3),
        "tool_latency_max_ms": max(tool_latencies, default=None),
        "duration_ms": _ms(first, last),
        "llm_spans": llm_spans,
        "tool_spans": tool_spans,
        "agent_spans": agent_spans,
    }


class PriceTable:
    """Prices per million tokens by model: ``{"model": {"input": 2.5, "output": 10}}``.

    A model is looked up by its exact name, then by the longest table key it
    starts with (``gpt-4o`` prices ``gpt-4o-2024-08-06``). ``currency`` is
    ``USD`` unless the table has a top-level ``"currency"`` string.
    """

    def __init__(self, prices: Mapping[str, Any], *, currency: str = "USD") -> None:
        self.currency = str(prices.get("currency", currency))
        self.prices: dict[str, tuple[float, float]] = {}
        for model, entry in prices.items():
            if model == "currency":
                continue
            if not isinstance(entry, Mapping):
                raise ConfigError(
                    f"price for model {model!r} must be an object with 'input' and 'output' "
                    f"(per million tokens), got {type(entry).__name__}",
                    field=f"prices.{model}",
                )
            try:
                self.prices[str(model)] = (
                    float(entry.get("input", 0.0)),
                    float(entry.get("output", 0.0)),
                )
            except (TypeError, ValueError) as exc:
                raise ConfigError(
                    f"price for model {model!r}: 'input' and 'output' must be numbers",
                    field=f"prices.{model}",
                ) from exc

    @classmethod
    def load(cls, path: str | Path) -> PriceTable:
        """Read a JSON or YAML price table file."""
        data = read_config_file(path, what="price table")
        if not isinstance(data, Mapping):
            raise ConfigError(f"price table {path} must map model names to prices")
        return cls(data)

    def price(self, model: str) -> tuple[float, float] | None:
        if model in self.prices:
            return self.prices[model]
        matches = [key for key in self.prices if model.startswith(key)]
        return self.prices[max(matches, key=len)] if matches else None

    def cost(self, usage: Mapping[str, Any]) -> dict[str, Any]:
        """The session's cost; models with no price are listed, not counted as free."""
        total, unpriced = 0.0, []
        for model, entry in (usage.get("models") or {}).items():
            price = self.price(model)
            if price is None:
                unpriced.append(model)
                continue
            total += (
                entry["input_tokens"] * price[0] / 1e6 + entry["output_tokens"] * price[1] / 1e6
            )
        return {"cost": round(total, 8), "currency": self.currency, "unpriced_models": unpriced}
