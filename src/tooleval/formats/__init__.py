"""Read foreign agent conversations into tooleval's model, and write them back.

Formats: ``canonical`` (tooleval's own), ``openai_chat``, ``openai_responses``,
``anthropic``, ``gemini``, ``langchain``, ``mcp`` and ``ragas``. The canonical
dataset row is read by :func:`sample_from_row`; ``expected_tools`` cells by
:func:`parse_expected_tools`.

Benchmark files (BFCL, tau-bench, tau2, API-Bank, Seal-Tools, NESTFUL) are read by
:mod:`tooleval.benchmarks`, one folder per benchmark.

>>> detect({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
...         "params": {"name": "search", "arguments": {"q": "mcp"}}})
'mcp'
"""

from tooleval.formats.convert import (
    FormatSpec,
    export_messages,
    get_format,
    import_conversation,
    import_messages,
)
from tooleval.formats.detect import FORMATS, detect
from tooleval.formats.expected import call_from_value, parse_expected_tools, parse_tool_calls
from tooleval.formats.rows import ROW_FIELDS, sample_from_row, sample_to_row

__all__ = [
    "FORMATS",
    "ROW_FIELDS",
    "FormatSpec",
    "call_from_value",
    "detect",
    "export_messages",
    "get_format",
    "import_conversation",
    "import_messages",
    "parse_expected_tools",
    "parse_tool_calls",
    "sample_from_row",
    "sample_to_row",
]
