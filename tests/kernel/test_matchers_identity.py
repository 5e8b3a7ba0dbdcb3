"""The kernel's similarity, any-of, unordered and numeric-text matchers equal the Python reference.

Every matcher spec below is scored alone and inside ``{default}``, ``{keys}``
and ``{tools}`` configurations, with every call metric the kernel scores; each
result line the kernel writes must equal, byte for byte, what ``tooleval
score`` writes in Python (the helpers of ``test_identity`` compare them). The
similarity floats are also compared with rapidfuzz's directly, bit for bit.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip(
    "tooleval._kernel", reason="compiled kernel not built (`make kernel` needs cargo)"
)

from rapidfuzz.distance import JaroWinkler, Levenshtein  # noqa: E402
from tests.kernel.test_identity import CONFIGS, python_line, rows  # noqa: E402

from tooleval import _kernel  # type: ignore[attr-defined]  # noqa: E402
from tooleval.metrics import bind  # noqa: E402
from tooleval.metrics.engine import fastest_engine, kernel_status  # noqa: E402
from tooleval.model import AnyOf  # noqa: E402

pytestmark = pytest.mark.skipif(
    kernel_status() != "compiled", reason="compiled kernel disabled by TOOLEVAL_NO_KERNEL"
)

# Every metric the kernel scores, with the option sets `test_identity` covers
# (their own `args=` replaced by the matcher under test).
METRICS = [(name, options) for name, options in CONFIGS if "args" not in options]

SPECS: list[Any] = [
    "similarity",
    "levenshtein",
    "jaro_winkler",
    {"similarity": {"method": "jaro_winkler", "min_score": 0.8}},
    {"levenshtein": {"min_score": 0.5, "case_sensitive": False}},
    {"jaro_winkler": {"case_sensitive": False}},
    {"similarity": {"min_score": 1}},
    "any_of",
    {"any_of": ["x", 1, 2.0, True, None, [1, "a"], {"a": 1}]},
    {"any_of": {"values": ["X", "東京", 0], "optional": True}},
    "unordered",
    {"unordered": {"recursive": True}},
    {"unordered": {"matcher": "normalized", "recursive": True}},
    {"unordered": {"matcher": {"similarity": {"min_score": 0.6}}}},
    {"unordered": {"matcher": {"any_of": {"values": [1, "x"], "optional": True}}}},
    "numeric_text",
    {"numeric_text": {"matcher": "normalized"}},
    {"numeric_text": {"matcher": {"numeric": {"abs_tol": 0.5}}}},
    {"numeric_text": {"matcher": {"levenshtein": {"min_score": 0.5}}}},
    {"numeric_text": {"matcher": {"unordered": {"recursive": True}}}},
    {"normalized": {"numeric_text": True}},
    {"normalized": {"case_sensitive": True, "numeric_text": True}},
    "normalized",
    {"normalized": {"case_sensitive": True}},
]


def wrapped(spec: Any) -> list[Any]:
    """The spec alone and inside each part of the ``{default, keys, tools}`` configuration."""
    return [
        spec,
        {"default": spec},
        {"default": "exact", "keys": {"q": spec, "a.b": spec, "n": spec}},
        {"default": "ignore", "tools": {"f": {"q": spec, "*": spec}, "g": {"a": spec}}},
    ]


BOUND = {
    repr(spec): [
        bind(name, **options, args=args) for name, options in METRICS for args in wrapped(spec)
    ]
    for spec in SPECS
}

# Text that stresses each matcher: near-equal words, case and width, number
# spellings, characters Python folds in ways the kernel leaves to Python.
WORDS = [
    "Paris",
    "paris",
    "Pariss",
    "PARIS ",
    "  new   york",
    "New York",
    "naïve",
    "NAÏVE",
    "Straße",
    "STRASSE",
    "東京",
    "東京都",
    "서울",
    "İstanbul",
    "Σίσυφος",
    "x",
    "X",
    "",
]
NUMBER_TEXTS = ["2", "2.0", " 02 ", "+2", "-0", "2.5", ".5", "5.", "1e3", "1E-3", "0x10", "1,000"]
NUMBER_TEXTS += ["١٢", "9" * 25, "18446744073709551615", "-9223372036854775808", "1e400"]
NUMBERS = [0, 1, 2, -2, 2.0, 2.5, 0.5, 1000, 1e300, -0.0, 2**63, 2**64 - 1, True, False]

leaves = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(NUMBER_TEXTS),
    st.sampled_from(NUMBERS),
    st.none(),
    st.text(alphabet="abAB é東", max_size=6),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["q", "b", "n"]), inner)
    ),
    max_leaves=8,
)


@st.composite
def near(draw: st.DrawFn, value: Any) -> Any:
    """A value like ``value``: lists reordered, text re-spelt, numbers written as text."""
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return draw(values)
    if isinstance(value, list):
        items = [draw(near(v)) if draw(st.booleans()) else v for v in value]
        return draw(st.permutations(items))
    if isinstance(value, dict):
        return {k: draw(near(v)) if draw(st.booleans()) else v for k, v in value.items()}
    if isinstance(value, str) and choice < 3:
        return draw(st.sampled_from([value.upper(), value.lower(), f" {value}", value[:-1]]))
    if isinstance(value, int | float) and not isinstance(value, bool) and choice < 3:
        return draw(st.sampled_from([str(value), f" {value} ", float(value)]))
    return value


@st.composite
def matcher_rows(draw: st.DrawFn) -> dict[str, Any]:
    """A row whose calls share tools and keys, with actual values near the expected ones."""
    expected = []
    actual = []
    for _ in range(draw(st.integers(0, 3))):
        name = draw(st.sampled_from(["f", "g"]))
        args = draw(st.dictionaries(st.sampled_from(["q", "n", "a", "z"]), values, max_size=3))
        if "a" in args and draw(st.booleans()):
            args["a"] = {"b": draw(values), "c": draw(values)}
        expected.append({"name": name, "args": args})
        got = {k: draw(near(v)) for k, v in args.items() if draw(st.integers(0, 5))}
        if draw(st.integers(0, 4)) == 0:
            got["extra"] = draw(values)
        actual.append({"name": name, "args": got})
    return {
        "id": "r",
        "tools_called": draw(st.permutations(actual)),
        "expected_tools": expected,
    }


def _assert_same(metric: Any, row: dict[str, Any], number: int) -> bool:
    engine = fastest_engine(metric)
    assert engine.compiled, metric.params
    line = orjson.dumps(row) + b"\n"
    got = engine.kernel.score_line(line, number)
    if got is not None:
        assert got == python_line(metric, number, line)
    return got is not None


@pytest.mark.parametrize("spec", SPECS, ids=[repr(s)[:40] for s in SPECS])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_kernel_line_equals_python_line(spec: Any, data: st.DataObject) -> None:
    metric = data.draw(st.sampled_from(BOUND[repr(spec)]))
    row = data.draw(st.one_of(matcher_rows(), matcher_rows(), rows()))
    _assert_same(metric, row, data.draw(st.integers(1, 10**6)))


@pytest.mark.parametrize("spec", SPECS, ids=[repr(s)[:40] for s in SPECS])
def test_each_matcher_is_compiled_and_takes_plain_rows(spec: Any) -> None:
    row = {
        "id": "r1",
        "tools_called": [{"name": "f", "args": {"q": "Pariss", "n": ["2", 1], "a": {"b": 2}}}],
        "expected_tools": [{"name": "f", "args": {"q": "Paris", "n": [1, 2], "a": {"b": 2.0}}}],
    }
    for metric in BOUND[repr(spec)]:
        assert fastest_engine(metric).compiled
        assert _assert_same(metric, row, 1), metric.params  # the common shape never falls back


def test_expected_any_of_values_from_python_are_compiled() -> None:
    """AnyOf objects given as the matcher (BFCL-style lists of acceptable values)."""
    unit = AnyOf(["celsius", "c", 0], optional=True)
    metric = bind("tool_call_accuracy", args={"default": "exact", "keys": {"unit": unit}})
    assert fastest_engine(metric).compiled
    for got in ({"unit": "c"}, {"unit": "kelvin"}, {}, {"unit": 0.0}, {"unit": False}):
        row = {
            "tools_called": [{"name": "t", "args": got}],
            "expected_tools": [{"name": "t", "args": {"unit": "celsius"}}],
        }
        assert _assert_same(metric, row, 3)


@pytest.mark.parametrize(
    "args",
    [
        AnyOf(["x"], normalise=str.lower),  # a Python normaliser
        AnyOf([AnyOf(["x"])]),  # a matcher among the values
        AnyOf([float("nan")]),  # not JSON
        AnyOf([2**70]),  # beyond the kernel's integers
        {"unordered": {"matcher": lambda e, a: e == a}},  # a callable inside
        {"numeric_text": {"matcher": lambda e, a: e == a}},
    ],
)
def test_matchers_only_python_can_run_stay_in_python(args: Any) -> None:
    assert not fastest_engine(bind("tool_call_accuracy", args=args)).compiled


texts = st.one_of(
    st.text(max_size=12),
    st.text(alphabet="abcAB ßİéÀÞµÿ東😀", max_size=12),
    st.text(alphabet="ab", min_size=60, max_size=300),
)


@settings(max_examples=500, deadline=None)
@given(a=texts, b=texts, case_sensitive=st.booleans())
def test_similarity_floats_are_rapidfuzz_floats(a: str, b: str, case_sensitive: bool) -> None:
    """Bit-identical floats (== and repr) over code points: unicode, empty, long."""
    x, y = (a, b) if case_sensitive else (a.casefold(), b.casefold())
    for method, reference in (
        ("levenshtein", Levenshtein.normalized_similarity(x, y)),
        ("jaro_winkler", JaroWinkler.similarity(x, y)),
    ):
        got = _kernel.similarity(method, a, b, case_sensitive)
        if got is None:  # folding the kernel cannot prove: only ever without case
            assert not case_sensitive and not (a + b).isascii()
            continue
        assert got == reference and repr(got) == repr(reference), (method, a, b)


def test_case_folding_the_kernel_does_itself_is_pythons() -> None:
    """The kernel folds ASCII, Latin-1 and a few caseless blocks itself; Python agrees."""
    caseless = [(0x0590, 0x05FF), (0x0600, 0x06FF), (0x0900, 0x097F), (0x0E00, 0x0E7F)]
    caseless += [(0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3)]
    points = list(range(0x100)) + [c for lo, hi in caseless for c in range(lo, hi + 1)]
    for c in map(chr, points):
        # µ folds to Greek mu, which the kernel does not fold itself: spell it µ again.
        folded = c.casefold().replace("\u03bc", "\u00b5")
        assert _kernel.similarity("levenshtein", c, folded, False) == 1.0, hex(ord(c))
        assert _kernel.similarity("levenshtein", c, folded + "x", False) < 1.0
    assert _kernel.similarity("levenshtein", "Ā", "ā", False) is None  # left to Python
    scored = _kernel.similarity("levenshtein", "STRASSE", "straße", False)
    assert scored == Levenshtein.normalized_similarity("strasse", "strasse")
