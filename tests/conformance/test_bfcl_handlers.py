"""Template decoders against BFCL's own handlers: same calls (or both fail), same verdicts.

For every handler tooleval reproduces (``bfcl_decode_templates``), BFCL's
``handler.decode_ast`` runs in-process on outputs written in that model's
template — hand-written realistic ones, a seeded random corpus (whose
agreement counts are printed) and hypothesis-generated ones (names with
dots and underscores, nested and unicode arguments, numbers, several calls,
none, truncated or broken text, text and thinking blocks around) — and
tooleval's decoder must give the same decoded calls, or fail where BFCL
fails; through the AST checker both must give the same verdict.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.conformance.bfcl_reference import (
    HANDLER_CLASSES,
    handler_decode,
    handler_verdict,
    load_bfcl,
    load_handler,
    ours,
)
from tests.conformance.bfcl_templates import (
    FRAGMENTS,
    REALISTIC,
    RENDER,
    corpus,
    mutate,
)

from tooleval.benchmarks.bfcl.decode_handlers import DECODERS
from tooleval.benchmarks.bfcl.decode_python import POSITIONAL, BfclDecodeError
from tooleval.benchmarks.bfcl.decode_templates import TEMPLATE_HANDLERS
from tooleval.benchmarks.bfcl.models import KNOWN_MODELS
from tooleval.benchmarks.bfcl.reader import decode_bfcl, resolve_settings

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")  # BFCL's eval/ast.parse

HANDLERS = [
    (decoder, module, cls) for decoder, pairs in HANDLER_CLASSES.items() for module, cls in pairs
]


@pytest.fixture(scope="module")
def bfcl():
    loaded = load_bfcl()
    if loaded is None:
        pytest.skip("bfcl_eval is not importable; `pip install --no-deps bfcl-eval==2026.3.23`")
    return loaded


@pytest.fixture(scope="module")
def handlers(bfcl):
    try:
        return {cls: load_handler(module, cls) for _, module, cls in HANDLERS}
    except ImportError as exc:  # a handler module's own imports (openai, requests, ...)
        pytest.skip(f"BFCL's model handlers cannot be imported: {exc}")


# ---------------------------------------------------------------- comparing


def _theirs(bfcl: Any, handler: Any, result: Any, language: str) -> tuple[str, str]:
    status, decoded = handler_decode(bfcl, handler, result, language)
    if status == "error":
        return "decoder_failed", ""
    if not bfcl.is_call_list(decoded):
        return "wrong_output_format", ""
    return "calls", repr(_positional(decoded))


def _ours(decoder: str, result: Any, language: str) -> tuple[str, str]:
    try:
        decoded = decode_bfcl(result, mode=decoder, language=language)
    except BfclDecodeError as exc:
        return exc.error_type.split(":")[1].removeprefix("decoder_"), ""
    return "calls", repr(decoded)


def _positional(value: Any) -> Any:
    """BFCL keeps ``**x`` under the key None; tooleval under :data:`POSITIONAL`."""
    if isinstance(value, dict):
        return {(POSITIONAL if k is None else k): _positional(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_positional(v) for v in value]
    return value


def _agree(bfcl, handlers, decoder, cls, result, language="python"):
    theirs = _theirs(bfcl, handlers[cls], result, language)
    mine = _ours(decoder, result, language)
    assert mine[0].removeprefix("decoder_") == theirs[0].removeprefix("decoder_"), (
        cls,
        result,
        mine,
        theirs,
    )
    assert mine == (mine[0], theirs[1]), (cls, result, mine, theirs)
    return theirs[0]


# ---------------------------------------------------------------- the tests


def test_every_reproduced_handler_is_tested_and_models_point_at_it():
    tested = {cls for _, _, cls in HANDLERS}
    assert tested == {cls for classes in TEMPLATE_HANDLERS.values() for cls in classes}
    assert set(REALISTIC) == set(RENDER) == set(HANDLER_CLASSES) == set(TEMPLATE_HANDLERS)
    decoders = {d for _, _, d in KNOWN_MODELS.values()}
    assert set(TEMPLATE_HANDLERS) <= decoders <= set(DECODERS)
    assert resolve_settings("r/Qwen_Qwen3-8B-FC").mode == "tool_call_tags"
    assert resolve_settings("r/MadeAgents_Hammer2.1-7b").mode == "hammer"


@pytest.mark.parametrize(("decoder", "module", "cls"), HANDLERS)
def test_realistic_outputs_decode_as_bfcl(bfcl, handlers, decoder, module, cls):
    for result in REALISTIC[decoder]:
        _agree(bfcl, handlers, decoder, cls, result)
    if decoder in ("gorilla", "nemotron"):
        java = "GeometryPresentation.createPresentation(controller=mapController, parent=mapArea)"
        js = "validateForm(formId='loginForm', fields=['user', 'pass'])"
        for text in (java, f"<TOOLCALL>[{java}]</TOOLCALL>", "no call", ""):
            _agree(bfcl, handlers, decoder, cls, text, "java")
        for text in (js, f"<TOOLCALL>[{js}]</TOOLCALL>", "no call"):
            _agree(bfcl, handlers, decoder, cls, text, "javascript")


def test_seeded_corpus_agreement_counts(bfcl, handlers, capsys):
    """Every handler against its decoder on 400 random outputs; the counts are printed."""
    lines = []
    for decoder, _, cls in HANDLERS:
        outcomes: Counter[str] = Counter()
        for result in corpus(decoder, 400):
            outcomes[_agree(bfcl, handlers, decoder, cls, result)] += 1
        total = sum(outcomes.values())
        lines.append(
            f"{cls:<30} {decoder:<15} agree {total}/400: {outcomes['calls']} decoded, "
            f"{outcomes['decoder_failed']} both fail, "
            f"{outcomes['wrong_output_format']} both not calls"
        )
    with capsys.disabled():
        print("\nBFCL handler agreement (seeded corpus):\n" + "\n".join(lines))


_NAME = st.from_regex(
    r"[A-Za-z_\u00e9\u540d][A-Za-z0-9_]{0,6}(\.[A-Za-z_][A-Za-z0-9_]{0,6}){0,2}", fullmatch=True
)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_CALLS = st.lists(st.tuples(_NAME, st.dictionaries(_NAME, _JSON, max_size=3)), max_size=3)
_NOISE = st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join)


@pytest.mark.parametrize(("decoder", "module", "cls"), HANDLERS)
@given(calls=_CALLS, seed=st.integers(0, 2**32), noise=_NOISE)
def test_generated_outputs_decode_as_bfcl(bfcl, handlers, decoder, module, cls, calls, seed, noise):
    rnd = random.Random(seed)
    text = RENDER[decoder](calls, rnd)
    _agree(bfcl, handlers, decoder, cls, text)
    _agree(bfcl, handlers, decoder, cls, mutate(text, rnd))
    _agree(bfcl, handlers, decoder, cls, noise)


# ---------------------------------------------------------------- verdicts through the checker

FUNCTIONS = [
    {
        "name": "get_weather",
        "description": "Weather in a city.",
        "parameters": {
            "type": "dict",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer"},
            },
            "required": ["city"],
        },
    },
    {
        "name": "math.factorial",
        "description": "n!",
        "parameters": {
            "type": "dict",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    },
]
GROUND_TRUTH = {
    "simple_python": [{"get_weather": {"city": ["Paris"], "unit": ["celsius", ""], "days": [""]}}],
    "parallel": [
        {"get_weather": {"city": ["Paris"], "unit": ["celsius", ""], "days": [""]}},
        {"math.factorial": {"n": [5]}},
    ],
}
CALLS = [
    ("get_weather", {"city": "Paris"}),
    ("get_weather", {"city": "Paris", "unit": "celsius"}),
    ("get_weather", {"city": "Paris", "unit": "kelvin"}),
    ("get_weather", {"city": "Rome", "days": 3}),
    ("get_weather", {"city": "Paris", "days": "3"}),
    ("get_weather", {"unit": "celsius"}),
    ("math.factorial", {"n": 5}),
    ("math_factorial", {"n": 5}),
    ("math.factorial", {"n": 5.0}),
    ("get_weather", {"city": "Paris", "extra": 1}),
]


def _verdict_cases(decoder: str, count: int) -> list[dict[str, Any]]:
    rnd = random.Random(f"verdict-{decoder}")
    cases = []
    for _ in range(count):
        calls = [rnd.choice(CALLS) for _ in range(rnd.choice([0, 1, 1, 2, 2, 3]))]
        result = RENDER[decoder](calls, rnd)
        if rnd.random() < 0.2:
            result = mutate(result, rnd)
        category = rnd.choice(["simple_python", "parallel", "irrelevance", "live_relevance"])
        cases.append(
            {
                "category": category,
                "functions": FUNCTIONS,
                "ground_truth": GROUND_TRUTH.get(category),
                "result": result,
                "mode": decoder,
                "names": rnd.choice(["dots", "underscores"]),
            }
        )
    return cases


@pytest.mark.parametrize(("decoder", "module", "cls"), HANDLERS)
def test_verdicts_through_the_checker_are_bfcls(bfcl, handlers, decoder, module, cls):
    outcomes: Counter[bool] = Counter()
    for case in _verdict_cases(decoder, 120):
        theirs = handler_verdict(bfcl, handlers[cls], case)
        assert ours(case) == theirs, (cls, case["category"], case["result"], theirs)
        outcomes[theirs["valid"]] += 1
    assert outcomes[True] and outcomes[False]  # both verdicts were exercised


@pytest.mark.parametrize("name", ["5", "null", "true", "1.5", '"get_weather"', '"get.weather"'])
@pytest.mark.parametrize("category", ["simple_python", "parallel", "irrelevance", "live_relevance"])
def test_names_that_are_not_text_give_bfcls_verdict(bfcl, handlers, name, category):
    case = {
        "category": category,
        "functions": FUNCTIONS,
        "ground_truth": GROUND_TRUTH.get(category),
        "result": '[{"name": ' + name + ', "arguments": {"city": "Paris"}}]',
        "mode": "xlam",
        "names": "dots",
    }
    assert ours(case) == handler_verdict(bfcl, handlers["SalesforceQwenHandler"], case)


_GEMMA_PIECES = ["{", "}", "[", "]", ":", ",", "<escape>", "a", "1", "true", "null", " ", "x y"]
_GEMMA_PIECES += ["2.5", "-3", "1_0", "nan", "False", "é"]


@given(st.lists(st.sampled_from(_GEMMA_PIECES), max_size=24).map("".join))
def test_functiongemma_arguments_scan_as_bfcl(bfcl, handlers, body):
    """FunctionGemma's scanner on any mix of brackets, keys, escapes and bare values."""
    text = f"<start_function_call>call:f{body}<end_function_call>"
    _agree(bfcl, handlers, "functiongemma", "FunctionGemmaHandler", text)
