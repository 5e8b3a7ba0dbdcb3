"""Property tests: the canonical shape and rows read back exactly what was written."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.formats import (
    detect,
    export_messages,
    import_messages,
    parse_expected_tools,
    sample_from_row,
    sample_to_row,
)
from tooleval.model import (
    AssistantMessage,
    ExpectedTools,
    Sample,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

names = st.from_regex(r"[a-z_][a-z0-9_.]{0,12}", fullmatch=True)
texts = st.text(max_size=20)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
args = st.dictionaries(texts, json_values, max_size=4)
ids = st.none() | st.text(min_size=1, max_size=8)

calls = st.builds(
    ToolCall,
    name=names,
    args=args,
    id=ids,
    result=json_values,
    is_error=st.booleans(),
)
message_calls = st.builds(ToolCall, name=names, args=args, id=ids)
messages = st.lists(
    st.one_of(
        st.builds(SystemMessage, texts),
        st.builds(UserMessage, texts),
        st.builds(AssistantMessage, texts, st.lists(message_calls, max_size=3).map(tuple)),
        st.builds(
            ToolMessage,
            json_values,
            tool_call_id=ids,
            name=st.none() | names,
            is_error=st.booleans(),
        ),
    ),
    max_size=6,
)


@st.composite
def expected_tools(draw):
    expected = draw(st.lists(st.builds(ToolCall, name=names, args=st.none() | args), max_size=4))
    n = len(expected)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    before = draw(
        st.none()
        | st.just(())
        | st.lists(st.sampled_from(pairs), unique=True).map(lambda p: tuple(sorted(p)))
        if pairs
        else st.none() | st.just(())
    )
    return ExpectedTools(tuple(expected), before)


samples = st.builds(
    Sample,
    input=texts,
    messages=messages,
    tools_called=st.none() | st.lists(calls, max_size=3),
    expected_tools=st.none() | expected_tools(),
    reference=st.none() | texts,
    reference_topics=st.none() | st.lists(texts, max_size=3),
    output=st.none() | texts,
    category=st.none() | texts,
    test_type=st.none() | texts,
    id=st.none() | texts,
    metadata=st.dictionaries(texts, json_values, max_size=3),
)


@settings(max_examples=150, deadline=None)
@given(messages)
def test_canonical_messages_round_trip_and_are_detected(msgs):
    written = json.loads(json.dumps(export_messages(msgs, "canonical")))
    assert detect(written) == "canonical"
    assert import_messages(written) == msgs


@settings(max_examples=150, deadline=None)
@given(samples)
def test_rows_round_trip(sample):
    sample.input = sample.user_input()  # an empty input is filled from the first user message
    row = json.loads(json.dumps(sample_to_row(sample)))
    assert sample_from_row(row) == sample


@settings(max_examples=100, deadline=None)
@given(expected_tools())
def test_expected_tools_to_dict_parses_back(expected):
    encoded = json.dumps(expected.to_dict())
    assert parse_expected_tools(encoded) == expected


# ---------------------------------------------------------------- detect() vs the importers
# Messages built from the pieces every supported format uses (roles, content
# shapes, call shapes, extra keys), mixed freely: whatever detect() names, that
# format's importer must read (never "detected as X, then refused by X").

_call_shapes = st.sampled_from(
    [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "c1", "function": {"name": "f", "arguments": '{"a": 1}'}},
        {"name": "f", "args": {"a": 1}},
        {"name": "f", "arguments": {"a": 1}},
        {"name": "f", "id": "c1", "args": {}},
        {"name": "f"},
    ]
)
_contents = st.one_of(
    st.none(),
    texts,
    st.just([{"type": "text", "text": "hi"}]),
    st.just([{"type": "input_text", "text": "hi"}]),
    st.just([{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]),
    st.just([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
    st.just({"k": 1}),
    st.integers(),
)
_extra = st.dictionaries(
    st.sampled_from(
        ["turn_idx", "name", "tool_call_id", "is_error", "id", "timestamp", "function_call"]
    ),
    st.one_of(st.integers(), texts, st.booleans(), st.none()),
    max_size=2,
)


@st.composite
def _foreign_message(draw):
    msg = {"role": draw(st.sampled_from(["system", "user", "assistant", "tool", "developer"]))}
    content = draw(_contents)
    if draw(st.booleans()):
        msg["content"] = content
    if msg["role"] == "assistant" and draw(st.booleans()):
        msg["tool_calls"] = draw(st.lists(_call_shapes, min_size=1, max_size=2))
    msg.update(draw(_extra))
    return msg


_wrapped = st.one_of(
    st.lists(_foreign_message(), min_size=1, max_size=4),
    st.lists(_foreign_message(), min_size=1, max_size=4).map(lambda m: {"messages": m}),
    st.tuples(texts, st.lists(_foreign_message(), min_size=1, max_size=3)).map(
        lambda t: {"system": t[0], "messages": t[1]}
    ),
)


@settings(max_examples=300, deadline=None)
@given(_wrapped)
def test_detect_never_names_a_format_its_importer_refuses(msgs):
    from tooleval.errors import FormatError
    from tooleval.formats.detect import candidates

    try:
        name = detect(msgs)
    except FormatError:
        return  # refusing to guess is allowed
    try:
        import_messages(msgs, name)
    except FormatError:
        # Only allowed when no format the messages fit reads the value: the named
        # reader then explains why.
        listed = msgs["messages"] if isinstance(msgs, dict) else msgs
        agreed = set.intersection(*(candidates(m) for m in listed))
        for other in sorted(agreed):
            try:
                import_messages(msgs, other)
            except FormatError:
                continue
            raise AssertionError(
                f"detect() named {name}, which refuses it; {other} reads it"
            ) from None


def test_detect_regression_extra_key_is_not_canonical():
    msgs = [{"role": "user", "content": "hi", "turn_idx": 0}]
    name = detect(msgs)
    assert name != "canonical"
    assert import_messages(msgs, name)[0].content == "hi"
