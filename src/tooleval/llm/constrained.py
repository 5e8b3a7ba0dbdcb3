"""Schema-constrained greedy decoding: the local judge's reply is valid JSON by construction.

The reply to a verdict schema is built by walking the schema: the punctuation
and the keys (in the schema's order) are written by the decoder, and the model
chooses only the values, each from the tokens its type allows:

- ``boolean``: ``true`` or ``false``, whichever's first token the model ranks higher;
- ``string`` with ``enum``: the option whose first token the model ranks highest;
- ``string``: the model's tokens, masked to those that cannot end or break a JSON
  string (no quote, backslash or control character), until the model's own best
  token would close the string, or the string's token cap;
- ``integer``: digit tokens, at least one;
- ``array``: items while the model ranks continuing above ``]`` (and the budget allows);
  with ``prefixItems``, exactly those items, in order;
- ``object``: every property, in order;
- any schema with ``const``: that value, written for the model.

A budget reserve is kept at every step for the shortest way to close what is
open, so the reply always ends as a complete object within ``max_new_tokens``:
"unparsable" cannot happen. The text is always the decoding of the tokens the
model read, so the key/value cache stays consistent with the reply.

>>> minimal_json({"type": "object", "properties": {"ok": {"type": "boolean"},
...               "why": {"type": "string"}}, "required": ["ok", "why"]})
'{"ok": false, "why": ""}'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

import numpy as np

from tooleval.errors import JudgeError

__all__ = ["SchemaDecoder", "TokenClasses", "minimal_json"]

# A free string stops after this many tokens (then it is closed): a reason, not an essay.
STRING_TOKENS = 48
INTEGER_TOKENS = 4
ARRAY_ITEMS = 32
_SPECIAL_TEXT = re.compile(r"^<\|.*\|>$|^<[a-z_]+>$")
_SUPPORTED = ("object", "array", "string", "boolean", "integer", "number")


def _kind(schema: Mapping[str, Any]) -> str:
    if "const" in schema:
        return "const"
    if "enum" in schema:
        return "enum"
    kind = schema.get("type", "string")
    if kind not in _SUPPORTED:
        raise JudgeError(
            f"the local judge's constrained decoding does not take schema type {kind!r}; "
            f"expected one of {', '.join(_SUPPORTED)}",
            field="schema",
        )
    return "integer" if kind == "number" else str(kind)


def _properties(schema: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    props = schema.get("properties") or {}
    required = schema.get("required")
    names = list(required) if required is not None else list(props)
    return [(name, props.get(name) or {}) for name in names]


def minimal_json(schema: Mapping[str, Any]) -> str:
    """The shortest reply text valid for ``schema``, as the decoder writes it."""
    kind = _kind(schema)
    if kind == "const":
        return json.dumps(schema["const"])
    if kind == "object":
        parts = [f'"{name}": {minimal_json(sub)}' for name, sub in _properties(schema)]
        return "{" + ", ".join(parts) + "}"
    if kind == "array":
        return "[" + ", ".join(minimal_json(item) for item in schema.get("prefixItems", ())) + "]"
    if kind == "boolean":
        return "false"
    if kind == "integer":
        return "0"
    if kind == "enum":
        return '"' + str(schema["enum"][0]) + '"'
    return '""'


class TokenClasses:
    """Which token ids may be written inside a JSON string, as digits, and which hold a quote.

    Computed once per vocabulary (``texts``: each id's text; ``banned``: end of turn
    and control tokens, never written freely).
    """

    def __init__(self, texts: Sequence[str], banned: frozenset[int], vocab: int) -> None:
        listed = list(texts)[:vocab] + [""] * max(0, vocab - len(texts))
        usable = [i not in banned and bool(listed[i]) for i in range(vocab)]
        self.string_ok = np.array(
            [
                ok and _string_safe(text) and not _SPECIAL_TEXT.match(text)
                for ok, text in zip(usable, listed, strict=True)
            ],
            dtype=bool,
        )
        self.digit_ok = np.array(
            [
                ok and text.isascii() and text.isdigit()
                for ok, text in zip(usable, listed, strict=True)
            ],
            dtype=bool,
        )
        self.quote = np.array(['"' in text for text in listed], dtype=bool)


class _Costs:
    """How many tokens each forced piece and each schema's shortest value take."""

    def __init__(self, encode: Callable[[str], list[int]]) -> None:
        self._encode = encode
        self._costs: dict[str, int] = {}

    def _cost(self, text: str) -> int:
        if text not in self._costs:
            self._costs[text] = len(self._encode(text))
        return self._costs[text]

    def min_cost(self, schema: Mapping[str, Any]) -> int:
        """Tokens the shortest value of ``schema`` takes when written piece by piece."""
        kind = _kind(schema)
        if kind == "const":
            return self._cost(json.dumps(schema["const"]))
        if kind == "object":
            props = _properties(schema)
            total = self._cost("{") + self._cost("}")
            for index, (name, sub) in enumerate(props):
                total += self._cost(self._key(name, index)) + self.min_cost(sub)
            return total
        if kind == "array":
            fixed = schema.get("prefixItems", ())
            between = self._cost(", ") * max(0, len(fixed) - 1)
            return self._cost("[") + self._cost("]") + between + sum(map(self.min_cost, fixed))
        if kind == "boolean":
            return max(self._cost("true"), self._cost("false"))
        if kind == "integer":
            return 1
        if kind == "enum":
            return self._cost('"') + max(self._cost(f'{option}"') for option in schema["enum"])
        return 2 * self._cost('"')

    @staticmethod
    def _key(name: str, index: int) -> str:
        return ('"' if index == 0 else ', "') + name + '": '


Steps = Generator[list[int], np.ndarray, None]


class SchemaDecoder(_Costs):
    """Writes one reply to ``schema``: token ids out, the next token's logits back in.

    ``logits`` are the next token's after the prompt; ``encode`` turns text into
    token ids; ``classes`` says which ids fit where; ``budget`` caps the reply's
    tokens. :meth:`steps` is the decoding as a generator (it yields the ids to
    read and is sent their logits), so a batch can step many decoders through
    one forward pass; :meth:`reply` drives it alone with ``feed``.
    """

    def __init__(
        self,
        feed: Callable[[Sequence[int]], np.ndarray] | None,
        logits: np.ndarray,
        *,
        encode: Callable[[str], list[int]],
        classes: TokenClasses,
        budget: int,
    ) -> None:
        super().__init__(encode)
        self._feed = feed
        self._logits = logits
        self.budget = budget
        self.tokens: list[int] = []
        self._string_ok = classes.string_ok
        self._digit_ok = classes.digit_ok
        self._quote = classes.quote

    @classmethod
    def shortest(cls, schema: Mapping[str, Any], encode: Callable[[str], list[int]]) -> int:
        """Tokens of the shortest reply to ``schema`` (the least ``budget`` that works)."""
        return _Costs(encode).min_cost(schema)

    def reply(self, schema: Mapping[str, Any]) -> list[int]:
        """Write the whole reply through ``feed``; its token ids."""
        if self._feed is None:
            raise JudgeError("SchemaDecoder.reply needs feed; step steps() instead")
        steps = self.steps(schema)
        try:
            ids = next(steps)
            while True:
                ids = steps.send(self._feed(ids))
        except StopIteration:
            return self.tokens

    def steps(self, schema: Mapping[str, Any]) -> Steps:
        """The decoding, one forced piece or chosen token at a time (see the class doc).

        JudgeError, before the first step, when the budget cannot hold a reply.
        """
        needed = self.min_cost(schema)
        if needed > self.budget:
            raise JudgeError(
                f"max_new_tokens ({self.budget}) is too small for the shortest reply to this "
                f"schema ({needed} tokens)",
                field="max_new_tokens",
            )
        yield from self.write(schema)

    # ------------------------------------------------------------ pieces
    def _left(self) -> int:
        return self.budget - len(self.tokens)

    def _take(self, ids: Sequence[int]) -> Steps:
        if not ids:
            return
        self.tokens.extend(ids)
        self._logits = yield list(ids)

    def _force(self, text: str) -> Steps:
        yield from self._take(self._encode(text))

    def _first_logit(self, text: str) -> float:
        ids = self._encode(text)
        return float(self._logits[ids[0]]) if ids else float("-inf")

    # ------------------------------------------------------------ values
    def write(self, schema: Mapping[str, Any], reserve: int = 0) -> Steps:
        """Write one value of ``schema``, leaving ``reserve`` tokens for what follows."""
        kind = _kind(schema)
        if kind == "const":
            yield from self._force(json.dumps(schema["const"]))
        elif kind == "object":
            yield from self._object(schema, reserve)
        elif kind == "array":
            yield from self._array(schema, reserve)
        elif kind == "boolean":
            word = "true" if self._first_logit("true") > self._first_logit("false") else "false"
            yield from self._force(word)
        elif kind == "enum":
            yield from self._force('"')
            options = [str(option) for option in schema["enum"]]
            best = max(options, key=self._first_logit)
            yield from self._force(best + '"')
        elif kind == "integer":
            yield from self._integer(reserve)
        else:
            yield from self._string(schema, reserve)

    def _object(self, schema: Mapping[str, Any], reserve: int) -> Steps:
        props = _properties(schema)
        costs = [
            self._cost(self._key(name, i)) + self.min_cost(sub)
            for i, (name, sub) in enumerate(props)
        ]
        yield from self._force("{")
        for index, (name, sub) in enumerate(props):
            yield from self._force(self._key(name, index))
            after = sum(costs[index + 1 :]) + self._cost("}") + reserve
            yield from self.write(sub, after)
        yield from self._force("}")

    def _array(self, schema: Mapping[str, Any], reserve: int) -> Steps:
        if "prefixItems" in schema:
            yield from self._fixed_items(list(schema["prefixItems"]), reserve)
            return
        item = schema.get("items") or {}
        limit = int(schema.get("maxItems", ARRAY_ITEMS))
        close = self._cost("]")
        yield from self._force("[")
        count = 0
        while count < limit:
            separator = ", " if count else ""
            needed = (self._cost(separator) if separator else 0) + self.min_cost(item)
            if self._left() - reserve - close < needed:
                break
            opening = separator or minimal_json(item)[0]
            if count >= int(schema.get("minItems", 0)) and self._first_logit(
                "]"
            ) >= self._first_logit(opening):
                break
            if separator:
                yield from self._force(separator)
            yield from self.write(item, reserve + close)
            count += 1
        yield from self._force("]")

    def _fixed_items(self, items: list[Mapping[str, Any]], reserve: int) -> Steps:
        """Exactly ``items``, in order (``prefixItems``): the count is not the model's choice."""
        costs = [
            self.min_cost(item) + (self._cost(", ") if i else 0) for i, item in enumerate(items)
        ]
        yield from self._force("[")
        for index, item in enumerate(items):
            if index:
                yield from self._force(", ")
            yield from self.write(item, sum(costs[index + 1 :]) + self._cost("]") + reserve)
        yield from self._force("]")

    def _integer(self, reserve: int) -> Steps:
        written = 0
        while written < INTEGER_TOKENS and self._left() - reserve > 0:
            masked = np.where(self._digit_ok, self._logits, -np.inf)
            best = int(np.argmax(masked))
            if not np.isfinite(masked[best]):
                break
            if written and int(np.argmax(self._logits)) != best:
                break  # the model would rather end the number
            yield from self._take([best])
            written += 1
        if not written:
            yield from self._force("0")

    def _string(self, schema: Mapping[str, Any], reserve: int) -> Steps:
        cap = int(schema.get("maxLength", STRING_TOKENS))
        quote = self._cost('"')
        yield from self._force('"')
        written = 0
        while written < cap and self._left() - reserve - quote > 0:
            top = int(np.argmax(self._logits))
            if self._quote[top] and written:
                break  # the model closes the string
            masked = np.where(self._string_ok, self._logits, -np.inf)
            best = int(np.argmax(masked))
            if not np.isfinite(masked[best]):
                break
            yield from self._take([best])
            written += 1
        yield from self._force('"')


def _string_safe(text: str) -> bool:
    """Text that can sit inside a JSON string as it is, and is whole (no broken UTF-8)."""
    if not text or "\ufffd" in text:
        return False
    return not any(ch in '"\\' or ord(ch) < 0x20 for ch in text)
