"""Berkeley Function Calling Leaderboard (BFCL) files as tooleval Samples.

BFCL keeps three kinds of JSONL files per category (``.json`` despite being
JSON Lines): questions (``BFCL_v4_<category>.json``: the prompt and the
function schemas), possible answers (``possible_answer/BFCL_v4_<category>.json``:
per parameter a list of acceptable values, ``""`` meaning "may be
omitted") and model results (``BFCL_v4_<category>_result.json``).

Model results come in two styles, both read here:

* function calling: a list of ``{name: "<JSON arguments>"}`` or
  ``{name: {arguments}}``;
* prompting: a string of Python calls, ``"[f(a=1, b='x')]"``, parsed with
  :mod:`ast` by :func:`parse_python_calls` (literals only, never evaluated).

Expected calls carry one :class:`~tooleval.matching.any_of.AnyOf` per
parameter; the schemas and the language go to ``sample.metadata["bfcl"]``
so the ``bfcl_ast`` metric can reproduce BFCL's type rules.

>>> s = sample_from_entry(
...     {"id": "simple_python_1", "question": [[{"role": "user", "content": "5!"}]],
...      "function": [{"name": "math.factorial", "parameters": {"type": "dict",
...          "properties": {"number": {"type": "integer"}}, "required": ["number"]}}]},
...     {"id": "simple_python_1", "ground_truth": [{"math.factorial": {"number": [5]}}]},
...     {"id": "simple_python_1", "result": [{"math_factorial": '{"number": 5}'}]},
... )
>>> s.expected_tools.calls[0].args, s.actual_calls()[0].name
({'number': AnyOf([5])}, 'math_factorial')
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval.errors import DatasetError, FormatError
from tooleval.matching.any_of import AnyOf
from tooleval.model import ExpectedTools, Sample, ToolCall

__all__ = [
    "AST_CATEGORIES",
    "CATEGORIES",
    "BfclCategory",
    "category_from_filename",
    "decode_result",
    "expected_from_ground_truth",
    "function_names_match",
    "load_bfcl",
    "parse_python_calls",
    "read_jsonl",
    "sample_from_entry",
]


@dataclass(frozen=True, slots=True)
class BfclCategory:
    """How BFCL scores one category: ``kind`` and the ``language`` of its values."""

    name: str
    kind: str  # simple | multiple | parallel | parallel_multiple | irrelevance | relevance
    language: str = "python"  # python | java | javascript


CATEGORIES: dict[str, BfclCategory] = {
    c.name: c
    for c in (
        BfclCategory("simple_python", "simple"),
        BfclCategory("simple_java", "simple", "java"),
        BfclCategory("simple_javascript", "simple", "javascript"),
        BfclCategory("multiple", "multiple"),
        BfclCategory("parallel", "parallel"),
        BfclCategory("parallel_multiple", "parallel_multiple"),
        BfclCategory("live_simple", "simple"),
        BfclCategory("live_multiple", "multiple"),
        BfclCategory("live_parallel", "parallel"),
        BfclCategory("live_parallel_multiple", "parallel_multiple"),
        BfclCategory("irrelevance", "irrelevance"),
        BfclCategory("live_irrelevance", "irrelevance"),
        BfclCategory("live_relevance", "relevance"),
    )
}
#: Categories that have a possible-answer file and are checked call by call.
AST_CATEGORIES = tuple(
    n for n, c in CATEGORIES.items() if c.kind not in ("irrelevance", "relevance")
)

_RESULT_FILE = re.compile(r"^BFCL_v\d+_(?P<category>.+?)_result\.json$")


def category_from_filename(name: str) -> str | None:
    """The category of a result file name, or None if it is not one.

    >>> category_from_filename("BFCL_v4_live_simple_result.json")
    'live_simple'
    """
    match = _RESULT_FILE.match(Path(name).name)
    return match.group("category") if match else None


def function_names_match(expected: str, actual: str) -> bool:
    """Same function, allowing ``math_factorial`` for ``math.factorial``.

    Function-calling APIs forbid ``.`` in tool names, so models send dots as
    underscores; BFCL maps them back. Both spellings are accepted here.

    >>> function_names_match("math.factorial", "math_factorial")
    True
    >>> function_names_match("math_factorial", "math.factorial")
    False
    """
    return actual == expected or ("." in expected and actual == expected.replace(".", "_"))


# ---------------------------------------------------------------- reading files


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Every JSON object in a JSON Lines file (blank lines skipped)."""
    path = Path(path)
    rows: list[dict[str, Any]] = []
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read file: {exc.strerror}", path=str(path)) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise DatasetError(f"invalid JSON: {exc}", path=str(path), row=number) from None
            if not isinstance(row, dict):
                raise DatasetError(
                    f"expected a JSON object per line, got {type(row).__name__}",
                    path=str(path),
                    row=number,
                )
            rows.append(row)
    return rows


def decode_result(result: Any, *, field: str = "result") -> list[ToolCall]:
    """The calls in one BFCL model result (function-calling list or Python string).

    Raises :class:`FormatError` when the result cannot be read as calls; BFCL
    counts that as "no call" in irrelevance categories and as a failure
    elsewhere.

    >>> [str(c) for c in decode_result([{"f": '{"a": 1}'}, {"g": {"b": "x"}}])]
    ['f(a=1)', "g(b='x')"]
    >>> decode_result("[]")
    []
    """
    if isinstance(result, str):
        if not result.strip().strip("`[]").strip():
            return []
        return parse_python_calls(result, field=field)
    if not isinstance(result, list):
        raise FormatError(
            f"expected a list of calls or a string of Python calls, got {type(result).__name__}",
            field=field,
        )
    calls: list[ToolCall] = []
    for index, item in enumerate(result):
        where = f"{field}[{index}]"
        if not isinstance(item, Mapping) or len(item) != 1:
            raise FormatError(
                f"expected an object with exactly one function name, got {_short(item)}",
                field=where,
            )
        ((name, arguments),) = item.items()
        call = ToolCall.parse(str(name), arguments)
        if call.parse_error is not None:
            raise FormatError(f"{name}: {call.parse_error}", field=where)
        calls.append(call)
    return calls


def expected_from_ground_truth(ground_truth: Any, *, field: str = "ground_truth") -> ExpectedTools:
    """Expected calls (order free) with one :class:`AnyOf` per parameter.

    ``""`` in an acceptable-value list becomes ``optional=True``; nested
    values (dicts whose fields are again lists of acceptable values, lists of
    acceptable arrays) are kept as BFCL writes them.

    >>> e = expected_from_ground_truth([{"area": {"base": [10], "unit": ["cm", ""]}}])
    >>> e.calls[0].args["unit"], e.before
    (AnyOf(['cm'], optional=True), ())
    """
    if not isinstance(ground_truth, list):
        raise FormatError(
            f"expected a list of {{function: {{param: [values]}}}}, got {type(ground_truth).__name__}",
            field=field,
        )
    calls: list[ToolCall] = []
    for index, item in enumerate(ground_truth):
        where = f"{field}[{index}]"
        if not isinstance(item, Mapping) or len(item) != 1:
            raise FormatError("expected an object with exactly one function name", field=where)
        ((name, params),) = item.items()
        if not isinstance(params, Mapping):
            raise FormatError(f"{name}: expected an object of parameters", field=where)
        args: dict[str, AnyOf] = {}
        for param, values in params.items():
            if not isinstance(values, list):
                raise FormatError(
                    f"expected a list of acceptable values, got {_short(values)}",
                    field=f"{where}.{name}.{param}",
                )
            args[param] = AnyOf([v for v in values if v != ""], optional="" in values)
        calls.append(ToolCall(name=str(name), args=args))
    return ExpectedTools(tuple(calls), before=())


def sample_from_entry(
    question: Mapping[str, Any],
    answer: Mapping[str, Any] | None,
    result: Mapping[str, Any],
    *,
    category: str | None = None,
) -> Sample:
    """One Sample from a question, its possible answer (None for (ir)relevance) and a result.

    A result that cannot be decoded gives ``tools_called=[]`` and the reason
    in ``metadata["bfcl"]["decode_error"]``.
    """
    entry_id = str(result.get("id") or question.get("id"))
    category = category or _category_from_id(entry_id)
    info = CATEGORIES.get(category)
    if "result" not in result:
        raise FormatError("result entry has no 'result' field", field="result", id=entry_id)
    decode_error: str | None = None
    try:
        calls = decode_result(result["result"])
    except FormatError as exc:
        calls, decode_error = [], str(exc)
    expected = None
    if answer is not None:
        expected = expected_from_ground_truth(answer.get("ground_truth"))
    elif info is not None and info.kind == "irrelevance":
        expected = ExpectedTools((), before=())
    functions = question.get("function") or []
    metadata: dict[str, Any] = {
        "bfcl": {
            "functions": functions,
            "language": info.language if info else "python",
            "decode_error": decode_error,
        }
    }
    if decode_error is not None:
        metadata["bfcl"]["raw_result"] = result["result"]
    return Sample(
        input=_user_text(question.get("question")),
        tools_called=calls,
        expected_tools=expected,
        category=category,
        id=entry_id,
        metadata=metadata,
    )


def load_bfcl(
    results_dir: str | Path,
    data_dir: str | Path,
    *,
    categories: Iterable[str] | None = None,
) -> dict[str, list[Sample]]:
    """Samples per category for every ``BFCL_v*_<category>_result.json`` in ``results_dir``.

    ``data_dir`` holds the question files (directly or in ``data/``) and a
    ``possible_answer/`` folder (inside it or next to the questions).
    Categories BFCL does not score call by call (multi_turn, memory, web
    search, ...) are skipped; ask for them by name to get an error instead.
    """
    results_dir, data_dir = Path(results_dir), Path(data_dir)
    if not results_dir.is_dir():
        raise DatasetError("results directory not found", path=str(results_dir))
    wanted = None if categories is None else list(categories)
    for name in wanted or ():
        if name not in CATEGORIES:
            raise DatasetError(
                f"unsupported BFCL category {name!r}; expected one of {', '.join(CATEGORIES)}",
                field="category",
            )
    found: dict[str, Path] = {}
    for path in sorted(results_dir.rglob("BFCL_v*_result.json")):
        category = category_from_filename(path.name)
        if category in CATEGORIES and (wanted is None or category in wanted):
            found[category] = path
    missing = [c for c in wanted or () if c not in found]
    if missing:
        raise DatasetError(f"no result file for {', '.join(missing)}", path=str(results_dir))
    out: dict[str, list[Sample]] = {}
    for category in [c for c in CATEGORIES if c in found]:  # BFCL's table order
        result_path = found[category]
        version = result_path.name.split("_", 2)[1]
        questions = _by_id(_data_file(data_dir, f"BFCL_{version}_{category}.json", answers=False))
        answers = None
        if CATEGORIES[category].kind not in ("irrelevance", "relevance"):
            answers = _by_id(_data_file(data_dir, f"BFCL_{version}_{category}.json", answers=True))
        samples = []
        for number, result in enumerate(read_jsonl(result_path), start=1):
            entry_id = result.get("id")
            if entry_id not in questions:
                raise DatasetError(
                    f"result id {entry_id!r} has no question in {category}",
                    path=str(result_path),
                    row=number,
                )
            answer = None
            if answers is not None:
                if entry_id not in answers:
                    raise DatasetError(
                        f"result id {entry_id!r} has no possible answer",
                        path=str(result_path),
                        row=number,
                    )
                answer = answers[entry_id]
            try:
                samples.append(
                    sample_from_entry(questions[entry_id], answer, result, category=category)
                )
            except FormatError as exc:
                raise exc.with_context(path=str(result_path), row=number) from None
        out[category] = samples
    return out


def _data_file(data_dir: Path, filename: str, *, answers: bool) -> Path:
    roots = [data_dir, data_dir / "data"]
    if answers:
        candidates = [r / "possible_answer" / filename for r in roots]
        candidates.append(data_dir.parent / "possible_answer" / filename)
    else:
        candidates = [r / filename for r in roots]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    kind = "possible-answer" if answers else "question"
    raise DatasetError(f"{kind} file {filename} not found", path=str(data_dir))


def _by_id(path: Path) -> dict[str, dict[str, Any]]:
    return {str(row.get("id")): row for row in read_jsonl(path)}


def _category_from_id(entry_id: str) -> str:
    # Ids look like "simple_python_12" or "live_multiple_3-1-0".
    head = entry_id.rsplit("_", 1)[0]
    return head if head in CATEGORIES else entry_id


def _user_text(question: Any) -> str:
    try:
        turn = question[0]
        return next(m["content"] for m in reversed(turn) if m.get("role") == "user")
    except (TypeError, IndexError, KeyError, StopIteration, AttributeError):
        return ""


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- Python-call strings


def parse_python_calls(text: str, *, field: str | None = None) -> list[ToolCall]:
    """Parse ``[f(a=1), g(b='x')]`` (or one bare call) with :mod:`ast`, literals only.

    Values may be strings, numbers (``-1``, ``+2.5``), booleans, ``None`` and
    lists, tuples, sets and dicts of those. Names, arithmetic, attribute
    access, nested calls and positional arguments raise :class:`FormatError`
    naming the call and argument: model output is never evaluated.

    >>> [str(c) for c in parse_python_calls("[geo.distance(points=[[1, -2.5]], unit={'k': None})]")]
    ["geo.distance(points=[[1, -2.5]], unit={'k': None})"]
    >>> parse_python_calls("f(x=os.system('rm'))")
    Traceback (most recent call last):
    tooleval.errors.FormatError: field [0].f.x: only literal values are accepted, got Call "os.system('rm')" (model output is never evaluated)
    """
    source = _strip_wrapping(text)
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise FormatError(
            f"not a Python call list ({exc.msg}): {_short(text, 80)}", field=field
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise FormatError(
            f"not a Python call list ({exc}): {_short(text, 80)}", field=field
        ) from None
    body = tree.body
    if isinstance(body, ast.Call):
        nodes: list[ast.expr] = [body]
    elif isinstance(body, ast.List | ast.Tuple):
        nodes = list(body.elts)
    else:
        raise FormatError(
            f"expected a call or a list of calls, got {_short(ast.unparse(body))}", field=field
        )
    calls: list[ToolCall] = []
    for index, node in enumerate(nodes):
        where = f"{field}[{index}]" if field else f"[{index}]"
        if not isinstance(node, ast.Call):
            raise FormatError(
                f"expected a function call, got {_short(ast.unparse(node))}", field=where
            )
        calls.append(_python_call(node, where))
    return calls


def _python_call(node: ast.Call, where: str) -> ToolCall:
    name = _dotted_name(node.func)
    if name is None:
        raise FormatError(
            f"the called object must be a (dotted) name, got {_short(ast.unparse(node.func))}",
            field=where,
        )
    if node.args:
        raise FormatError(
            f"{name}: positional argument {_short(ast.unparse(node.args[0]))} is not accepted; "
            "write name=value",
            field=where,
        )
    args: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise FormatError(f"{name}: '**' unpacking is not accepted", field=where)
        args[keyword.arg] = _literal(keyword.value, f"{where}.{name}.{keyword.arg}")
    return ToolCall(name=name, args=args)


def _literal(node: ast.expr, where: str) -> Any:
    if isinstance(node, ast.Constant) and node.value is not Ellipsis:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) in (int, float, complex)
    ):
        value = node.operand.value
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.List | ast.Set):
        return [_literal(v, f"{where}[{i}]") for i, v in enumerate(node.elts)]
    if isinstance(node, ast.Tuple):
        return tuple(_literal(v, f"{where}[{i}]") for i, v in enumerate(node.elts))
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:
                raise FormatError("'**' unpacking is not a literal", field=where)
            key = _literal(key_node, where)
            if isinstance(key, list | dict):
                raise FormatError(f"unhashable dict key {_short(key)}", field=where)
            out[key] = _literal(value_node, f"{where}.{key}")
        return out
    raise FormatError(
        f"only literal values are accepted, got {type(node).__name__} "
        f'"{ast.unparse(node)}" (model output is never evaluated)',
        field=where,
    )


def _dotted_name(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _strip_wrapping(text: str) -> str:
    source = text.strip()
    if source.startswith("```"):
        first_line, _, rest = source.strip("`").partition("\n")
        source = rest if first_line.strip().isidentifier() else source.strip("`")
    source = source.strip().strip("`").strip()
    # One pair of wrapping quotes around the whole answer (some models quote it).
    if len(source) >= 2 and source[0] == source[-1] and source[0] in "'\"":
        source = source[1:-1].strip()
    return source
