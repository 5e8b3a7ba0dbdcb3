"""BFCL's default prompt-style decoders for Java and JavaScript calls (tree-sitter).

BFCL (``bfcl-eval`` 2026.3.23) parses a Java or JavaScript answer with
tree-sitter (``tree-sitter`` 0.21, ``tree-sitter-java`` 0.21.0,
``tree-sitter-javascript`` 0.21.4) after removing the first and last
character of the bracket-wrapped text (see
:func:`~tooleval.benchmarks.bfcl.decode_python.prompt_text`). Any ``ERROR``
node fails the decode; a parse with only *missing* tokens (such as the
``;`` after ``Db.connect(id=5)``) is accepted. Which texts parse follows
tree-sitter's error recovery, not the language's grammar alone:
``[f(a=1)]`` and ``[Obj.f(a=1)]`` are syntax errors for the Java parser while
``[Db.connect(id=5)]`` and ``[f(a=1, b="x")]`` are not; that is why the same
parser is used here rather than a grammar of our own. Then:

* Java: the first method invocation in depth-first order is the one call
  (``Obj.method`` when it has an object); each ``name=value`` argument keeps
  its value as source text rebuilt from the syntax tree (a string or char
  literal loses its quotes at the top level only; ``new int[]{1, 2}`` becomes
  ``new int[]{1,2}``; an object creation keeps only its type and arguments);
  bare identifiers and class literals go under :data:`POSITIONAL`.
* JavaScript: the first statement that *is* a call is the one call (a
  sequence ``f(), g()`` is not one); ``name=value`` arguments keep their
  source text with one pair of quotes removed; bare identifiers and
  ``true`` go under :data:`POSITIONAL`; other positional values are dropped.

Either way a name given twice fails, and text without a call decodes to
"not a list of calls" (``None`` here), which BFCL reports as
``ast_decoder:decoder_wrong_output_format``.

tree-sitter is an optional dependency (``pip install 'tooleval[bfcl]'``),
imported on first use.

>>> decode_java('[Db.connect(url="jdbc:x", opts=new int[]{1, 2}, verbose)]')
[{'Db.connect': {'url': 'jdbc:x', 'opts': 'new int[]{1,2}', '<positional>': 'verbose'}}]
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from tooleval._extras import install_hint
from tooleval.benchmarks.bfcl.decode_python import POSITIONAL, BfclDecodeError, prompt_text
from tooleval.errors import ConfigError

__all__ = ["decode_java", "decode_javascript", "tree_sitter_available"]


def tree_sitter_available() -> bool:
    """True when the tree-sitter packages BFCL's decoders use can be imported."""
    try:
        _parser("java")
        _parser("javascript")
    except ConfigError:
        return False
    return True


@cache
def _parser(language: str) -> Any:
    # Any: the Language/Parser signatures differ between tree-sitter versions
    try:
        tree_sitter: Any = importlib.import_module("tree_sitter")
        grammar: Any = importlib.import_module(
            "tree_sitter_java" if language == "java" else "tree_sitter_javascript"
        )
    except ImportError:
        raise ConfigError(
            "decoding BFCL Java/JavaScript prompt-style answers needs tree-sitter: "
            + install_hint("bfcl")
        ) from None
    try:  # tree-sitter 0.21 (BFCL's pin)
        lang = tree_sitter.Language(grammar.language(), language)
        parser = tree_sitter.Parser()
        parser.set_language(lang)
    except TypeError:  # tree-sitter 0.22 and later
        lang = tree_sitter.Language(grammar.language())
        parser = tree_sitter.Parser(lang)
    return parser, lang  # the language object lives as long as its parser


def _kids(node: Any) -> list[Any]:
    return [node.child(i) for i in range(node.child_count)]


def _has_error_node(root: Any) -> bool:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            return True
        stack.extend(_kids(node))
    return False


def _parse(language: str, result: Any) -> tuple[Any, str, bytes]:
    """(tree, source, bytes); callers keep the tree referenced while they read its nodes."""
    source = prompt_text(result)[1:-1]
    data = source.encode("utf-8")
    parser, _ = _parser(language)
    tree = parser.parse(data)
    if _has_error_node(tree.root_node):
        raise BfclDecodeError(f"not {language}: the parser found a syntax error")
    return tree, source, data


def _add(args: dict[str, Any], name: str, value: Any) -> None:
    if name in args:
        raise BfclDecodeError(f"argument {name!r} given more than once")
    args[name] = value


# ---------------------------------------------------------------- Java


def decode_java(result: Any) -> list[dict[str, dict[str, Any]]] | None:
    """BFCL's decoded call for a Java answer, or None when it holds no method call."""
    tree, source, _ = _parse("java", result)

    def text(node: Any) -> str:
        # BFCL slices the *text* with byte offsets; kept for identical results.
        return source[node.start_byte : node.end_byte]

    def value(node: Any, nested: bool = False) -> str:
        kind = node.type
        if kind in ("string_literal", "character_literal"):
            return text(node) if nested else text(node)[1:-1]
        if kind in ("identifier", "class_literal", "type_identifier", "method_invocation"):
            return text(node)
        if kind == "array_creation_expression":
            type_node = node.child_by_field_name("type")
            value_node = node.child_by_field_name("value")
            if type_node is None or value_node is None:
                raise BfclDecodeError("array creation without an initializer")
            return f"new {value(type_node, True)}[]{value(value_node, True)}"
        if kind == "object_creation_expression":
            type_node = node.child_by_field_name("type")
            if type_node is None:
                raise BfclDecodeError("object creation without a type")
            arguments = node.child_by_field_name("arguments")
            if arguments is None:
                return f"new {value(type_node, True)}()"
            parts = [value(c, True) for c in _kids(arguments) if c.type not in (",", "(", ")")]
            return f"new {value(type_node, True)}({', '.join(parts)})"
        if kind == "set":
            items = [value(c, True) for c in _kids(node) if c.type not in (",", "set")]
            return "{" + ", ".join(items) + "}"
        if node.child_count > 0:
            return "".join(value(c, True) for c in _kids(node))
        return text(node)

    def call(node: Any) -> list[dict[str, dict[str, Any]]] | None:
        if node.type == "method_invocation":
            name = text(node.child_by_field_name("name"))
            obj = node.child_by_field_name("object")
            if obj is not None:
                name = f"{text(obj)}.{name}"
            arguments = node.child_by_field_name("arguments")
            if arguments is None:
                return None
            args: dict[str, Any] = {}
            for child in _kids(arguments):
                if child.type == "assignment_expression":
                    parts = _kids(child)
                    _add(args, text(parts[0]), value(parts[2]))
                elif child.type in ("identifier", "class_literal", "set"):
                    _add(args, POSITIONAL, value(child))
            return [{name: args}]
        for child in _kids(node):
            found = call(child)
            if found:
                return found
        return None

    try:
        return call(tree.root_node)
    except RecursionError:
        raise BfclDecodeError("Java text nested too deeply") from None
    except (AttributeError, IndexError, TypeError) as exc:  # BFCL fails on these too
        raise BfclDecodeError(f"unexpected Java syntax tree: {exc}") from None


# ---------------------------------------------------------------- JavaScript


def decode_javascript(result: Any) -> list[dict[str, dict[str, Any]]] | None:
    """BFCL's decoded call for a JavaScript answer, or None when no statement is a call."""
    tree, _, data = _parse("javascript", result)

    def text(node: Any) -> str:
        return data[node.start_byte : node.end_byte].decode("utf-8")

    for statement in _kids(tree.root_node):
        if statement.type != "expression_statement":
            continue
        for expr in _kids(statement):
            if expr.type != "call_expression":
                continue
            if expr.child_count < 2:
                raise BfclDecodeError("a call without arguments node")
            args: dict[str, Any] = {}
            for child in _kids(expr.child(1)):
                if child.type == "assignment_expression":
                    parts = _kids(child)
                    raw = text(parts[2])
                    if len(raw) >= 1 and raw[0] in "'\"" and raw.endswith(raw[0]):
                        raw = raw[1:-1]
                    _add(args, text(parts[0]), raw)
                elif child.type in ("identifier", "true"):
                    _add(args, POSITIONAL, text(child))
            return [{text(expr.child(0)): args}]
    return None
