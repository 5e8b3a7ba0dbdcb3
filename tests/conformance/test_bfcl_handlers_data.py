"""Template decoders on BFCL's public questions: tooleval's verdict is BFCL's handler's.

For a seeded sample of the questions of every category, the possible answer
(and glyphh-ada's answer) become calls, mutated as models go wrong (a value
changed, a parameter dropped, dots as underscores, calls reordered,
repeated or dropped), are written in each chat template the handlers read,
and go through BFCL's handler ``decode_ast`` + AST checker and through
``sample_from_entry`` + ``bfcl_ast``: the verdicts must be equal. In the
Java and JavaScript categories Gorilla and Nemotron write calls in that
language; the other templates keep their JSON (BFCL then checks the JSON
values with its Java/JavaScript rules). Needs ``../shared/data/bfcl`` and ``bfcl-eval``.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from tests.conformance.bfcl_data import category_files
from tests.conformance.bfcl_realistic import (
    _calls_from_answer,
    _calls_from_result,
    _mutate_value,
    render_call,
)
from tests.conformance.bfcl_reference import (
    HANDLER_CLASSES,
    handler_verdict,
    load_bfcl,
    load_handler,
    ours,
)
from tests.conformance.bfcl_templates import RENDER

from tooleval.benchmarks.bfcl.reader import CATEGORIES

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::SyntaxWarning"),
]

PER_CATEGORY = 24  # questions sampled per category
PROMPT_STYLE = ("gorilla", "nemotron")


@pytest.fixture(scope="module")
def bfcl():
    loaded = load_bfcl()
    if loaded is None:
        pytest.skip("bfcl_eval is not importable; `pip install --no-deps bfcl-eval==2026.3.23`")
    return loaded


def _variants(rng: random.Random, calls: list[tuple[str, dict[str, Any]]]) -> list[list[Any]]:
    out = [calls]
    if not calls:
        return out
    i = rng.randrange(len(calls))
    name, args = calls[i]
    if args:
        key = rng.choice(list(args))
        out.append(
            [*calls[:i], (name, {**args, key: _mutate_value(rng, args[key])}), *calls[i + 1 :]]
        )
        out.append(
            [*calls[:i], (name, {k: v for k, v in args.items() if k != key}), *calls[i + 1 :]]
        )
    if "." in name:
        out.append([*calls[:i], (name.replace(".", "_"), args), *calls[i + 1 :]])
    if len(calls) > 1:
        out.append(list(reversed(calls)))
    out.append([*calls, calls[i]])
    out.append(calls[:i] + calls[i + 1 :])
    return out


def _render(decoder: str, calls: list[Any], rnd: random.Random, functions, language: str) -> str:
    if language == "python" or decoder not in PROMPT_STYLE:
        return RENDER[decoder](calls, rnd)  # template models write JSON in every language
    props = {f["name"]: (f.get("parameters") or {}).get("properties") or {} for f in functions}
    text = ", ".join(render_call(n, a, props.get(n, {}), language) for n, a in calls)
    return text if decoder == "gorilla" else f"<TOOLCALL>[{text}]</TOOLCALL>"


def data_cases(bfcl_dir, decoder: str) -> list[dict[str, Any]]:
    rng, rnd = random.Random(f"data-{decoder}"), random.Random(f"render-{decoder}")
    cases = []
    for category, info in CATEGORIES.items():
        files = category_files(bfcl_dir, category)
        questions, answers, results = files.questions, files.answers, files.results
        for question in rng.sample(questions, min(PER_CATEGORY, len(questions))):
            qid, functions = question["id"], question["function"]
            sources = [_calls_from_result(results.get(qid)) or []]
            if qid in answers:
                sources.append(_calls_from_answer(rng, answers[qid]))
            for source in sources:
                for calls in _variants(rng, source):
                    cases.append(
                        {
                            "category": category,
                            "functions": functions,
                            "ground_truth": answers.get(qid),
                            "result": _render(decoder, calls, rnd, functions, info.language),
                            "mode": decoder,
                            "names": rng.choice(["dots", "underscores"]),
                        }
                    )
    return cases


HANDLERS = [(d, m, c) for d, pairs in HANDLER_CLASSES.items() for m, c in pairs]


@pytest.mark.parametrize(("decoder", "module", "cls"), HANDLERS)
def test_verdicts_on_public_questions_are_bfcls(shared_data, bfcl, decoder, module, cls):
    try:
        handler = load_handler(module, cls)
    except ImportError as exc:  # a handler module's own imports (openai, requests, ...)
        pytest.skip(f"BFCL's model handlers cannot be imported: {exc}")
    outcomes: Counter[bool] = Counter()
    differ = []
    for case in data_cases(shared_data / "bfcl", decoder):
        theirs = handler_verdict(bfcl, handler, case)
        outcomes[theirs["valid"]] += 1
        if ours(case) != theirs:
            differ.append((case["category"], case["result"][:120], theirs, ours(case)))
    assert not differ, f"{cls}: {len(differ)} of {sum(outcomes.values())} differ, e.g. {differ[:3]}"
    assert outcomes[True] > 50 and outcomes[False] > 50, outcomes
