"""Properties: parsing never crashes, imports stay light."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.judged.prompts import TASK_SUCCESS_SCHEMA, TOOLS_ERROR_SCHEMA, TOPIC_VERDICT_SCHEMA
from tooleval.llm import parse_json_reply

SCHEMAS = st.sampled_from([None, TASK_SUCCESS_SCHEMA, TOOLS_ERROR_SCHEMA, TOPIC_VERDICT_SCHEMA])
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from('{}[]":,tru efalsn0123\\x'), max_size=60), schema=SCHEMAS
)
def test_any_text_parses_or_says_why(text, schema):
    value, error = parse_json_reply(text, schema)
    assert (value is None) != (error is None)
    assert error is None or isinstance(error, str) and error


@settings(max_examples=200, deadline=None)
@given(value=JSONISH, schema=SCHEMAS, prefix=st.text(max_size=10))
def test_any_json_value_parses_or_says_why(value, schema, prefix):
    text = prefix.replace("{", "(") + " " + json.dumps(value)
    parsed, error = parse_json_reply(text, schema)
    assert (parsed is None) != (error is None)
    if isinstance(value, dict) and schema is None and error is None:
        assert parsed == value


def test_importing_judges_loads_no_heavy_dependency():
    code = (
        "import sys, tooleval.llm, tooleval.judged; "
        "print([m for m in ('openai', 'torch', 'transformers', 'fastapi', 'uvicorn', "
        "'numpy', 'gguf', 'tokenizers', 'jinja2') "
        "if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"
