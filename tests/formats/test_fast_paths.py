"""The plain-row shortcut of ``sample_from_row`` reads rows exactly as the general path.

Rows are drawn near the edge of what the shortcut accepts (integer and
boolean ids, null and empty fields, bare names with spaces, ``args`` null or
not an object, extra keys, both ``reference`` and ``expected_output``), and
each one is read with the shortcut on and off: the same Sample, or the same
error.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.errors import ToolEvalError
from tooleval.formats import rows as rows_module
from tooleval.formats import sample_from_row

texts = st.one_of(st.none(), st.sampled_from(["", "x", " y ", "null"]), st.integers(-2, 2))
names = st.sampled_from(["a", "b", " c ", "", "a b", 3])
arguments = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from(["k", "city"]), st.sampled_from([1, "x", None, [1]])),
    st.sampled_from(['{"k": 1}', "[]", 5]),
)
calls = st.one_of(
    names,
    st.fixed_dictionaries({"name": names, "args": arguments}),
    st.fixed_dictionaries({"name": names}, optional={"arguments": arguments, "id": texts}),
)
call_lists = st.one_of(st.none(), st.lists(calls, max_size=3), st.sampled_from(["a, b", "", {}]))
row_values = {
    "id": st.one_of(texts, st.booleans(), st.just(1.5)),
    "input": st.one_of(texts, st.just([{"role": "user", "content": "hi"}])),
    "tools_called": call_lists,
    "expected_tools": call_lists,
    "reference": texts,
    "expected_output": texts,
    "category": texts,
    "test_type": texts,
    "output": texts,
    "metadata": st.one_of(st.none(), st.just({"m": 1})),
    "priority": st.just("high"),
}


@st.composite
def rows(draw):
    keys = draw(st.lists(st.sampled_from(sorted(row_values)), unique=True, max_size=8))
    return {key: draw(row_values[key]) for key in keys}


def read(row):
    try:
        return ("ok", repr(sample_from_row(row, row_number=4)))
    except ToolEvalError as exc:
        return ("error", type(exc).__name__, str(exc))


@settings(max_examples=600, deadline=None)
@given(rows())
def test_shortcut_reads_rows_like_the_general_path(row):
    fast = read(row)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rows_module, "_simple_row", lambda row: None)
        slow = read(row)
    assert fast == slow


def test_shortcut_taken_for_the_canonical_row():
    row = {
        "id": 7,
        "input": "cancel 4471",
        "tools_called": [{"name": "cancel_order", "args": {"order_id": "4471"}}],
        "expected_tools": ["lookup_order", {"name": "cancel_order", "args": {"order_id": "4471"}}],
    }
    simple = rows_module._simple_row(row)
    assert simple is not None
    assert simple == sample_from_row(row) and simple.id == "7"
    assert simple.tools_called[0].args is not row["tools_called"][0]["args"]  # copied, as before
    assert rows_module._simple_row({**row, "messages": []}) is None
