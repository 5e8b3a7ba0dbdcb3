"""The reference: the calls a row should produce, with optional ordering constraints."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.model.calls import ToolCall, as_tool_call


@dataclass(frozen=True, slots=True)
class ExpectedTools:
    """The calls a row should produce, with optional ordering constraints.

    ``before`` holds pairs ``(i, j)``: expected call ``i`` must come before
    expected call ``j``. ``None`` means "the listed order" (a total order,
    used only when a metric checks ordering); ``()`` means any order.

    >>> e = ExpectedTools.of(["lookup_order", "cancel_order"])
    >>> [c.name for c in e.calls], e.args_given
    (['lookup_order', 'cancel_order'], False)
    """

    calls: tuple[ToolCall, ...] = ()
    before: tuple[tuple[int, int], ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.calls, tuple):
            object.__setattr__(self, "calls", tuple(self.calls))
        if self.before is not None:
            pairs = tuple((int(a), int(b)) for a, b in self.before)
            for a, b in pairs:
                if not (0 <= a < len(self.calls) and 0 <= b < len(self.calls)) or a == b:
                    from tooleval.errors import InputError

                    raise InputError(
                        f"ordering constraint ({a}, {b}) does not name two different expected calls "
                        f"(there are {len(self.calls)})",
                        field="expected_tools.order",
                    )
            object.__setattr__(self, "before", pairs)

    @classmethod
    def of(
        cls, calls: Iterable[ToolCall | str], before: Iterable[tuple[int, int]] | None = None
    ) -> ExpectedTools:
        """Build from ToolCalls, bare names or ``{"name", "args"}`` dicts (see ``as_tool_call``).

        A bare name, or a dict without arguments, compares the name only.
        """
        built = tuple(
            c if type(c) is ToolCall else as_tool_call(c, where=f"expected[{i}]", expected=True)
            for i, c in enumerate(calls)
        )
        return cls(built, None if before is None else tuple(before))

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.calls]

    @property
    def args_given(self) -> bool:
        """True when at least one expected call specifies arguments."""
        return any(c.args is not None for c in self.calls)

    def order_pairs(self) -> tuple[tuple[int, int], ...]:
        """The ordering constraints as explicit pairs (listed order when unset)."""
        if self.before is not None:
            return self.before
        return tuple((i, i + 1) for i in range(len(self.calls) - 1))

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[ToolCall]:
        return iter(self.calls)

    def __getitem__(self, index: int) -> ToolCall:
        return self.calls[index]

    def to_dict(self) -> dict[str, Any] | list[Any]:
        calls = [c.name if c.args is None else {"name": c.name, "args": c.args} for c in self.calls]
        if self.before is None:
            return calls
        return {"calls": calls, "before": [list(p) for p in self.before]}


def as_expected(value: ExpectedTools | Sequence[ToolCall | str] | None) -> ExpectedTools | None:
    """Accept an ExpectedTools, a list of calls/names, or None."""
    if value is None or isinstance(value, ExpectedTools):
        return value
    return ExpectedTools.of(value)
