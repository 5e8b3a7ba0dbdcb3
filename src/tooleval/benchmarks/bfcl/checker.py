"""BFCL's AST verdicts, reproduced as pure functions over tooleval calls.

A BFCL "AST" check decides pass/fail for one model answer:

* ``simple``: exactly one call, checked against the one expected call;
* ``multiple``: exactly one call too (the model had several functions to pick from);
* ``parallel`` / ``parallel_multiple``: as many calls as expected, matched in
  any order, each expected call used once;
* ``irrelevance``: pass when the model made no call;
* ``relevance``: pass when it made at least one.

One call passes when the name matches (the schema's name; with
``names="underscores"`` written ``math_factorial`` for ``math.factorial``,
as BFCL checks ``underscore_to_dot`` models; ``"either"`` accepts both),
every required parameter (from the schema) is present,
no parameter is unknown to the schema or to the answer, each value has the
declared type and is one of the acceptable values, and every parameter the
answer does not mark optional (``""``) is present. Strings compare after
BFCL's normalisation (spaces and ``,./-_*^`` removed, lower case, ``'`` as
``"``); an int is accepted for a float parameter at the top level only.

The first failing rule names the error, in BFCL's order. Error codes are
short (``value_error``); :attr:`Verdict.bfcl_error_type` gives BFCL's own
label (``value_error:string``) for comparison with its score files.

>>> from tooleval.model import AnyOf
>>> schema = [{"name": "area", "parameters": {"type": "dict", "required": ["base"],
...            "properties": {"base": {"type": "float"}, "unit": {"type": "string"}}}}]
>>> expected = [ToolCall("area", {"base": AnyOf([10.0]), "unit": AnyOf(["cm"], optional=True)})]
>>> check_answer("simple", schema, expected, [ToolCall("area", {"base": 10})]).passed
True
>>> check_answer("simple", schema, expected, [ToolCall("area", {"base": 10, "unit": "mm"})]).error
'value_error'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from tooleval.benchmarks.bfcl.literals import JAVA_TYPES, JS_TYPES, java_value, js_value
from tooleval.model import AnyOf, ToolCall

__all__ = [
    "NAME_RULES",
    "PYTHON_TYPES",
    "Verdict",
    "check_answer",
    "check_call",
    "names_match",
    "standardize_string",
]

#: How a model writes function names: the schema's dots, dots as underscores, or either.
NAME_RULES = ("dots", "underscores", "either")

#: Declared (BFCL schema) type -> Python type of a well-typed value.
PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
# Declared types whose items BFCL type-checks too (one level deep).
_PYTHON_ITEM_CHECKED = ("array", "tuple")
_CONVERTED_ITEM_CHECKED = ("Array", "ArrayList", "array")

_STRIP = re.compile(r"[ ,./\-_*^]")


def standardize_string(text: str) -> str:
    """BFCL's string normalisation: drop spaces and ``,./-_*^``, lower-case, ``'`` -> ``"``.

    >>> standardize_string("April 1, 2024") == standardize_string("april 1 2024")
    True
    """
    return _STRIP.sub("", text).lower().replace("'", '"')


@dataclass(frozen=True, slots=True)
class Verdict:
    """Pass/fail for one answer, with a short error code and a readable detail."""

    passed: bool
    error: str | None = None
    detail: str = ""
    bfcl_error_type: str | None = None
    call_index: int | None = None
    param: str | None = None

    @classmethod
    def ok(cls) -> Verdict:
        return cls(True)


def _fail(error: str, bfcl: str, detail: str, *, param: str | None = None) -> Verdict:
    return Verdict(False, error, detail, bfcl, param=param)


# ---------------------------------------------------------------- whole answers


def check_answer(
    kind: str,
    functions: Sequence[Mapping[str, Any]],
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    *,
    language: str = "python",
    assignment: str = "greedy",
    names: str = "either",
) -> Verdict:
    """BFCL's verdict for one answer of a category ``kind``.

    ``assignment`` matters only for parallel kinds: ``"greedy"`` pairs each
    expected call with the first unused actual call that passes (BFCL's
    rule); ``"optimal"`` finds a full pairing whenever one exists.
    ``names`` is ``"dots"`` (the schema's name exactly), ``"underscores"``
    (``.`` written ``_``) or ``"either"``.
    """
    if names not in NAME_RULES:
        raise ValueError(f"names must be one of {', '.join(NAME_RULES)}, got {names!r}")
    if kind == "irrelevance":
        if actual:
            return _fail(
                "unexpected_call",
                "irrelevance_error:decoder_success",
                f"expected no call, got {len(actual)}",
            )
        return Verdict.ok()
    if kind == "relevance":
        if not actual:
            return _fail("no_call", "relevance_error:decoder_failed", "expected a call, got none")
        return Verdict.ok()
    if kind in ("simple", "multiple"):
        checker = "simple_function_checker" if kind == "simple" else "multiple_function_checker"
        if len(actual) != len(expected) or len(actual) != 1:
            return _fail(
                "wrong_count",
                f"{checker}:wrong_count",
                f"expected 1 call, got {len(actual)}",
            )
        schema = _schema_for(functions, expected[0].name, kind)
        verdict = check_call(schema, expected[0], actual[0], language=language, names=names)
        return verdict if verdict.passed else _with_index(verdict, 0)
    if kind in ("parallel", "parallel_multiple"):
        return _check_parallel(functions, expected, actual, language, assignment, names)
    raise ValueError(f"unknown BFCL category kind {kind!r}")


def _schema_for(functions: Sequence[Mapping[str, Any]], name: str, kind: str) -> Mapping[str, Any]:
    if kind == "simple" and functions:
        return functions[0]
    for function in functions:
        if function.get("name") == name:
            return function
    return {"name": name, "parameters": {"properties": {}, "required": []}}


def _with_index(verdict: Verdict, index: int) -> Verdict:
    return Verdict(
        verdict.passed,
        verdict.error,
        verdict.detail,
        verdict.bfcl_error_type,
        call_index=index,
        param=verdict.param,
    )


def _check_parallel(
    functions: Sequence[Mapping[str, Any]],
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    language: str,
    assignment: str,
    names: str,
) -> Verdict:
    if len(actual) != len(expected):
        return _fail(
            "wrong_count",
            "parallel_function_checker_no_order:wrong_count",
            f"expected {len(expected)} calls, got {len(actual)}",
        )
    fits: list[list[bool]] = []
    last_failure: list[Verdict | None] = []
    for exp in expected:
        schema = _schema_for(functions, exp.name, "parallel")
        row, failure = [], None
        for act in actual:
            verdict = check_call(schema, exp, act, language=language, names=names)
            row.append(verdict.passed)
            if not verdict.passed and failure is None:
                failure = verdict
        fits.append(row)
        last_failure.append(failure)
    if assignment == "greedy":
        used: set[int] = set()
        for i, row in enumerate(fits):
            j = next((j for j, ok in enumerate(row) if ok and j not in used), None)
            if j is None:
                return _no_match(i, expected[i], last_failure[i])
            used.add(j)
        return Verdict.ok()
    if assignment == "optimal":
        pairing = _max_matching(fits)
        for i in range(len(expected)):
            if pairing[i] is None:
                return _no_match(i, expected[i], last_failure[i])
        return Verdict.ok()
    raise ValueError(f"assignment must be 'greedy' or 'optimal', got {assignment!r}")


def _no_match(index: int, expected: ToolCall, failure: Verdict | None) -> Verdict:
    why = f" (closest failure: {failure.error}: {failure.detail})" if failure else ""
    return Verdict(
        False,
        "no_match",
        f"no call matches expected call {index} {expected.name}{why}",
        "parallel_function_checker_no_order:cannot_find_match",
        call_index=index,
        param=failure.param if failure else None,
    )


def _max_matching(fits: list[list[bool]]) -> list[int | None]:
    """Maximum bipartite matching (augmenting paths); rows are expected calls."""
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j, ok in enumerate(fits[i]):
            if ok and j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(fits)):
        augment(i, set())
    pairing: list[int | None] = [None] * len(fits)
    for j, i in owner.items():
        pairing[i] = j
    return pairing


# ---------------------------------------------------------------- one call


def check_call(
    schema: Mapping[str, Any],
    expected: ToolCall,
    actual: ToolCall,
    *,
    language: str = "python",
    names: str = "either",
) -> Verdict:
    """BFCL's verdict for one actual call against one expected call and its schema.

    The required name is the schema's (BFCL ignores the possible answer's
    name once the schema is chosen), written as ``names`` says.
    """
    wanted = str(schema.get("name") or expected.name)
    if not names_match(wanted, actual.name, names):
        shown = wanted.replace(".", "_") if names == "underscores" else wanted
        return _fail(
            "wrong_func_name",
            "simple_function_checker:wrong_func_name",
            f"expected function {shown!r}, got {actual.name!r}",
        )
    parameters = schema.get("parameters") or {}
    properties: Mapping[str, Any] = parameters.get("properties") or {}
    required = parameters.get("required") or []
    acceptable: Mapping[str, Any] = expected.args or {}
    given = actual.args or {}
    for param in required:
        if param not in given:
            return _fail(
                "missing_required",
                "simple_function_checker:missing_required",
                f"required parameter {param!r} is missing",
                param=param,
            )
    for param, value in given.items():
        if param not in properties or param not in acceptable:
            return _fail(
                "unexpected_param",
                "simple_function_checker:unexpected_param",
                f"unexpected parameter {param!r}",
                param=param,
            )
        verdict = _check_value(
            param, value, _as_any_of(acceptable[param]), properties[param], language
        )
        if not verdict.passed:
            return verdict
    for param, values in acceptable.items():
        if param not in given and not _as_any_of(values).optional:
            return _fail(
                "missing_optional",
                "simple_function_checker:missing_optional",
                f"parameter {param!r} is missing and the answer does not mark it optional",
                param=param,
            )
    return Verdict.ok()


def names_match(expected: str, actual: str, names: str = "either") -> bool:
    """Does ``actual`` name the function ``expected`` under the name rule ``names``?

    >>> [names_match("math.factorial", "math_factorial", r) for r in NAME_RULES]
    [False, True, True]
    """
    if names == "dots":
        return actual == expected
    underscored = expected.replace(".", "_")
    if names == "underscores":
        return actual == underscored
    return actual in (expected, underscored)


def _as_any_of(values: Any) -> AnyOf:
    if isinstance(values, AnyOf):
        return values
    if isinstance(values, list):  # raw BFCL acceptable-value list
        return AnyOf([v for v in values if v != ""], optional="" in values)
    return AnyOf([values])


def _check_value(
    param: str, value: Any, acceptable: AnyOf, spec: Mapping[str, Any], language: str
) -> Verdict:
    declared = str(spec.get("type", "any"))
    items_declared = (spec.get("items") or {}).get("type")
    item_type: type | None = None
    if language == "python":
        value_type = PYTHON_TYPES.get(declared, str)
        if declared in _PYTHON_ITEM_CHECKED and items_declared is not None:
            item_type = PYTHON_TYPES.get(items_declared, str)
        if declared == "tuple" and type(value) is tuple:
            value = list(value)
        if declared == "float" and type(value) is int:
            value = float(value)  # Python would accept an int where a float is declared
    else:
        table, convert, code = (
            (JAVA_TYPES, java_value, "java") if language == "java" else (JS_TYPES, js_value, "js")
        )
        value_type = table.get(declared, str)
        if type(value) is not str:
            return _fail(
                "type_error",
                f"type_error:{code}",
                f"parameter {param!r}: expected {language} source text, got {type(value).__name__}",
                param=param,
            )
        if declared in _CONVERTED_ITEM_CHECKED and items_declared is not None:
            item_type = table.get(items_declared, str)
            value = convert(value, declared, items_declared)
        else:
            value = convert(value, declared)
        if type(value) is tuple:
            value = list(value)

    type_verdict, is_variable = _check_type(param, value, acceptable, value_type, item_type)
    if not type_verdict.passed:
        return type_verdict
    if not is_variable:
        if value_type is dict:
            return _check_dict(param, value, acceptable)
        if value_type is list and item_type is dict:
            return _check_list_of_dicts(param, value, acceptable)
        if value_type is str:
            return _check_string(param, value, acceptable)
        if value_type is list:
            return _check_list(param, value, acceptable)
    if any(value == v for v in _with_blank(acceptable)):
        return Verdict.ok()
    return _fail(
        "value_error",
        "value_error:others",
        f"parameter {param!r}: {value!r} is not one of {list(acceptable.values)!r}",
        param=param,
    )


def _with_blank(acceptable: AnyOf) -> list[Any]:
    # BFCL keeps "" in the acceptable list; a few checks compare against it.
    return [*acceptable.values, ""] if acceptable.optional else list(acceptable.values)


def _first_type(values: Sequence[Any]) -> type | None:
    for v in values:
        if v != "":
            return type(v)
    return None


def _check_type(
    param: str, value: Any, acceptable: AnyOf, value_type: type, item_type: type | None
) -> tuple[Verdict, bool]:
    """(verdict, is_variable). A value typed like the answer (not the schema) is a "variable"."""
    answer_type = _first_type(acceptable.values)
    is_variable = answer_type is not None and answer_type is not value_type
    if type(value) is value_type:
        if item_type is None:
            return Verdict.ok(), is_variable
        # One level of item checking: some acceptable value must admit every item.
        # A non-list acceptable value (a variable name, or "") admits anything.
        for candidate in _with_blank(acceptable):
            if not isinstance(candidate, list) or all(
                _item_fits(item, candidate, item_type) for item in cast("list[Any]", value)
            ):
                return Verdict.ok(), is_variable
        # BFCL labels this "nested" only when the answer's own type is the value's.
        label = "nested" if answer_type is not None and type(value) is answer_type else "simple"
        return (
            _fail(
                "type_error",
                f"type_error:{label}",
                f"parameter {param!r}: items of {value!r} are not all {item_type.__name__}",
                param=param,
            ),
            is_variable,
        )
    if answer_type is not None and type(value) is answer_type:
        return Verdict.ok(), True
    return (
        _fail(
            "type_error",
            "type_error:simple",
            f"parameter {param!r}: expected {value_type.__name__}, got {type(value).__name__} {value!r}",
            param=param,
        ),
        False,
    )


def _item_fits(item: Any, candidate: list[Any], item_type: type) -> bool:
    if type(item) is item_type:
        return True
    candidate_type = _first_type(candidate)
    return candidate_type is not None and type(item) is candidate_type


def _std(value: Any) -> Any:
    return standardize_string(value) if type(value) is str else value


def _check_string(param: str, value: str, acceptable: AnyOf) -> Verdict:
    target = standardize_string(value)
    # "" (optional) is an acceptable string too: BFCL keeps it in the list.
    if any(type(v) is str and standardize_string(v) == target for v in _with_blank(acceptable)):
        return Verdict.ok()
    return _fail(
        "value_error",
        "value_error:string",
        f"parameter {param!r}: {value!r} is not one of {list(acceptable.values)!r}",
        param=param,
    )


def _check_list(param: str, value: list[Any], acceptable: AnyOf) -> Verdict:
    target = [_std(v) for v in value]
    for candidate in _with_blank(acceptable):
        # "" reads as an empty list here: an optional list parameter may be [].
        if isinstance(candidate, list | str) and [_std(v) for v in candidate] == target:
            return Verdict.ok()
    return _fail(
        "value_error",
        "value_error:list/tuple",
        f"parameter {param!r}: {value!r} is not one of {list(acceptable.values)!r}",
        param=param,
    )


def _dict_fits(value: Any, candidate: Any) -> tuple[bool, str, str]:
    """Does one dict value fit one acceptable dict? (ok, bfcl_error_type, detail)."""
    if not isinstance(value, Mapping) or not isinstance(candidate, Mapping):
        return False, "value_error:dict_key", f"{value!r} does not fit {candidate!r}"
    failure: tuple[bool, str, str] | None = None
    for key, item in value.items():
        if key not in candidate:
            failure = (False, "value_error:dict_key", f"unexpected key {key!r}")
            break
        options = candidate[key]
        if isinstance(options, str):
            # A malformed answer with a bare string here: BFCL iterates it, so
            # each *character* becomes an acceptable value (simple_java_64).
            options = list(options)
        elif not isinstance(options, list):
            options = [options]
        if _std(item) not in [_std(o) for o in options]:
            detail = f"key {key!r}: {item!r} is not one of {options!r}"
            failure = (False, "value_error:dict_value", detail)
            break
    # Missing keys are looked for even after a bad value, and then name the error.
    for key, options in candidate.items():
        if key not in value and (not isinstance(options, list | str) or "" not in options):
            return False, "value_error:dict_key", f"missing key {key!r}"
    return failure or (True, "", "")


def _check_dict(param: str, value: dict[str, Any], acceptable: AnyOf) -> Verdict:
    failure = ("dict_checker:unclear", "no acceptable dict")
    for candidate in acceptable.values:
        ok, code, detail = _dict_fits(value, candidate)
        if ok:
            return Verdict.ok()
        failure = (code, detail)
    return _fail("value_error", failure[0], f"parameter {param!r}: {failure[1]}", param=param)


def _check_list_of_dicts(param: str, value: list[Any], acceptable: AnyOf) -> Verdict:
    failure = ("list_dict_checker:unclear", "no acceptable list")
    for candidate in _with_blank(acceptable):
        if len(value) != len(candidate):
            failure = ("value_error:list_dict_count", f"expected {len(candidate)} dicts")
            continue
        for item, expected_item in zip(value, candidate, strict=True):
            ok, code, detail = _dict_fits(item, expected_item)
            if not ok:
                failure = (code, detail)
                break
        else:
            return Verdict.ok()
    return _fail("value_error", failure[0], f"parameter {param!r}: {failure[1]}", param=param)
