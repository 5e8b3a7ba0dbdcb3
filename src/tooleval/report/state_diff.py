"""The state diff of a row scored by replaying calls on an environment (``state_match``).

A result scored that way keeps, in ``diagnosis.details`` (see
:mod:`tooleval.environments.metric`): ``differences``, each path where the
end states differ with its expected and actual value (``"<absent>"`` on the
side that lacks it), and ``first_divergence``, the first call after which the
two replays' states part (``index`` from 0, the ``expected`` and ``actual``
calls as text, None past the end of a side). Both are shown as a table,
escaped like everything else; long values are cut with a note, and at most
``MAX_PATHS`` paths are listed.

>>> from tooleval.model import Diagnosis, Result
>>> r = Result.scored("state_match", 0.0, reason="", diagnosis=Diagnosis(details={
...     "differences": [{"path": "orders.W1.status", "expected": "cancelled",
...                      "actual": "pending"}],
...     "first_divergence": {"index": 0, "expected": "cancel_order(order_id='W1')",
...                          "actual": "get_order(order_id='W1')"}}))
>>> html = str(state_diff_section(r))
>>> "orders.W1.status" in html and "call 1" in html
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.model import Result
from tooleval.report.html import Safe, el, frag

__all__ = [
    "MAX_PATHS",
    "MAX_VALUE_CHARS",
    "records_line",
    "state_diff_section",
    "state_diffs",
    "value_cell",
]

#: Differences listed per result; the rest are counted.
MAX_PATHS = 100
#: Characters of one value shown; a longer value is cut and says how long it was.
MAX_VALUE_CHARS = 600
_ABSENT = "<absent>"


def _is_state_result(result: Result) -> bool:
    details = result.diagnosis.details if result.diagnosis else None
    return isinstance(details, Mapping) and isinstance(details.get("differences"), list)


def state_diffs(results: Sequence[Result]) -> list[Result]:
    """The results that carry a state diff (``state_match`` and replay metrics)."""
    return [r for r in results if _is_state_result(r)]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def value_cell(value: Any, *, limit: int = MAX_VALUE_CHARS) -> Safe:
    """One value as escaped code, cut after ``limit`` characters with a note.

    >>> str(value_cell("<absent>"))
    '<em class="absent">absent</em>'
    >>> "cut: 2,000 characters" in str(value_cell("x" * 2000))
    True
    """
    if value == _ABSENT:
        return el("em", "absent", class_="absent")
    text = _text(value)
    if len(text) <= limit:
        return el("code", text)
    return frag(
        el("code", text[:limit] + "…", title=None),
        el("span", f" (cut: {len(text):,} characters in all)", class_="muted small cut-note"),
    )


def _divergence(found: Any) -> Safe | None:
    if not isinstance(found, Mapping):
        return None
    index = found.get("index")
    if isinstance(index, bool) or not isinstance(index, int):
        return None

    def call(side: str) -> Safe:
        value = found.get(side)
        if value is None:
            return el("em", "no call (this side made fewer calls)", class_="absent")
        return value_cell(value, limit=300)

    return el(
        "div",
        el(
            "p",
            el("strong", f"First diverging call: call {index + 1}"),
            " (the first call after which the two replays' states differ)",
        ),
        el(
            "dl",
            el("dt", "expected"),
            el("dd", call("expected")),
            el("dt", "actual"),
            el("dd", call("actual")),
            class_="facts divergence",
        ),
    )


def _differences_table(differences: list[Any]) -> Safe:
    rows = []
    for item in differences[:MAX_PATHS]:
        if isinstance(item, Mapping):
            path = item.get("path")
            rows.append(
                el(
                    "tr",
                    el("th", el("code", path or "(the whole state)"), scope="row"),
                    el("td", value_cell(item.get("expected")), class_="expected"),
                    el("td", value_cell(item.get("actual")), class_="actual"),
                )
            )
        else:  # not the recorded shape: shown as it is, never dropped
            rows.append(el("tr", el("td", value_cell(item), colspan=3)))
    table = el(
        "table",
        el("caption", "each path where the end states differ", class_="sr-only"),
        el(
            "thead",
            el("tr", *(el("th", h, scope="col") for h in ("path", "expected", "actual"))),
        ),
        el("tbody", rows),
        class_="args state-diff",
    )
    return el("div", table, class_="table-scroll", tabindex="0", aria_label="state differences")


def _record_of(path: str) -> tuple[str, str]:
    """``(record, field)`` of a path: ``orders.W1.status`` -> ``("orders.W1", "status")``."""
    head, *rest = path.replace("[", ".[").split(".")
    if not rest:
        return head, ""
    key, *fields = rest
    record = f"{head}{key}" if key.startswith("[") else f"{head}.{key}"
    return record, ".".join(fields).replace(".[", "[")


def records_line(differences: Sequence[Any]) -> Safe | None:
    """Which records differ and in which fields, one line (tables of records: ``table.key``).

    >>> print(records_line([{"path": "orders.W1.status"}, {"path": "orders.W1.items[0]"},
    ...                     {"path": "users.U2"}]))
    <p class="small state-records">Records: <code>orders.W1</code> (items[0], status) · <code>users.U2</code></p>
    """
    fields: dict[str, set[str]] = {}
    for found in differences:
        path = found.get("path") if isinstance(found, Mapping) else None
        if not isinstance(path, str) or not path:
            continue
        record, name = _record_of(path)
        fields.setdefault(record, set())
        if name:
            fields[record].add(name)
    if not fields:
        return None
    parts: list[Safe | str] = []
    for number, (record, names) in enumerate(list(fields.items())[:20]):
        if number:
            parts.append(" · ")
        parts.append(el("code", record))
        if names:
            listed = sorted(names)
            more = f", +{len(listed) - 8}" if len(listed) > 8 else ""
            parts.append(f" ({', '.join(listed[:8])}{more})")
    if len(fields) > 20:
        parts.append(f" · {len(fields) - 20} more")
    return el("p", "Records: ", *parts, class_="small state-records")


def state_diff_section(result: Result, *, level: int = 3) -> Safe | None:
    """One result's state diff: first divergence, then path · expected · actual."""
    if not _is_state_result(result):
        return None
    details = result.diagnosis.details
    differences = details["differences"]
    heading = el(f"h{level}", f"State diff · {result.metric}")
    if not differences:
        body: list[Safe | None] = [
            el("p", "The end states agree: no path differs.", class_="muted")
        ]
    else:
        shown = min(len(differences), MAX_PATHS)
        count = (
            ("1 path differs" if shown == 1 else f"{shown} paths differ")
            if shown == len(differences)
            else f"{len(differences):,} paths differ; the first {shown} are listed"
        )
        body = [
            _divergence(details.get("first_divergence")),
            records_line(differences),
            el("p", count, class_="muted small"),
            _differences_table(differences),
        ]
    missing = details.get("missing_outputs")
    if isinstance(missing, list) and missing:
        body.append(
            el("p", "Not in any call result: ", *(value_cell(m, limit=200) for m in missing[:20]))
        )
    errors = details.get("expected_errors")
    if isinstance(errors, list) and errors:
        numbers = ", ".join(str(i + 1) for i in errors[:20] if isinstance(i, int))
        body.append(
            el(
                "p",
                f"Expected call(s) {numbers} answered with an error on replay.",
                class_="muted small",
            )
        )
    return el("section", heading, *body, class_="state-diff-block")
