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

import json
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

from tooleval.formats.bfcl import decode_bfcl, resolve_settings
from tooleval.formats.bfcl_decode_handlers import DECODERS
from tooleval.formats.bfcl_decode_python import POSITIONAL, BfclDecodeError
from tooleval.formats.bfcl_decode_templates import TEMPLATE_HANDLERS
from tooleval.formats.bfcl_models import KNOWN_MODELS

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
    return {cls: load_handler(module, cls) for _, module, cls in HANDLERS}


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


# ---------------------------------------------------------------- rendering calls


def _tool_call_tags(calls, rnd):
    return "\n".join(
        f"<tool_call>\n{json.dumps({'name': n, 'arguments': a}, ensure_ascii=rnd.random() < 0.5)}"
        "\n</tool_call>"
        for n, a in calls
    )


def _json_list(calls, rnd, args_key="arguments"):
    objects = [{"name": n, args_key: a} for n, a in calls]
    if len(objects) == 1 and rnd.random() < 0.4:
        return json.dumps(objects[0])
    return json.dumps(objects, indent=rnd.choice([None, 2]))


def _hammer(calls, rnd):
    text = _json_list(calls, rnd)
    return rnd.choice([text, f"```\n{text}\n```", f"```json\n{text}\n```"])


def _xlam(calls, rnd):
    if len(calls) > 1 and rnd.random() < 0.4:
        return "; ".join(json.dumps({"name": n, "arguments": a}) for n, a in calls)
    return _json_list(calls, rnd)


def _falcon(calls, rnd):
    text = _json_list(calls, rnd)
    text = rnd.choice([text, f"```json\n{text}\n```", f"```\n{text}\n```"])
    return f"<tool_call>\n{text}\n</tool_call>"


def _think_agent(calls, rnd):
    return f"<think>\nThe user wants {len(calls)} call(s).\n</think>\n{_json_list(calls, rnd)}"


def _llama(calls, rnd):
    objects = [{"name": n, "parameters": a} for n, a in calls]
    choice = rnd.random()
    if choice < 0.3:
        return "<|python_tag|>" + "; ".join(json.dumps(o) for o in objects)
    if choice < 0.6:
        return repr(objects if len(objects) != 1 or rnd.random() < 0.5 else objects[0])
    return json.dumps(objects)  # true/false/null: BFCL's eval fails on them


def _python_call(name, args):
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def _gorilla(calls, rnd):
    return ", ".join(_python_call(n, a) for n, a in calls)


def _nemotron(calls, rnd):
    inner = "[" + ", ".join(_python_call(n, a) for n, a in calls) + "]"
    return f"<think>\nok\n</think>\n<TOOLCALL>{inner}</TOOLCALL>"


def _glm(calls, rnd):
    if not calls:
        return "I cannot help with that."
    name, args = calls[0]
    return f"{name}\n{json.dumps(args, ensure_ascii=False)}"


def _granite(calls, rnd):
    if not calls:
        return '<function_call> {"name": "no_function", "arguments": {}}'
    return " ".join(f"<function_call> {json.dumps({'name': n, 'arguments': a})}" for n, a in calls)


def _minicpm(calls, rnd):
    body = "\n".join(_python_call(n, a) for n, a in calls)
    block = rnd.choice([body, f"```python\n{body}\n```"])
    thought = "<|thought_start|>\nthinking\n<|thought_end|>\n" if rnd.random() < 0.5 else ""
    return f"{thought}<|tool_call_start|>\n{block}\n<|tool_call_end|>\nDone."


def _gemma_value(value):
    if isinstance(value, str):
        return f"<escape>{value}<escape>"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(v) for v in value) + "]"
    return json.dumps(value)


def _functiongemma(calls, rnd):
    return "".join(
        f"<start_function_call>call:{n}{_gemma_value(a)}<end_function_call>" for n, a in calls
    ) or rnd.choice(["", "I cannot help with that."])


RENDER = {
    "tool_call_tags": _tool_call_tags,
    "hammer": _hammer,
    "xlam": _xlam,
    "json_calls": lambda calls, rnd: _json_list(calls, rnd),
    "falcon_fc": _falcon,
    "think_agent": _think_agent,
    "llama_3_1": _llama,
    "gorilla": _gorilla,
    "nemotron": _nemotron,
    "glm": _glm,
    "granite_fc": _granite,
    "minicpm_fc": _minicpm,
    "functiongemma": _functiongemma,
}

#: Fragments of every template, for noise, broken text and text around calls.
FRAGMENTS = [
    "<tool_call>", "</tool_call>", "\n", " ", ";", ",", "`", "```", "```json", "```python",
    "[", "]", "{", "}", "(", ")", "'", '"', ":", "=", "<think>", "</think>", "<TOOLCALL>",
    "</TOOLCALL>", "<|python_tag|>", "<function_call>", "no_function", "<|tool_call_start|>",
    "<|tool_call_end|>", "<|thought_start|>", "<|thought_end|>", "name", "arguments",
    "parameters", "<start_function_call>", "<end_function_call>", "call:", "<escape>",
    "f", "a.b", "1", "-2.5", "true", "null", "None", "é", "日本",
]  # fmt: skip


# ---------------------------------------------------------------- random calls

NAMES = ["get_weather", "math.factorial", "spotify.play", "a_b.c_d", "f", "名前"]
KEYS = ["city", "unit", "n", "values", "opts", "ключ", "x_y"]


def _value(rnd: random.Random, depth: int = 0) -> Any:
    kind = rnd.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return rnd.randint(-(10**6), 10**6)
    if kind == 1:
        return round(rnd.uniform(-1000, 1000), rnd.randrange(4))
    if kind == 2:
        return rnd.choice(["Paris", "São Paulo", "it's", 'say "hi"', "a;b", "", "東京", "\\n"])
    if kind == 3:
        return rnd.choice([True, False, None])
    if kind in (4, 5):
        return rnd.choice(["celsius", "metric", "x"])
    if kind in (6, 7):
        return [_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    return {rnd.choice(KEYS): _value(rnd, depth + 1) for _ in range(rnd.randrange(3))}


def _random_calls(rnd: random.Random) -> list[tuple[str, dict[str, Any]]]:
    return [
        (rnd.choice(NAMES), {rnd.choice(KEYS): _value(rnd) for _ in range(rnd.randrange(4))})
        for _ in range(rnd.choice([0, 1, 1, 1, 2, 3]))
    ]


def _mutate(text: str, rnd: random.Random) -> str:
    """Text as a model might print it: as is, with prose around, truncated, or spliced."""
    kind = rnd.randrange(8)
    if kind <= 2:
        return text
    if kind == 3:
        return rnd.choice(["Sure! ", "<think>\nhmm\n</think>\n\n", "  "]) + text
    if kind == 4:
        return text + rnd.choice(["\nHope this helps.", "\n", ";", "```"])
    if kind == 5:
        return text[: rnd.randrange(len(text) + 1)]
    if kind == 6:
        cut = rnd.randrange(len(text) + 1)
        return text[:cut] + rnd.choice(FRAGMENTS) + text[cut:]
    return "".join(rnd.choice(FRAGMENTS) for _ in range(rnd.randrange(12)))


def corpus(decoder: str, count: int, seed: int = 0) -> list[str]:
    rnd = random.Random(f"{decoder}-{seed}")
    return [_mutate(RENDER[decoder](_random_calls(rnd), rnd), rnd) for _ in range(count)]


# ---------------------------------------------------------------- hand-written cases

REALISTIC: dict[str, list[Any]] = {
    "tool_call_tags": [
        '<tool_call>\n{"name": "spotify.play", "arguments": {"artist": "Taylor Swift", '
        '"duration": 20}}\n</tool_call>\n<tool_call>\n{"name": "spotify.play", "arguments": '
        '{"artist": "Maroon 5", "duration": 15}}\n</tool_call>',
        "I can't help with that: no function fits.",
        '<tool_call>\n{"name": "f", "arguments": "{\\"a\\": 1}"}\n</tool_call>',  # text args
        '<tool_call>\n{"name": "f", "arguments": {broken}\n</tool_call>',  # skipped block
        '<tool_call>\n["f", {}]\n</tool_call>',
        '<tool_call>{"name": "f", "arguments": {}}</tool_call>',  # no newlines: no match
        '<tool_call>\n{"name": "f"}\n</tool_call>',
        '<tool_call>\n{"name": ["f"], "arguments": {}}\n</tool_call>',
        ["not text"],
    ],
    "hammer": [
        '[{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]',
        '```\n[{"name": "f", "arguments": {"a": 1}}]\n```',
        '```json\n[{"name": "f", "arguments": {"a": 1}}]\n```',  # "json" left: no call
        "[]",
        '{"name": "f", "arguments": {}}',  # an object is iterated by its keys
        "{}",
        '""',
        "42",
        '[{"name": "f", "arguments": "a=1"}]',
        "The function cannot answer this.",
    ],
    "xlam": [
        '[{"name": "calc.area", "arguments": {"base": 10, "height": 5}}]',
        '{"name": "f", "arguments": {"a": [1, 2]}}',
        '{"name": "f", "arguments": {}}; {"name": "g", "arguments": {"b": "x"}}',
        '{"name": "f", "arguments": {}}; not json',
        "[]",
        '"just text"',
        "I am not able to do this.",
        '[{"name": "f"}]',
        '[{"name": {"x": 1}, "arguments": {}}]',
    ],
    "json_calls": [
        '[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}]',
        '{"name": "f", "arguments": {"a": NaN}}',
        "[]",
        "f(a=1)",
        '{"name": "f", "arguments": {}}; {"name": "g", "arguments": {}}',
    ],
    "falcon_fc": [
        '<tool_call>\n[{"name": "f", "arguments": {"a": 1}}]\n</tool_call>',
        '<tool_call>\n```json\n[{"name": "f", "arguments": {"a": 1}}]\n```\n</tool_call>',
        '<tool_call>{"name": "f", "arguments": {}}',  # no closing tag
        "No tool is needed.",
        "<tool_call></tool_call>",
        '<tool_call>["f"]</tool_call>',
        '<tool_call>[{"name": "f", "arguments": {}}]</tool_call><tool_call>[]</tool_call>',
    ],
    "think_agent": [
        "<think>\nNeed the weather.\n</think>\n[{'name': 'get_weather', 'arguments': "
        "{'city': 'Paris'}}]",
        "[{'name': 'f', 'arguments': {}}]",  # no </think>: no call
        "<think>x</think>[{'name': 'f', 'arguments': {'q': \"it's\"}}]",
        "<think>x</think>",
        "<think>x</think>{}",
        "<think>x</think>{'name': 'f', 'arguments': {}}",
    ],
    "llama_3_1": [
        '<|python_tag|>{"name": "calc_binomial_probability", "parameters": {"n": "10", "k": '
        '"3", "p": "0"}}; {"name": "calc_binomial_probability", "parameters": {"n": "15", '
        '"k": "5", "p": "0"}}',
        '[\n    {"name": "calculate_permutations", "parameters": {"n": "20", "k": "5"}},\n'
        '    {"name": "calculate_permutations", "parameters": {"n": "12", "k": "5"}}\n]',
        '{"name": "f", "parameters": {"flag": true}}',  # eval: true is a NameError
        "{'name': 'f', 'parameters': {'x': 2 * 3.5, 'y': -1}}",
        "  [{'name': 'f', 'parameters': {}}]",
        "\n [{'name': 'f', 'parameters': {}}]",
        "()",
        "''",
        "",
        "I don't know.",
    ],
    "gorilla": [
        "get_weather(city='Paris', unit='celsius')",
        "f(a=1), g(b=[1, 2])",
        "f(1, a=2)",
        "no call here",
        "",
    ],
    "nemotron": [
        "<TOOLCALL>[get_weather(city='Paris')]</TOOLCALL>",
        "<think>hmm</think>\n<TOOLCALL>[f(a=1), g(b={'x': 2})]</TOOLCALL>",
        "No tool call is needed.",
        "<TOOLCALL>[]</TOOLCALL>",
        "<TOOLCALL>not python(</TOOLCALL>",
    ],
    "glm": [
        'get_weather\n{"city": "Paris"}',
        "I cannot answer that.",
        "f\nnot json",
        'f\n["a"]',
        'f\n{"a": 1}\nmore text',
    ],
    "granite_fc": [
        '<function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}',
        '<function_call> {"name": "f", "arguments": {}} <function_call> {"name": "g", '
        '"arguments": {"b": 2}}',
        '<function_call> {"name": "no_function", "arguments": {}}',
        "plain text answer",
        '<function_call> {"arguments": {"a": 1}}',
        "<function_call> [1, 2]",
        '<function_call> {"name": 5}',
    ],
    "minicpm_fc": [
        "<|tool_call_start|>\n```python\nget_weather(city='Paris')\n```\n<|tool_call_end|>\n",
        "<|thought_start|>\nthink\n<|thought_end|>\n<|tool_call_start|>\n```python\n"
        "f(a=1)\ng(b='x')\n```\n<|tool_call_end|>\nDone",
        "Just an answer.",
        "<|tool_call_start|>\n```python\nx = f(a=1)\n```\n<|tool_call_end|>",
        "<|tool_call_start|>\n```python\nimport os\n```\n<|tool_call_end|>",
        "<|tool_call_start|>\npythonprint_it(a=1)\n<|tool_call_end|>",
        "<|tool_call_end|> <|tool_call_start|>",
        "<|thought_end|> <|thought_start|>",
    ],
    "functiongemma": [
        "<start_function_call>call:get_weather{city:<escape>Paris<escape>,unit:<escape>celsius"
        "<escape>}<end_function_call>",
        "<start_function_call>call:f{a:[1,2.5,<escape>x,y<escape>],b:{c:true,d:null}}"
        "<end_function_call><start_function_call>call:g<end_function_call>",
        "<start_function_call>call:f{1:x,true:y,null:z,n:1_000,m:nan,k:-0.5e3}<end_function_call>",
        "<start_function_call>call:f{a:[1}, b:2]<end_function_call>",
        "<start_function_call>call:f{a:<escape>open<end_function_call>",
        "<start_function_call>call:f{a:1}}}]]<end_function_call>",
        "<start_function_call>not a call{a:1}<end_function_call>",
        "<start_function_call>call:f x{a:1}<end_function_call>",
        "I don't have a function for that.",
        ["not text"],
    ],
}


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
    _agree(bfcl, handlers, decoder, cls, _mutate(text, rnd))
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
            result = _mutate(result, rnd)
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
