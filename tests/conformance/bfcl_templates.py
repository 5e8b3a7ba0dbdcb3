"""Model outputs in each BFCL chat template, for the handler agreement tests.

:data:`RENDER` writes calls (``[(name, {args})]``) the way each template
decoder's models print them; :func:`mutate` damages text the way models
go wrong; :func:`corpus` is a seeded mix of both; :data:`REALISTIC` holds
hand-written outputs per template.
"""

from __future__ import annotations

import json
import random
from typing import Any

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


def random_calls(rnd: random.Random) -> list[tuple[str, dict[str, Any]]]:
    return [
        (rnd.choice(NAMES), {rnd.choice(KEYS): _value(rnd) for _ in range(rnd.randrange(4))})
        for _ in range(rnd.choice([0, 1, 1, 1, 2, 3]))
    ]


def mutate(text: str, rnd: random.Random) -> str:
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
    return [mutate(RENDER[decoder](random_calls(rnd), rnd), rnd) for _ in range(count)]


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
