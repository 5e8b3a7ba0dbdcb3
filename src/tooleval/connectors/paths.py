"""JSONPath response mapping: find the output, the tools called and their results in a reply.

Paths are compiled once (python-jsonpath); an invalid one is a ConfigError
naming the field. :func:`explain_path` is the pure function behind every
"why did my path find nothing?" message, used by the connectors and by
``tooleval connector test``: it walks the path segment by segment and reports
the longest prefix that still matched.

>>> doc = {"steps": [{"type": "tool_call", "tool": {"name": "lookup_order"}}]}
>>> explain_path("$.steps[?(@.type=='tool_call')].tool.name", doc).values
['lookup_order']
>>> explain_path("$.steps[*].function.name", doc).verdict
'no_match'
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import ToolCall

__all__ = [
    "PathExplanation",
    "ResponseMapping",
    "attach_results",
    "call_from_object",
    "compile_path",
    "explain_path",
    "objects_instead_of_names",
]

Verdict = Literal["ok", "empty", "no_match", "no_content"]

# Keys that commonly hold a call's name / arguments / id in agent frameworks.
_NAME_KEYS = ("name", "tool_name", "tool", "function_name")
_ARG_KEYS = ("args", "arguments", "input", "parameters", "params", "kwargs")
_ID_KEYS = ("id", "call_id", "tool_call_id", "tool_use_id")
# Keys that hold what a tool returned, in a result object.
_RESULT_KEYS = ("content", "result", "output")


def compile_path(path: str, *, field: str) -> Any:
    """Compile a JSONPath once; a bad path is a ConfigError naming ``field``."""
    import jsonpath

    if not isinstance(path, str) or not path.strip():
        raise ConfigError(
            f"expected a JSONPath string such as '$.output', got {path!r}", field=field
        )
    try:
        return jsonpath.compile(path)
    except jsonpath.JSONPathError as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError(f"invalid JSONPath {path!r}: {first}", field=field) from None


@dataclass(frozen=True, slots=True)
class PathExplanation:
    """What a JSONPath found in a document, and where it stopped matching.

    ``verdict`` is ``ok`` (found values), ``empty`` (a selection such as a
    filter or ``[*]`` ran over a collection that exists but picked nothing:
    usually "no tools were called"), ``no_match`` (a key along the path does
    not exist: usually a plumbing error) or ``no_content`` (the document is
    empty). ``matched_prefix`` is the longest prefix of the path that matched
    something, ``failed_segment`` the next part, and ``available_keys`` the
    keys of the objects the prefix matched.
    """

    path: str
    values: list[Any]
    verdict: Verdict
    matched_prefix: str = "$"
    prefix_count: int = 0
    failed_segment: str | None = None
    available_keys: list[str] = field(default_factory=list)
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"


def _has_content(document: Any) -> bool:
    if document is None:
        return False
    if isinstance(document, str | bytes | Mapping | Sequence):
        return len(document) > 0
    return True


def _is_key_segment(segment: Any) -> bool:
    from jsonpath.segments import JSONPathRecursiveDescentSegment
    from jsonpath.selectors import KeySelector, NameSelector

    if isinstance(segment, JSONPathRecursiveDescentSegment):
        return True
    return all(isinstance(s, NameSelector | KeySelector) for s in segment.selectors)


def _segment_names(segment: Any) -> list[str]:
    return [str(getattr(s, "name", None) or getattr(s, "key", "")) for s in segment.selectors]


def _describe_values(values: list[Any]) -> str:
    kinds = sorted({type(v).__name__ for v in values})
    noun = "value" if len(values) == 1 else "values"
    return f"{len(values)} {noun} ({', '.join(kinds)})"


def explain_path(path: str | Any, document: Any, *, text: str | None = None) -> PathExplanation:
    """Resolve ``path`` in ``document`` and explain an empty result.

    ``path`` is a JSONPath string or a compiled path (then ``text`` is the
    original spelling shown in messages).

    >>> e = explain_path("$.result.steps[*].name", {"result": {"trace": []}})
    >>> e.verdict, e.matched_prefix, e.failed_segment, e.available_keys
    ('no_match', "$['result']", "['steps']", ['trace'])
    >>> explain_path("$.steps[?(@.type=='tool_call')].name", {"steps": []}).verdict
    'empty'
    """
    import jsonpath

    compiled = compile_path(path, field="path") if isinstance(path, str) else path
    text = text or (path if isinstance(path, str) else str(path))
    values = compiled.findall(document)
    if values:
        return PathExplanation(text, values, "ok", text, len(values), message="")
    if not _has_content(document):
        return PathExplanation(
            text, [], "no_content", message=f"the response is empty, so {text} found nothing"
        )
    segments = getattr(compiled, "segments", None)
    if segments is None:  # a union (a | b): no single chain of segments to walk
        return PathExplanation(text, [], "no_match", message=f"{text} matched nothing")
    prefix_values: list[Any] = [document]
    matched = 0
    env = compiled.env
    for k in range(1, len(segments) + 1):
        found = jsonpath.JSONPath(env=env, segments=segments[:k]).findall(document)
        if not found:
            break
        prefix_values, matched = found, k
    prefix = "$" + "".join(str(s) for s in segments[:matched])
    failed = segments[matched]
    failed_text = str(failed)
    keys = sorted({str(key) for v in prefix_values if isinstance(v, Mapping) for key in v})
    shown = _describe_values(prefix_values)
    if not _is_key_segment(failed):
        # A filter, wildcard, index or slice over data that exists: it simply
        # selected nothing (e.g. a trace with no tool-call steps).
        return PathExplanation(
            text,
            [],
            "empty",
            prefix,
            len(prefix_values),
            failed_text,
            keys,
            f"{prefix} matched {shown}, and {failed_text} selected none of them",
        )
    message = f"{text} matched nothing: {prefix} matched {shown}, but {failed_text} did not"
    if keys:
        message += f"; those objects have keys {keys}"
        wanted = [n for n in _segment_names(failed) if n]
        close = [m for n in wanted for m in difflib.get_close_matches(n, keys, n=2, cutoff=0.5)]
        if close:
            message += f" (did you mean {', '.join(repr(c) for c in close)}?)"
    elif prefix_values and all(isinstance(v, list) for v in prefix_values):
        message += "; they are lists, so select items first (e.g. [*])"
    return PathExplanation(
        text, [], "no_match", prefix, len(prefix_values), failed_text, keys, message
    )


def _flatten(values: list[Any]) -> list[Any]:
    """A path may resolve to one list of names rather than to each name."""
    out: list[Any] = []
    for value in values:
        if isinstance(value, list | tuple):
            out.extend(v for v in value if v is not None)
        elif value is not None:
            out.append(value)
    return out


def objects_instead_of_names(path: str, values: list[Any]) -> str | None:
    """The message for the commonest plumbing error, or None when values are names.

    >>> print(objects_instead_of_names("$.steps[*]", [{"type": "tool_call", "name": "a"}]))
    tools_called path resolved to objects with keys ['name', 'type']; point it at the name, e.g. $.steps[*].name
    """
    objects = [v for v in _flatten(values) if isinstance(v, Mapping)]
    if not objects:
        return None
    keys = sorted({str(k) for obj in objects for k in obj})
    base = path.rstrip()
    suggestion = None
    for key in ("name", "tool_name"):
        if key in keys:
            suggestion = f"{base}.{key}"
            break
    else:
        for key in ("function", "tool"):
            nested = [o[key] for o in objects if isinstance(o.get(key), Mapping)]
            if nested and any("name" in n for n in nested):
                suggestion = f"{base}.{key}.name"
                break
    example = suggestion or f"{base}.<name key>"
    message = (
        f"tools_called path resolved to objects with keys {keys}; point it at the name, "
        f"e.g. {example}"
    )
    if any(k in keys for k in _ARG_KEYS) or any(k in keys for k in ("function", "tool")):
        message += " (or set response.tool_calls to this path to keep the arguments)"
    return message


def call_from_object(value: Any, *, where: str = "tool_calls") -> ToolCall:
    """Read one call from an object with a name and args/arguments/input.

    Arguments given as a JSON string are parsed; OpenAI's ``{"function": ...}``
    and ``{"tool": {...}}`` nestings are unwrapped.

    >>> call_from_object({"function": {"name": "f", "arguments": '{"x": 1}'}, "id": "c1"})
    ToolCall(name='f', args={'x': 1}, id='c1', raw_arguments='{"x": 1}', parse_error=None, result=None, is_error=False)
    """
    if isinstance(value, str):
        return ToolCall(value, args={})
    if not isinstance(value, Mapping):
        raise ConnectorError(
            f"expected a tool call object with a name, got {type(value).__name__}: "
            f"{_excerpt(value)}",
            field=where,
        )
    call_id = next((value[k] for k in _ID_KEYS if isinstance(value.get(k), str)), None)
    for nest in ("function", "tool"):
        inner = value.get(nest)
        if isinstance(inner, Mapping) and any(isinstance(inner.get(k), str) for k in _NAME_KEYS):
            merged = {**{k: v for k, v in value.items() if k != nest}, **inner}
            if call_id is not None:
                merged["id"] = call_id
            return call_from_object(merged, where=where)
    name = next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), str)), None)
    if name is None:
        raise ConnectorError(
            f"tool call object has no name (looked for {list(_NAME_KEYS)}); keys are "
            f"{sorted(map(str, value))}",
            field=where,
        )
    arguments = next((value[k] for k in _ARG_KEYS if k in value), None)
    return ToolCall.parse(name, arguments, id=call_id)


def _excerpt(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


def _result_of(value: Any) -> tuple[str | None, Any, bool]:
    """``(call id, content, is_error)`` of one value a ``tool_results`` path found.

    An object with a content key (``content``/``result``/``output``) or an
    ``error`` is a result object: its id (``tool_call_id``, ``call_id``...)
    names the call it answers and ``is_error``/``error`` marks a failure. Any
    other value is the result itself, answering the next call by position.
    """
    if not isinstance(value, Mapping) or not any(k in value for k in (*_RESULT_KEYS, "error")):
        return None, value, False
    call_id = next((value[k] for k in _ID_KEYS if isinstance(value.get(k), str)), None)
    content = next((value[k] for k in _RESULT_KEYS if value.get(k) is not None), None)
    error = value.get("error")
    is_error = value.get("is_error") is True or (error is not None and error is not False)
    if content is None and error not in (None, False, True):
        content = error
    return call_id, content, is_error


def attach_results(
    calls: list[ToolCall], values: list[Any], *, where: str = "tool_results"
) -> tuple[list[ToolCall], tuple[str, ...]]:
    """``calls`` with the results ``values`` holds attached, and a warning per leftover result.

    A result that names a call id answers that call; any other answers the
    next call still without a result, in order. A result with no call left to
    answer is not dropped silently: a warning says so (the raw response keeps it).

    >>> calls, warnings = attach_results(
    ...     [ToolCall("lookup", id="c1"), ToolCall("cancel", id="c2")],
    ...     [{"tool_call_id": "c2", "content": "cancelled"}, {"content": "503", "is_error": True}])
    >>> [(c.result, c.is_error) for c in calls], warnings
    ([('503', True), ('cancelled', False)], ())
    """
    out = list(calls)
    answered: set[int] = set()
    by_id = {c.id: i for i, c in enumerate(out) if c.id is not None}
    leftover = 0
    for value in values:
        call_id, content, is_error = _result_of(value)
        index = by_id.get(call_id) if call_id is not None else None
        if index is None or index in answered:
            index = next((i for i in range(len(out)) if i not in answered), None)
        if index is None:
            leftover += 1
            continue
        answered.add(index)
        if content is not None or is_error:
            out[index] = out[index].with_result(content, is_error=is_error)
    warnings: tuple[str, ...] = ()
    if leftover:
        warnings = (
            f"{where}: {leftover} of {len(values)} results answer no call ({len(out)} calls "
            "read); they are kept in the raw response only",
        )
    return out, warnings


@dataclass(frozen=True, slots=True)
class Extraction:
    """What a ResponseMapping read from one response."""

    output: str | None
    tools_called: list[ToolCall] | None
    explanations: dict[str, PathExplanation]
    warnings: tuple[str, ...] = ()


class ResponseMapping:
    """The JSONPaths that read ``output``, ``tools_called``, ``tool_calls`` and ``tool_results``.

    ``tools_called`` must resolve to tool *names*; ``tool_calls`` (optional)
    to call objects with arguments and wins when both are set. ``tool_results``
    (optional, with one of those) resolves to what each tool returned, attached
    to the calls (see :func:`attach_results`), so the transcript shows what the
    agent saw. A missing ``tools_called``/``tool_calls``/``tool_results`` key
    is an error unless ``missing_is_empty=True`` (for agents that omit the
    field when no tool ran).

    >>> m = ResponseMapping(output="$.answer", tools_called="$.trace[*].tool")
    >>> x = m.extract({"answer": "ok", "trace": [{"tool": "search"}, {"tool": "fetch"}]})
    >>> x.output, [c.name for c in x.tools_called]
    ('ok', ['search', 'fetch'])
    """

    def __init__(
        self,
        *,
        output: str | None = None,
        tools_called: str | None = None,
        tool_calls: str | None = None,
        tool_results: str | None = None,
        missing_is_empty: bool = False,
        field_prefix: str = "connector.response",
    ) -> None:
        if tool_results is not None and tools_called is None and tool_calls is None:
            raise ConfigError(
                "tool_results are attached to the calls read by tools_called or tool_calls; "
                "set one of them too",
                field=f"{field_prefix}.tool_results",
            )
        self.paths = {
            k: v
            for k, v in (
                ("output", output),
                ("tools_called", tools_called),
                ("tool_calls", tool_calls),
                ("tool_results", tool_results),
            )
            if v is not None
        }
        self.compiled = {
            k: compile_path(v, field=f"{field_prefix}.{k}") for k, v in self.paths.items()
        }
        self.missing_is_empty = missing_is_empty
        self.field_prefix = field_prefix

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any] | None, *, field_prefix: str = "connector.response"
    ) -> ResponseMapping:
        """Build from a ``response:`` mapping, naming the field of any problem."""
        config = dict(config or {})
        allowed = {"output", "tools_called", "tool_calls", "tool_results", "missing_is_empty"}
        unknown = sorted(set(config) - allowed)
        if unknown:
            hint = difflib.get_close_matches(unknown[0], sorted(allowed), n=1)
            raise ConfigError(
                f"unknown key {unknown[0]!r}; expected one of {sorted(allowed)}"
                + (f" (did you mean {hint[0]!r}?)" if hint else ""),
                field=f"{field_prefix}.{unknown[0]}",
            )
        for key in ("output", "tools_called", "tool_calls", "tool_results"):
            if key in config and not isinstance(config[key], str):
                raise ConfigError(
                    f"expected a JSONPath string, got {type(config[key]).__name__}",
                    field=f"{field_prefix}.{key}",
                )
        return cls(
            output=config.get("output"),
            tools_called=config.get("tools_called"),
            tool_calls=config.get("tool_calls"),
            tool_results=config.get("tool_results"),
            missing_is_empty=bool(config.get("missing_is_empty", False)),
            field_prefix=field_prefix,
        )

    @property
    def configured(self) -> bool:
        return bool(self.paths)

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.paths)
        if self.missing_is_empty:
            out["missing_is_empty"] = True
        return out

    def explain(self, document: Any) -> dict[str, PathExplanation]:
        """Every configured path explained against one document."""
        return {k: explain_path(self.compiled[k], document, text=self.paths[k]) for k in self.paths}

    def extract(self, document: Any) -> Extraction:
        """Read output and calls; plumbing errors raise ConnectorError with the explanation."""
        explanations = self.explain(document)
        warnings: list[str] = []
        output = None
        if "output" in explanations:
            found = explanations["output"]
            if found.ok:
                output = _as_text(found.values)
            elif found.verdict == "no_match":
                warnings.append(f"output: {found.message}")
        calls: list[ToolCall] | None = None
        key = "tool_calls" if "tool_calls" in explanations else "tools_called"
        if key in explanations:
            calls = self._calls(explanations[key], key, document)
            if explanations[key].verdict == "empty":
                # Usually "the agent called nothing", but a renamed step type after
                # a deploy looks the same: keep the evidence with the row.
                warnings.append(f"{key}: {explanations[key].message} (read as: no tools called)")
        if calls and "tool_results" in explanations:
            calls, leftover = self._results(explanations["tool_results"], calls)
            warnings.extend(leftover)
        return Extraction(output, calls, explanations, tuple(warnings))

    def _results(
        self, found: PathExplanation, calls: list[ToolCall]
    ) -> tuple[list[ToolCall], tuple[str, ...]]:
        where = f"{self.field_prefix}.tool_results"
        if found.verdict == "empty" or (found.verdict != "ok" and self.missing_is_empty):
            return calls, ()
        if found.verdict != "ok":
            raise ConnectorError(f"tool_results path {found.message}", field=where)
        values = found.values
        # ``$.tool_results`` finds one list of results; ``$.steps[*].result`` finds each one.
        if len(values) == 1 and isinstance(values[0], list | tuple):
            values = list(values[0])
        return attach_results(calls, values, where="tool_results")

    def _calls(self, found: PathExplanation, key: str, document: Any) -> list[ToolCall]:
        where = f"{self.field_prefix}.{key}"
        if found.verdict == "empty" or (found.verdict != "ok" and self.missing_is_empty):
            return []
        if found.verdict == "no_content":
            raise ConnectorError(f"{key}: {found.message}", field=where)
        if found.verdict == "no_match":
            raise ConnectorError(f"{key} path {found.message}", field=where)
        values = _flatten(found.values)
        if key == "tools_called":
            problem = objects_instead_of_names(found.path, values)
            if problem:
                raise ConnectorError(problem, field=where)
            bad = [v for v in values if not isinstance(v, str)]
            if bad:
                raise ConnectorError(
                    f"tools_called path must resolve to tool names (strings), got "
                    f"{type(bad[0]).__name__}: {_excerpt(bad[0])}",
                    field=where,
                )
            return [ToolCall(v, args={}) for v in values]
        return [call_from_object(v, where=where) for v in values if v is not None]


def _as_text(values: list[Any]) -> str:
    parts = [
        v if isinstance(v, str) else json.dumps(v, default=str) for v in values if v is not None
    ]
    return "\n".join(parts)
