"""What a metric returns: a score with its reason and a structured diagnosis."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


# Not frozen: metrics build one per compared key (tens per row), and a frozen
# dataclass pays an ``object.__setattr__`` call per field. ``unsafe_hash``
# keeps the field-wise hash the frozen class had; nothing in tooleval assigns
# to a check after building it.
@dataclass(slots=True, unsafe_hash=True)
class ArgumentCheck:
    """One argument compared: which pair of calls, which key, both values."""

    tool: str
    key: str
    expected: Any
    actual: Any
    score: float
    expected_index: int | None = None
    actual_index: int | None = None
    matcher: str = "exact"
    missing: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "key": self.key,
            "expected": self.expected,
            "actual": self.actual,
            "score": self.score,
            "expected_index": self.expected_index,
            "actual_index": self.actual_index,
            "matcher": self.matcher,
            "missing": self.missing,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArgumentCheck:
        return cls(**{k: data[k] for k in data if k in cls.__dataclass_fields__})


@dataclass(slots=True)
class Diagnosis:
    """Why a row scored what it did.

    ``missing`` and ``extra`` hold calls (as dicts ``{"name", "args", "index"}``),
    ``order_violations`` one readable string per broken ordering constraint,
    ``arguments`` every compared argument (mismatches have ``score < 1``), and
    ``details`` anything metric-specific (precision/recall, judge prompts and
    raw replies, ...).
    """

    missing: list[dict[str, Any]] = field(default_factory=list)
    extra: list[dict[str, Any]] = field(default_factory=list)
    order_violations: list[str] = field(default_factory=list)
    arguments: list[ArgumentCheck] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def argument_mismatches(self) -> list[ArgumentCheck]:
        return [a for a in self.arguments if a.score < 1.0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "missing": self.missing,
            "extra": self.extra,
            "order_violations": self.order_violations,
            "arguments": [a.to_dict() for a in self.arguments],
            "details": self.details,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Diagnosis:
        data = data or {}
        return cls(
            missing=list(data.get("missing", [])),
            extra=list(data.get("extra", [])),
            order_violations=list(data.get("order_violations", [])),
            arguments=[ArgumentCheck.from_dict(a) for a in data.get("arguments", [])],
            details=dict(data.get("details", {})),
        )


@dataclass(frozen=True, slots=True)
class Result:
    """A metric's verdict on one row.

    ``score`` is a float in [0, 1], or ``None`` when the row could not be
    scored (see :meth:`unscored`); ``passed`` is ``None`` then too.

    >>> r = Result.unscored("tool_correctness", "no expected_tools bound for this row")
    >>> r.score is None, r.passed
    (True, None)
    """

    metric: str
    score: float | None
    passed: bool | None
    reason: str
    params: dict[str, Any] = field(default_factory=dict)
    threshold: float | None = None
    diagnosis: Diagnosis = field(default_factory=Diagnosis)

    @classmethod
    def scored(
        cls,
        metric: str,
        score: float,
        *,
        reason: str,
        params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        diagnosis: Diagnosis | None = None,
    ) -> Result:
        """A scored result; ``passed`` is ``score >= threshold`` (``score == 1`` without one)."""
        value = float(score)
        if not 0.0 <= value <= 1.0 or value != value:
            raise ValueError(f"{metric}: score must be in [0, 1], got {score!r}")
        passed = value >= threshold if threshold is not None else value >= 1.0
        return cls(
            metric=metric,
            score=value,
            passed=passed,
            reason=reason,
            params=dict(params or {}),
            threshold=threshold,
            diagnosis=diagnosis or Diagnosis(),
        )

    @classmethod
    def unscored(
        cls,
        metric: str,
        reason: str,
        *,
        params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        diagnosis: Diagnosis | None = None,
    ) -> Result:
        """A row that could not be scored: a value, never a silent 0."""
        return cls(
            metric=metric,
            score=None,
            passed=None,
            reason=reason,
            params=dict(params or {}),
            threshold=threshold,
            diagnosis=diagnosis or Diagnosis(),
        )

    @property
    def is_scored(self) -> bool:
        return self.score is not None

    def encoded_diagnosis(self) -> bytes | None:
        """The diagnosis as JSON (the ``Diagnosis.to_dict`` layout) while it is still undecoded.

        None for a Result built in Python, or once the diagnosis has been read:
        writers (the run store) then encode ``diagnosis.to_dict()`` themselves.
        A Result the compiled kernel scored in process gives its JSON here, so it
        is stored without being decoded and encoded again.

        >>> Result.scored("m", 1.0, reason="ok").encoded_diagnosis() is None
        True
        """
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "params": self.params,
            "score": self.score,
            "threshold": self.threshold,
            "passed": self.passed,
            "reason": self.reason,
            "diagnosis": self.diagnosis.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        return cls(
            metric=data["metric"],
            score=data.get("score"),
            passed=data.get("passed"),
            reason=data.get("reason", ""),
            params=dict(data.get("params") or {}),
            threshold=data.get("threshold"),
            diagnosis=Diagnosis.from_dict(data.get("diagnosis")),
        )


# ------------------------------------------------------------ decoded on demand

_DIAGNOSIS_SLOT: Any = Result.__dict__["diagnosis"]  # the slot the dataclass made


def _decode(encoded: bytes | Callable[[], bytes]) -> Diagnosis:
    import orjson  # imported on the first read, not by `import tooleval`

    data = orjson.loads(encoded if type(encoded) is bytes else encoded())  # type: ignore[operator]
    return Diagnosis(
        missing=data["missing"],
        extra=data["extra"],
        order_violations=data["order_violations"],
        arguments=[
            ArgumentCheck(
                a["tool"],
                a["key"],
                a["expected"],
                a["actual"],
                a["score"],
                a["expected_index"],
                a["actual_index"],
                a["matcher"],
                a["missing"],
            )
            for a in data["arguments"]
        ],
        details=data["details"],
    )


class _EncodedResult(Result):
    """A :class:`Result` whose diagnosis is decoded from its JSON when first read.

    What the compiled kernel gives for one sample: reading ``diagnosis`` (or
    anything that reads it: ``==``, ``to_dict``, ``repr``, pickling, copying,
    :func:`dataclasses.replace` / :func:`~dataclasses.asdict`) decodes it once
    and keeps the decoded object, so changes made to it stay. It reports its
    class as :class:`Result`, compares equal to the same plain ``Result`` both
    ways, and pickles and copies as a plain ``Result``.
    """

    __slots__ = ("_diagnosis_json",)
    _diagnosis_json: bytes | Callable[[], bytes]  # b"" once decoded

    @property  # type: ignore[misc]
    def __class__(self) -> type[Result]:  # type: ignore[override]  # what `==` and `replace` see
        return Result

    def _diagnosis(self) -> Diagnosis:
        try:
            decoded: Diagnosis = _DIAGNOSIS_SLOT.__get__(self, Result)
            return decoded
        except AttributeError:  # the slot is empty until the first read
            pass
        encoded = self._diagnosis_json
        if encoded:  # else another thread decoded it (slot set before this is cleared)
            decoded = _decode(encoded)
            try:  # a thread that decoded it meanwhile wins: one object for everyone
                decoded = _DIAGNOSIS_SLOT.__get__(self, Result)
            except AttributeError:
                _DIAGNOSIS_SLOT.__set__(self, decoded)
                _ENCODED_SLOT.__set__(self, b"")
            return decoded
        decoded = _DIAGNOSIS_SLOT.__get__(self, Result)
        return decoded

    def _replace_diagnosis(self, value: Diagnosis) -> None:
        # reached only through `object.__setattr__` (the class is frozen)
        _DIAGNOSIS_SLOT.__set__(self, value)
        _ENCODED_SLOT.__set__(self, b"")

    diagnosis = property(_diagnosis, _replace_diagnosis)

    def encoded_diagnosis(self) -> bytes | None:
        encoded = self._diagnosis_json
        if not encoded:  # decoded already: the object may have been changed since
            return None
        return encoded if type(encoded) is bytes else encoded()  # type: ignore[operator]

    def __reduce__(self) -> tuple[type[Result], tuple[Any, ...]]:
        return Result, (
            self.metric,
            self.score,
            self.passed,
            self.reason,
            self.params,
            self.threshold,
            self.diagnosis,
        )


_ENCODED_SLOT: Any = _EncodedResult.__dict__["_diagnosis_json"]
_new = object.__new__
_set_metric = Result.__dict__["metric"].__set__
_set_score = Result.__dict__["score"].__set__
_set_passed = Result.__dict__["passed"].__set__
_set_reason = Result.__dict__["reason"].__set__
_set_params = Result.__dict__["params"].__set__
_set_threshold = Result.__dict__["threshold"].__set__
_set_encoded = _ENCODED_SLOT.__set__


def encoded_result(
    metric: str,
    score: float | None,
    passed: bool | None,
    reason: str,
    params: dict[str, Any],
    threshold: float | None,
    diagnosis_json: bytes | Callable[[], bytes],
) -> Result:
    """A Result whose diagnosis stays JSON (``Diagnosis.to_dict`` layout) until it is read.

    ``diagnosis_json`` is the JSON, or a callable that writes it when first
    needed. The pieces are taken as given (``passed`` is not recomputed): this
    is how the compiled kernel hands back a sample it scored in process.

    >>> r = encoded_result("m", 1.0, True, "ok", {}, None, b'{"missing": [], "extra": [],'
    ...     b' "order_violations": [], "arguments": [], "details": {"n": 1}}')
    >>> r == Result.scored("m", 1.0, reason="ok", diagnosis=Diagnosis(details={"n": 1}))
    True
    >>> r.diagnosis.details, type(r) is Result, r.__class__ is Result
    ({'n': 1}, False, True)
    """
    result = _new(_EncodedResult)
    _set_metric(result, metric)
    _set_score(result, score)
    _set_passed(result, passed)
    _set_reason(result, reason)
    _set_params(result, params)
    _set_threshold(result, threshold)
    _set_encoded(result, diagnosis_json)
    return result
