"""Berkeley Function Calling Leaderboard (BFCL) files as tooleval Samples.

BFCL keeps three kinds of JSONL files per category (``.json`` despite being
JSON Lines): questions (``BFCL_v4_<category>.json``: the prompt and the
function schemas), possible answers (``possible_answer/BFCL_v4_<category>.json``:
per parameter a list of acceptable values, ``""`` meaning "may be
omitted") and model results (``BFCL_v4_<category>_result.json``).

Model results come in two styles, decoded as BFCL's default decoders do
(:func:`decode_bfcl`):

* function calling (``mode="fc"``): a list of ``{name: "<JSON arguments>"}``
  or ``{name: {arguments}}``;
* prompting (``mode="prompt"``): text such as ``"[f(a=1, b='x')]"``, read
  as Python (:mod:`~tooleval.benchmarks.bfcl.decode_python`) or, in the Java and
  JavaScript categories, with tree-sitter
  (:mod:`~tooleval.benchmarks.bfcl.decode_tree`; argument values stay source text).

``mode="auto"`` takes the mode from BFCL's model list
(:mod:`~tooleval.benchmarks.bfcl.models`) when the result folder names a known
model, else text is prompting and a list is function calling. ``names``
says how expected function names are written: ``"dots"`` (as in the
schema), ``"underscores"`` (``.`` written ``_``, BFCL's
``underscore_to_dot`` models) or ``"either"``; ``"auto"`` asks the model
list and falls back to ``"either"``.

Expected calls carry one :class:`~tooleval.model.AnyOf` per
parameter; the schemas, the language and the name rule go to
``sample.metadata["bfcl"]`` so the ``bfcl_ast`` metric can reproduce BFCL's
type rules.

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

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from tooleval.benchmarks.bfcl.decode_handlers import DECODERS, decode_with
from tooleval.benchmarks.bfcl.decode_python import WRONG_OUTPUT_FORMAT, BfclDecodeError
from tooleval.benchmarks.bfcl.models import model_settings
from tooleval.errors import ConfigError, DatasetError, FormatError
from tooleval.formats.json_limits import NestingTooDeep, loads, loads_text
from tooleval.model import AnyOf, ExpectedTools, Sample, ToolCall

__all__ = [
    "AST_CATEGORIES",
    "CATEGORIES",
    "MODES",
    "NAME_RULES",
    "BfclCategory",
    "BfclSettings",
    "category_from_filename",
    "decode_bfcl",
    "decode_result",
    "expected_from_ground_truth",
    "function_names_match",
    "parse_python_calls",
    "read_jsonl",
    "resolve_settings",
    "sample_from_entry",
]

#: How results are decoded: function calling, prompting, or decided per result
#: (a known model's own decoder is one of ``bfcl_decode_handlers.DECODERS``).
MODES = ("auto", "fc", "prompt")
#: How expected function names are written in a model's calls.
NAME_RULES = ("auto", "dots", "underscores", "either")


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
    """Every JSON object in a JSON Lines file (blank lines skipped).

    The file is read at once and each line parsed by ``orjson``; a line it
    refuses (``NaN``, which BFCL's ``json.loads`` accepts, or an error) is
    parsed again by the standard module, whose values and messages these are.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"cannot read file: {exc.strerror}", path=str(path)) from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            row = loads(line)
        except (ValueError, NestingTooDeep):
            row = _standard_row(line, path, number)
        if not isinstance(row, dict):
            raise DatasetError(
                f"expected a JSON object per line, got {type(row).__name__}",
                path=str(path),
                row=number,
            )
        rows.append(row)
    return rows


def _standard_row(line: bytes, path: Path, number: int) -> Any:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise DatasetError(
            "not UTF-8 text; save the file as UTF-8", path=str(path), row=number
        ) from None
    try:
        return loads_text(text)
    except (ValueError, NestingTooDeep) as exc:
        raise DatasetError(f"invalid JSON: {exc}", path=str(path), row=number) from None


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


@dataclass(frozen=True, slots=True)
class BfclSettings:
    """How one model's results are decoded and checked, and why."""

    mode: str  # auto | fc | prompt | a BFCL handler's decoder (bfcl_decode_handlers)
    names: str  # dots | underscores | either
    model: str | None = None  # the BFCL model-list entry the folder names, if any
    note: str | None = None  # a warning: a known model decoded unlike BFCL decodes it

    def describe(self) -> str:
        """One line: the model-list entry, the decoding mode and the name rule.

        >>> BfclSettings("auto", "either").describe()
        "model: not in BFCL model list; mode: decided from each file's results; names: either"
        """
        from tooleval.benchmarks.bfcl.models import SOURCE_VERSION

        known = f"{self.model} in BFCL's model list ({SOURCE_VERSION})" if self.model else None
        mode = "decided from each file's results" if self.mode == "auto" else self.mode
        return f"model: {known or 'not in BFCL model list'}; mode: {mode}; names: {self.names}"


def resolve_settings(
    results_dir: str | Path, *, mode: str = "auto", names: str = "auto"
) -> BfclSettings:
    """Mode and name rule for a results folder; ``auto`` asks BFCL's model list.

    >>> resolve_settings("results/gpt-4.1-2025-04-14")
    BfclSettings(mode='prompt', names='dots', model='gpt-4.1-2025-04-14', note=None)
    >>> resolve_settings("results/gemini-2.5-flash-FC").mode
    'gemini_fc'
    >>> resolve_settings("results/Qwen_Qwen3-8B-FC").mode
    'tool_call_tags'
    >>> resolve_settings("results/my-model", names="underscores")
    BfclSettings(mode='auto', names='underscores', model=None, note=None)
    """
    if mode != "auto" and mode not in DECODERS:
        raise ConfigError(
            f"mode must be one of {', '.join(('auto', *DECODERS))}, got {mode!r}", field="mode"
        )
    if names not in NAME_RULES:
        raise ConfigError(
            f"names must be one of {', '.join(NAME_RULES)}, got {names!r}", field="names"
        )
    known = model_settings(Path(results_dir).name)
    note = None
    if known is not None and mode == "auto":
        mode = known.decoder
    elif known is not None and mode != known.decoder:
        note = (
            f"BFCL decodes {known.name} with its handler's {known.decoder!r} decoder; "
            f"--mode {mode} may score its results differently"
        )
    if names == "auto":
        names = "either" if known is None else ("underscores" if known.underscore_names else "dots")
    return BfclSettings(mode, names, known.name if known else None, note)


def sample_from_entry(
    question: Mapping[str, Any],
    answer: Mapping[str, Any] | None,
    result: Mapping[str, Any],
    *,
    category: str | None = None,
    mode: str = "auto",
    names: str = "either",
) -> Sample:
    """One Sample from a question, its possible answer (None for (ir)relevance) and a result.

    A result that cannot be decoded gives ``tools_called=[]``, the reason in
    ``metadata["bfcl"]["decode_error"]`` and BFCL's label in
    ``metadata["bfcl"]["decode_error_type"]``. (Ir)relevance results are
    decoded as Python, as BFCL does.
    """
    entry_id = str(result.get("id") or question.get("id"))
    category = category or _category_from_id(entry_id)
    info = CATEGORIES.get(category)
    if "result" not in result:
        raise FormatError("result entry has no 'result' field", field="result", id=entry_id)
    if names not in NAME_RULES[1:]:
        raise ConfigError(
            f"names must be one of {', '.join(NAME_RULES[1:])}, got {names!r}", field="names"
        )
    language = info.language if info else "python"
    decode_error: str | None = None
    decode_error_type: str | None = None
    try:
        calls = _tool_calls(decode_bfcl(result["result"], mode=mode, language=language))
    except BfclDecodeError as exc:
        calls, decode_error, decode_error_type = [], str(exc), exc.error_type
    expected = None
    if answer is not None:
        expected = expected_from_ground_truth(answer.get("ground_truth"))
    elif info is not None and info.kind == "irrelevance":
        expected = ExpectedTools((), before=())
    functions = question.get("function") or []
    meta: dict[str, Any] = {
        "functions": functions,
        "language": language,
        "names": names,
        "decode_error": decode_error,
    }
    if decode_error is not None:
        meta["decode_error_type"] = decode_error_type
        meta["raw_result"] = result["result"]
    return Sample(
        input=_user_text(question.get("question")),
        tools_called=calls,
        expected_tools=expected,
        category=category,
        id=entry_id,
        metadata={"bfcl": meta},
    )


def _category_from_id(entry_id: str) -> str:
    # Ids look like "simple_python_12" or "live_multiple_3-1-0".
    head = entry_id.rsplit("_", 1)[0]
    return head if head in CATEGORIES else entry_id


def _user_text(question: Any) -> str:
    try:
        turn = question[0]
        text: str = next(m["content"] for m in reversed(turn) if m.get("role") == "user")
        return text
    except (TypeError, IndexError, KeyError, StopIteration, AttributeError):
        return ""


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- decoding answers


def decode_bfcl(
    result: Any, *, mode: str = "auto", language: str = "python"
) -> list[dict[str, Any]]:
    """BFCL's decoded calls, ``[{name: {param: value}}]``, for one model result.

    ``mode`` is ``"fc"`` (function calling: a list of ``{name: JSON text or
    object}``), ``"prompt"`` (text decoded per ``language`` by BFCL's default
    prompting decoders), ``"auto"`` (text is prompting, anything else is
    function calling) or the name of one BFCL handler's decoder
    (:data:`~tooleval.benchmarks.bfcl.decode_handlers.DECODERS`). Raises
    :class:`BfclDecodeError` when BFCL's decoder would fail or its output is
    not a list of ``{name: {params}}``.

    >>> decode_bfcl("[f(a=true)]", mode="prompt")
    [{'f': {'a': 'true'}}]
    >>> decode_bfcl([{"f": '{"a": true}'}], mode="fc")
    [{'f': {'a': True}}]
    """
    if mode != "auto" and mode not in DECODERS:
        raise ConfigError(
            f"mode must be one of {', '.join(('auto', *DECODERS))}, got {mode!r}", field="mode"
        )
    if mode == "auto":
        mode = "prompt" if isinstance(result, str) else "fc"
    decoded = decode_with(mode, result, language)
    if not _is_call_list(decoded):
        raise BfclDecodeError(
            f"decoded output is not a list of {{name: {{params}}}}: {_short(decoded)}",
            WRONG_OUTPUT_FORMAT,
        )
    return decoded


def _is_call_list(decoded: Any) -> TypeGuard[list[dict[str, Any]]]:
    return type(decoded) is list and all(
        type(item) is dict and len(item) == 1 and type(next(iter(item.values()))) is dict
        for item in decoded
    )


def decode_result(
    result: Any, *, mode: str = "auto", language: str = "python", field: str = "result"
) -> list[ToolCall]:
    """The calls in one BFCL model result, decoded as BFCL does (see :func:`decode_bfcl`).

    Raises :class:`FormatError` when BFCL's decoder fails; BFCL counts that
    as "no call" in irrelevance categories and as a failure elsewhere.

    >>> [str(c) for c in decode_result([{"f": '{"a": 1}'}, {"g": {"b": "x"}}])]
    ['f(a=1)', "g(b='x')"]
    >>> decode_result("[]")
    []
    """
    try:
        decoded = decode_bfcl(result, mode=mode, language=language)
    except BfclDecodeError as exc:
        raise FormatError(f"{exc} ({exc.error_type})", field=field) from None
    return _tool_calls(decoded)


def _tool_calls(decoded: list[dict[str, Any]]) -> list[ToolCall]:
    return [
        ToolCall(name=str(name), args=dict(args)) for item in decoded for name, args in item.items()
    ]


def parse_python_calls(text: str, *, field: str | None = None) -> list[ToolCall]:
    """Calls in a Python prompt-style answer, read by BFCL's default decoder (never evaluated).

    Bare names stay text, a call without keywords stays source text, a
    positional argument is dropped, arithmetic on literals is computed (see
    :mod:`tooleval.benchmarks.bfcl.decode_python`).

    >>> [str(c) for c in parse_python_calls("[geo.distance(points=[[1, -2.5]], unit=km)]")]
    ["geo.distance(points=[[1, -2.5]], unit='km')"]
    >>> parse_python_calls("f(x=[i for i in y])")
    Traceback (most recent call last):
    tooleval.errors.FormatError: field result: unsupported value ListComp (ast_decoder:decoder_failed)
    """
    return decode_result(text, mode="prompt", field=field or "result")
