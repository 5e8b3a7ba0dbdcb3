"""Argument comparators for :class:`ToolCallAccuracy`, mirroring ragas' string metrics.

ragas compares one argument by turning both values into text with ``str()``
and handing the two strings to a "single turn" metric. The two it ships for
this are an exact match (the default) and ``NonLLMStringSimilarity`` (one
minus a rapidfuzz normalised distance). Both are reproduced here as plain
objects with a ``similarity(reference, response) -> float`` method.

>>> NonLLMStringSimilarity().similarity("Paris", "Pariss")
0.8333333333333334
>>> ExactMatch().similarity("5", "5.0")
0.0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from tooleval.errors import ConfigError

__all__ = [
    "DistanceMeasure",
    "ExactMatch",
    "NonLLMStringSimilarity",
    "resolve_arg_comparison",
]


class DistanceMeasure(Enum):
    """The rapidfuzz distances ragas offers, under ragas' names."""

    LEVENSHTEIN = "levenshtein"
    HAMMING = "hamming"
    JARO = "jaro"
    JARO_WINKLER = "jaro_winkler"


@dataclass(frozen=True, slots=True)
class ExactMatch:
    """1.0 when the two strings are equal, else 0.0."""

    name: str = "exact_match"

    def similarity(self, reference: str, response: str) -> float:
        return float(reference == response)


def _distance_class(measure: DistanceMeasure) -> Any:
    # rapidfuzz is a core dependency, but importing it only when a similarity
    # comparator is built keeps `import tooleval.compat.ragas` cheap.
    from rapidfuzz import distance

    return {
        DistanceMeasure.LEVENSHTEIN: distance.Levenshtein,
        DistanceMeasure.HAMMING: distance.Hamming,
        DistanceMeasure.JARO: distance.Jaro,
        DistanceMeasure.JARO_WINKLER: distance.JaroWinkler,
    }[measure]


@dataclass(slots=True)
class NonLLMStringSimilarity:
    """``1 - normalized_distance(reference, response)`` for a rapidfuzz distance.

    Computed as one minus the distance (not rapidfuzz's normalised
    similarity) so the floats are bit-for-bit those ragas produces.
    """

    distance_measure: DistanceMeasure = DistanceMeasure.LEVENSHTEIN
    name: str = "non_llm_string_similarity"

    def __post_init__(self) -> None:
        if isinstance(self.distance_measure, str):
            self.distance_measure = _measure_from_text(self.distance_measure)
        if not isinstance(self.distance_measure, DistanceMeasure):
            raise ConfigError(
                f"distance_measure must be one of {[m.value for m in DistanceMeasure]}, "
                f"got {self.distance_measure!r}",
                field="distance_measure",
            )

    def similarity(self, reference: str, response: str) -> float:
        scorer = _distance_class(self.distance_measure)
        return 1 - scorer.normalized_distance(reference, response)


def _measure_from_text(text: str) -> DistanceMeasure:
    for measure in DistanceMeasure:
        if text.lower() in (measure.value, measure.name.lower()):
            return measure
    raise ConfigError(
        f"unknown string distance {text!r}; expected one of {[m.value for m in DistanceMeasure]}",
        field="arg_comparison_metric",
    )


def resolve_arg_comparison(spec: Any) -> Callable[[str, str], float] | None:
    """Turn an ``arg_comparison_metric`` into ``fn(reference, response) -> float``.

    Returns ``None`` for exact matching, which callers run on a fast path.
    Accepted: ``None``, ``"exact"``, a distance name (``"levenshtein"``,
    ``"hamming"``, ``"jaro"``, ``"jaro_winkler"``), :class:`ExactMatch`,
    :class:`NonLLMStringSimilarity`, any object with
    ``similarity(reference, response)``, a ragas ``ExactMatch`` or
    ``NonLLMStringSimilarity`` instance (recognised by shape, ragas is not
    imported), or a callable ``(reference, response) -> float`` such as a
    tooleval matcher.

    >>> resolve_arg_comparison("jaro")("abc", "abd") > 0.7
    True
    """
    if spec is None or isinstance(spec, ExactMatch):
        return None
    if isinstance(spec, str):
        if spec.lower() in ("exact", "exact_match"):
            return None
        return NonLLMStringSimilarity(_measure_from_text(spec)).similarity
    if isinstance(spec, DistanceMeasure):
        return NonLLMStringSimilarity(spec).similarity
    similarity = getattr(spec, "similarity", None)
    if callable(similarity):
        return similarity
    if hasattr(spec, "single_turn_ascore"):
        # A ragas metric object. Its two string metrics are recognised by
        # their fields; anything else may call an LLM and has no pure twin.
        measure = getattr(spec, "distance_measure", None)
        if measure is not None:
            return NonLLMStringSimilarity(_measure_from_text(str(measure.value))).similarity
        if getattr(spec, "name", None) == "exact_match":
            return None
        raise ConfigError(
            f"ragas metric {type(spec).__name__} has no tooleval equivalent; pass a callable "
            "(reference, response) -> float instead",
            field="arg_comparison_metric",
        )
    if callable(spec):
        return spec
    raise ConfigError(
        "arg_comparison_metric must be None, a distance name, ExactMatch, "
        f"NonLLMStringSimilarity or a callable (reference, response) -> float; got {spec!r}",
        field="arg_comparison_metric",
    )
