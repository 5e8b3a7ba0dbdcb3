"""Prompt-style answers made from BFCL's public data, for agreement checks against BFCL.

For every entry of every AST category the possible answer (one acceptable
value per parameter) and glyphh-ada's function-calling answer are written as
prompt-style text in the category's language (Python, Java, JavaScript),
then mutated the way real models go wrong: a value changed or dropped, a
string written as a bare name, ``true``/``null`` in Python, dots written as
underscores, calls reordered or repeated, positional arguments, code fences,
prose around the call, truncation. The (ir)relevance categories get the
same treatment from glyphh-ada's answers and from calls to the question's
own functions, plus refusals.

Everything is seeded: the same data gives the same texts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conformance.bfcl_data import category_files

from tooleval.benchmarks.bfcl.reader import CATEGORIES

# ---------------------------------------------------------------- rendering values


def _py(value: Any) -> str:
    return repr(value)


def _java(value: Any, declared: str | None, items: str | None = None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if declared == "long" and isinstance(value, int):
        return f"{value}L"
    if declared == "float" and isinstance(value, int | float):
        return f"{float(value)}f"
    if declared == "double" and isinstance(value, int | float):
        return str(float(value))
    if declared == "char" and isinstance(value, str) and len(value) == 1:
        return f"'{value}'"
    if isinstance(value, list):
        parts = ", ".join(_java(v, items) for v in value)
        if declared == "ArrayList":
            return f"new ArrayList<>(Arrays.asList({parts}))"
        element = {"integer": "int", "long": "long", "double": "double", "float": "float"}
        return f"new {element.get(items or '', 'String')}[]{{{parts}}}"
    if isinstance(value, dict):
        puts = " ".join(
            f"put({json.dumps(k)}, {_java(_first(v), None)});" for k, v in value.items()
        )
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    if isinstance(value, str):
        if declared in (None, "String", "any") or not value.isidentifier():
            return json.dumps(value)
        return value  # a variable name
    return json.dumps(value)


def _js(value: Any, declared: str | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if declared == "Bigint" and isinstance(value, int):
        return f"{value}n"
    if isinstance(value, list):
        return "[" + ", ".join(_js(v, None) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_js(_first(v), None)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        if declared in (None, "String") or not value.isidentifier():
            return json.dumps(value)
        return value
    return json.dumps(value)


def _first(values: Any) -> Any:
    if isinstance(values, list):
        return next((v for v in values if v != ""), "")
    return values


def render_call(name: str, args: dict[str, Any], props: dict[str, Any], language: str) -> str:
    """``name(k=v, ...)`` in the language's syntax (values from JSON)."""
    parts = []
    for key, value in args.items():
        spec = props.get(key) or {}
        declared, items = spec.get("type"), (spec.get("items") or {}).get("type")
        if language == "java":
            text = _java(value, declared, items)
        elif language == "javascript":
            text = _js(value, declared)
        else:
            text = _py(value)
        parts.append(f"{key}={text}")
    return f"{name}({', '.join(parts)})"


# ---------------------------------------------------------------- mutations


def _mutate_value(rng: random.Random, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + rng.choice([1, -1, 0.5])
    if isinstance(value, str):
        return rng.choice([value.upper(), value + "x", value.replace(" ", "_"), ""])
    if isinstance(value, list):
        return list(reversed(value)) if len(value) > 1 else value + value
    if isinstance(value, dict):
        return {k: v for i, (k, v) in enumerate(value.items()) if i}
    return value


def _calls_from_answer(
    rng: random.Random, ground_truth: list[dict[str, Any]]
) -> list[tuple[str, dict[str, Any]]]:
    calls = []
    for item in ground_truth:
        ((name, params),) = item.items()
        args = {}
        for key, values in params.items():
            options = [v for v in values if v != ""]
            if not options or ("" in values and rng.random() < 0.3):
                continue
            value = rng.choice(options)
            if isinstance(value, dict):
                value = {k: _first(v) for k, v in value.items() if _first(v) != ""}
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                value = [{k: _first(x) for k, x in v.items() if _first(x) != ""} for v in value]
            args[key] = value
        calls.append((name, args))
    return calls


def _calls_from_result(result: Any) -> list[tuple[str, dict[str, Any]]] | None:
    if not isinstance(result, list):
        return None
    calls = []
    for item in result:
        if not isinstance(item, dict) or len(item) != 1:
            return None
        ((name, args),) = item.items()
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                return None
        if not isinstance(args, dict):
            return None
        calls.append((name, args))
    return calls


def _texts(
    rng: random.Random,
    calls: list[tuple[str, dict[str, Any]]],
    functions: list[dict[str, Any]],
    language: str,
) -> Iterator[str]:
    props = {f["name"]: (f.get("parameters") or {}).get("properties") or {} for f in functions}

    def render(cs: list[tuple[str, dict[str, Any]]]) -> str:
        return "[" + ", ".join(render_call(n, a, props.get(n, {}), language) for n, a in cs) + "]"

    yield render(calls)
    if not calls:
        return
    i = rng.randrange(len(calls))
    name, args = calls[i]
    if args:
        key = rng.choice(list(args))
        changed = dict(args)
        changed[key] = _mutate_value(rng, args[key])
        yield render([*calls[:i], (name, changed), *calls[i + 1 :]])
        dropped = {k: v for k, v in args.items() if k != key}
        yield render([*calls[:i], (name, dropped), *calls[i + 1 :]])
        text = render(calls)
        value = args[key]
        if isinstance(value, str) and value.isidentifier() and language == "python":
            yield text.replace(repr(value), value, 1)  # bare name
        if language == "python" and isinstance(value, bool):
            yield text.replace(f"{key}={value!r}", f"{key}={str(value).lower()}", 1)
        if language == "python" and value is None:
            yield text.replace(f"{key}=None", f"{key}=null", 1)
        yield text.replace(f"{key}=", "", 1)  # positional
    if "." in name:
        yield render([*calls[:i], (name.replace(".", "_"), args), *calls[i + 1 :]])
    if len(calls) > 1:
        yield render(list(reversed(calls)))
    yield render([*calls, calls[i]])
    yield render(calls[:i] + calls[i + 1 :])
    text = render(calls)
    yield rng.choice([f"```\n{text}\n```", f"```python\n{text}\n```", text[1:-1], f"'{text}'"])
    yield rng.choice(
        [f"Sure! {text}", f"{text} Let me know if you need more.", text[: len(text) // 2]]
    )


# ---------------------------------------------------------------- cases


def realistic_cases(bfcl_dir: Path, *, seed: int = 11) -> dict[str, list[dict[str, Any]]]:
    """Cases (same shape as the synthetic ones) per category, from the public data."""
    rng = random.Random(seed)
    out: dict[str, list[dict[str, Any]]] = {}
    for category, info in CATEGORIES.items():
        files = category_files(bfcl_dir, category)
        questions, answers, results = files.questions, files.answers, files.results
        cases: list[dict[str, Any]] = []
        for question in questions:
            qid, functions = question["id"], question["function"]
            sources = []
            if qid in answers:
                sources.append(_calls_from_answer(rng, answers[qid]))
            from_result = _calls_from_result(results.get(qid))
            if from_result:
                sources.append(from_result)
            if info.kind in ("irrelevance", "relevance") and functions:
                fn = rng.choice(functions)
                required = (fn.get("parameters") or {}).get("required") or []
                sources.append([(fn["name"], {k: "x" for k in required})])
            texts = [t for calls in sources for t in _texts(rng, calls, functions, info.language)]
            if info.kind in ("irrelevance", "relevance"):
                texts += ["I cannot help with that.", "[]", "None of the functions apply."]
            for n, text in enumerate(dict.fromkeys(texts)):
                names = "dots"
                if info.kind not in ("irrelevance", "relevance") and n % 3 == 2:
                    names = "underscores"  # every third answer from an underscore_to_dot model
                cases.append(
                    {
                        "name": f"{qid}#{n}",
                        "category": category,
                        "functions": functions,
                        "ground_truth": answers.get(qid),
                        "result": text,
                        "mode": "prompt",
                        "names": names,
                    }
                )
        out[category] = cases
    return out


_NOISE = [
    *"[](){}=,.'\"`\n -+*/_abcxyz0123456789:;<>!#\\",
    "true",
    "null",
    "new ",
    "lambda ",
    "**",
    "...",
]


def fuzzed(text: str, rng: random.Random) -> str:
    """``text`` with one to three random insertions, deletions or cut spans."""
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        op, i = rng.random(), rng.randrange(len(chars) + 1)
        if op < 0.4 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op < 0.8:
            chars.insert(i, rng.choice(_NOISE))
        else:
            chars[i : rng.randrange(len(chars) + 1)] = []
    return "".join(chars)


def agreement_table(bfcl_dir: Path) -> str:
    """The markdown table of docs/benchmarks/bfcl.md: per category, BFCL vs tooleval.

    Run ``.venv/bin/python -m tests.conformance.bfcl_realistic`` (needs bfcl-eval).
    """
    from tests.conformance.bfcl_reference import load_bfcl, ours, theirs

    bfcl = load_bfcl()
    if bfcl is None:
        raise SystemExit("bfcl_eval is not importable: pip install --no-deps bfcl-eval==2026.3.23")
    lines = [
        "| category | answers | BFCL pass | agreement (pass/fail) | same label, both failed |",
        "|---|---:|---:|---:|---:|",
    ]
    totals = [0, 0, 0, 0]
    for category, cases in realistic_cases(bfcl_dir).items():
        agree = passed = failed = same = 0
        for case in cases:
            reference, mine = theirs(bfcl, case), ours(case)
            passed += reference["valid"]
            agree += reference["valid"] == mine["valid"]
            if not reference["valid"] and not mine["valid"]:
                failed += 1
                same += reference["error_type"] == mine["error_type"]
        lines.append(
            f"| {category} | {len(cases)} | {passed} | {agree}/{len(cases)} "
            f"({agree / len(cases):.2%}) | {same}/{failed} |"
        )
        for i, n in enumerate((len(cases), agree, failed, same)):
            totals[i] += n
    lines.append(
        f"| **all** | {totals[0]} | | {totals[1]}/{totals[0]} ({totals[1] / totals[0]:.2%}) "
        f"| {totals[3]}/{totals[2]} |"
    )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(agreement_table(Path(__file__).resolve().parents[3] / "shared" / "data" / "bfcl"), end="")
