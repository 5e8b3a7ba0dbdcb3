"""What a metric is, as the registry lists it: its parameters, needs and sample form.

The types live in the model because every provider of metrics describes its
metrics with them (the deterministic ones in :mod:`tooleval.metrics`, the
judged ones, a third-party package), while only :mod:`tooleval.metrics.registry`
keeps the list.

>>> Param("strict", "call order rule", choices=("strict", "flexible")).default
'strict'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tooleval.model.results import Result

__all__ = ["MetricInfo", "Param"]


@dataclass(frozen=True, slots=True)
class Param:
    """One metric parameter: its default, a one-line help, and allowed values if enumerated."""

    default: Any
    help: str
    choices: tuple[Any, ...] | None = None


@dataclass(frozen=True, slots=True)
class MetricInfo:
    """What the registry knows about one metric.

    ``score_sample(sample, **params)`` (plus ``judge=`` when ``needs_judge``)
    scores one :class:`Sample`; ``ascore_sample`` is its async twin when the
    metric does I/O. ``requires`` names the Sample fields it reads
    (``tools_called`` stands for the actual calls, from ``tools_called`` or the
    assistant messages; ``output`` for the final answer).
    """

    name: str
    description: str
    params: Mapping[str, Param]
    requires: tuple[str, ...]
    needs_judge: bool
    score_sample: Callable[..., Result]
    ascore_sample: Callable[..., Awaitable[Result]] | None = None
    provider: str = field(default="", compare=False)
    # Optional: turn effective params into what score_sample takes, once per
    # bind (e.g. resolve an ``args`` spec to a comparator); same results.
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = field(default=None, compare=False)
