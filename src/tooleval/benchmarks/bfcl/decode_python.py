"""BFCL's default prompt-style decoder for Python calls, re-implemented without ``eval``.

BFCL (``bfcl-eval`` 2026.3.23, ``default_decode_ast_prompting``) reads a
prompting model's text answer like this, and so does :func:`decode_python`:

1. strip backticks, newlines and spaces from both ends; add ``[`` in front
   and ``]`` at the end when missing; strip spaces and single quotes;
2. parse the text as one Python expression: a call, or a list / tuple / set
   whose every element is a call (anything else fails);
3. per call, the name is the dotted name of the callee (``a.b.c``; a callee
   that is not a plain name chain keeps only its trailing attributes, or
   ``""``); positional arguments are dropped; ``**x`` is kept under the
   key :data:`POSITIONAL` (BFCL keeps it under ``None``);
4. per keyword value: constants as they are (``...`` becomes ``"..."``);
   a unary operator *negates its operand's constant* (so ``+5`` gives ``-5``
   and ``not True`` gives ``-1``); lists, tuples and dicts recursively;
   bare names as their text (``b=b`` gives ``"b"``); a call without keyword
   arguments as its source text, a call with keywords as a nested
   ``{name: {args}}``; a subscript as its source text; a binary operation
   as its value (BFCL evaluates it with ``eval``; here only arithmetic on
   literals is computed, see :func:`evaluate_binop`); anything else (sets,
   attributes, f-strings, comparisons, lambdas, ...) fails.

A failure raises :class:`BfclDecodeError`; BFCL counts it as "no call" in
the (ir)relevance categories and as ``ast_decoder:decoder_failed`` elsewhere.

>>> decode_python("[acl_api.AclApi.retrieve_projects(items=myList, on=true, n=-3)]")
[{'acl_api.AclApi.retrieve_projects': {'items': 'myList', 'on': 'true', 'n': -3}}]
>>> decode_python("f(a=2 * 3.5, b=g(1), c=h(x=1))")
[{'f': {'a': 7.0, 'b': 'g(1)', 'c': {'h': {'x': 1}}}}]
"""

from __future__ import annotations

import ast
import operator
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "DECODER_FAILED",
    "POSITIONAL",
    "WRONG_OUTPUT_FORMAT",
    "BfclDecodeError",
    "decode_call",
    "decode_python",
    "evaluate_binop",
    "prompt_text",
]

#: Argument key for values BFCL keeps under ``None`` (Python ``**x``; Java and
#: JavaScript positional arguments). No schema names a parameter like this, so
#: the checker reports it as an unexpected parameter, as BFCL does.
POSITIONAL = "<positional>"


DECODER_FAILED = "ast_decoder:decoder_failed"
WRONG_OUTPUT_FORMAT = "ast_decoder:decoder_wrong_output_format"


class BfclDecodeError(ValueError):
    """BFCL's decoder would raise on this text, or its output is not a list of calls.

    ``error_type`` is BFCL's label: :data:`DECODER_FAILED` or
    :data:`WRONG_OUTPUT_FORMAT`.
    """

    def __init__(self, message: str, error_type: str = DECODER_FAILED) -> None:
        super().__init__(message)
        self.error_type = error_type


def prompt_text(result: Any) -> str:
    """The text BFCL's default prompting decoder parses (wrapping added).

    >>> prompt_text("```\\nf(a=1)\\n```")
    '[f(a=1)]'
    """
    if not isinstance(result, str):
        raise BfclDecodeError(f"a prompt-style result must be text, got {type(result).__name__}")
    text = result.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


def decode_python(result: Any) -> list[dict[str, dict[str, Any]]]:
    """BFCL's decoded calls (``[{name: {param: value}}]``) for a Python prompt-style answer."""
    source = prompt_text(result).strip().strip("'")
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" etc.: not the user's concern
            warnings.simplefilter("ignore")
            tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise BfclDecodeError(f"not Python: {exc or type(exc).__name__}") from None
    body = tree.body
    if isinstance(body, ast.Call):
        return [_call(body)]
    if not isinstance(body, ast.List | ast.Tuple | ast.Set):
        raise BfclDecodeError(f"expected a call or a list of calls, got {type(body).__name__}")
    calls = []
    for element in body.elts:
        if not isinstance(element, ast.Call):
            raise BfclDecodeError(f"list element is not a call: {type(element).__name__}")
        calls.append(_call(element))
    return calls


def decode_call(node: ast.Call) -> dict[str, dict[str, Any]]:
    """``{name: {param: value}}`` for one parsed call, read as BFCL's ``resolve_ast_call``.

    >>> decode_call(ast.parse("a.b(x=1, y=z)", mode="eval").body)
    {'a.b': {'x': 1, 'y': 'z'}}
    """
    return _call(node)


def _call(node: ast.Call) -> dict[str, dict[str, Any]]:
    parts: list[str] = []
    func = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    args: dict[str, Any] = {}
    for keyword in node.keywords:
        key = POSITIONAL if keyword.arg is None else keyword.arg
        args[key] = _value(keyword.value)
    return {".".join(reversed(parts)): args}


def _value(node: ast.AST) -> Any:
    try:
        return _resolve(node)
    except RecursionError:
        raise BfclDecodeError("value nested too deeply") from None


def _resolve(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        operand = node.operand
        if not isinstance(operand, ast.Constant):
            raise BfclDecodeError(f"unary operator on {type(operand).__name__}")
        value: Any = operand.value
        try:
            return -value  # BFCL negates whatever the operator is
        except TypeError as exc:
            raise BfclDecodeError(str(exc)) from None
    if isinstance(node, ast.List):
        return [_resolve(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise BfclDecodeError("'**' in a dict")
            resolved = _resolve(key)
            try:
                out[resolved] = _resolve(value)
            except TypeError as exc:
                raise BfclDecodeError(f"dict key: {exc}") from None
        return out
    if isinstance(node, ast.BinOp):
        return evaluate_binop(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return ast.unparse(node) if not node.keywords else _call(node)
    if isinstance(node, ast.Tuple):
        return tuple(_resolve(v) for v in node.elts)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise BfclDecodeError(f"unsupported value {type(node).__name__}")


_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}
_BIG = 10_000  # bits / items: larger results are refused instead of computed


def evaluate_binop(node: ast.AST) -> Any:
    """The value Python gives a binary operation on literals (BFCL ``eval``\\ s it).

    Only literals, containers and arithmetic are computed; names, calls and
    attributes inside the operation raise :class:`BfclDecodeError` (BFCL's
    ``eval`` would look them up: a documented difference). Results beyond
    10,000 bits or items are refused rather than computed.

    >>> evaluate_binop(ast.parse("2 ** 10 + 0.5", mode="eval").body)
    1024.5
    """
    try:
        return _eval(node)
    except BfclDecodeError:
        raise
    except (ArithmeticError, TypeError, ValueError, RecursionError, MemoryError) as exc:
        raise BfclDecodeError(f"{type(exc).__name__}: {exc}") from None


def _eval(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left), _eval(node.right)
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise BfclDecodeError(f"operator {type(node.op).__name__}")
        _guard(type(node.op), left, right)
        return op(left, right)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand)
        if isinstance(node.op, ast.Not):
            return not value
        return _UNARY[type(node.op)](value)
    if isinstance(node, ast.List):
        return [_eval(v) for v in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_eval(v) for v in node.elts)
    if isinstance(node, ast.Set):
        return {_eval(v) for v in node.elts}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise BfclDecodeError("'**' in a dict")
        return {
            _eval(k): _eval(v)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None  # always (checked above)
        }
    raise BfclDecodeError(
        f"{type(node).__name__} inside arithmetic is not evaluated (model output is never run)"
    )


def _size(value: Any) -> int:
    if isinstance(value, bool):
        return 1
    if isinstance(value, int):
        return value.bit_length()
    if isinstance(value, str | bytes | list | tuple):
        return len(value)
    return 1


def _guard(op: type, left: Any, right: Any) -> None:
    pow_ints = op is ast.Pow and isinstance(left, int) and isinstance(right, int)
    if pow_ints and right > 0 and max(1, _size(left)) * right > _BIG * 8:
        raise BfclDecodeError("power too large to compute")
    if op is ast.LShift and isinstance(right, int) and right > _BIG * 8:
        raise BfclDecodeError("shift too large to compute")
    if op is ast.Mult:
        for seq, count in ((left, right), (right, left)):
            sized = isinstance(seq, str | bytes | list | tuple) and isinstance(count, int)
            if sized and len(seq) * count > _BIG * 100:
                raise BfclDecodeError("repetition too large to compute")
