"""Read foreign agent conversations into tooleval's model, and write them back.

Formats: ``canonical`` (tooleval's own), ``openai_chat``, ``openai_responses``,
``anthropic``, ``gemini``, ``langchain``, ``mcp`` and ``ragas``. The canonical
dataset row is read by :func:`sample_from_row`; ``expected_tools`` cells by
:func:`parse_expected_tools`.

Benchmark files: tau-bench trajectories (:func:`load_tau_bench`), tau2-bench
results (:func:`load_tau2_results`), API-Bank graded rows
(:func:`load_apibank`), Seal-Tools (:func:`load_seal_tools`) and NESTFUL
(:func:`load_nestful`) predictions with their references; :mod:`tooleval.formats.benchmarks` names the format
of a file and the metric that reproduces its benchmark's verdict
(``tooleval score FILE --format ...``); BFCL is :mod:`tooleval.formats.bfcl`.

>>> detect({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
...         "params": {"name": "search", "arguments": {"q": "mcp"}}})
'mcp'
"""

from tooleval.formats.apibank import load_apibank, sample_from_apibank_row
from tooleval.formats.benchmarks import BENCHMARK_FORMATS, benchmark_samples, detect_benchmark
from tooleval.formats.convert import (
    FormatSpec,
    export_messages,
    get_format,
    import_conversation,
    import_messages,
)
from tooleval.formats.detect import FORMATS, detect
from tooleval.formats.expected import call_from_value, parse_expected_tools, parse_tool_calls
from tooleval.formats.nestful import load_nestful, sample_from_nestful
from tooleval.formats.rows import ROW_FIELDS, sample_from_row, sample_to_row
from tooleval.formats.seal_tools import load_seal_tools, sample_from_seal_tools
from tooleval.formats.tau import (
    load_tau2_results,
    load_tau_bench,
    sample_from_tau2_simulation,
    sample_from_tau_bench_run,
    samples_from_tau2_results,
    samples_from_tau_bench_runs,
)

__all__ = [
    "BENCHMARK_FORMATS",
    "FORMATS",
    "ROW_FIELDS",
    "FormatSpec",
    "call_from_value",
    "detect",
    "export_messages",
    "get_format",
    "import_conversation",
    "import_messages",
    "benchmark_samples",
    "detect_benchmark",
    "load_apibank",
    "load_nestful",
    "load_seal_tools",
    "load_tau2_results",
    "load_tau_bench",
    "sample_from_apibank_row",
    "sample_from_nestful",
    "sample_from_seal_tools",
    "sample_from_tau2_simulation",
    "sample_from_tau_bench_run",
    "samples_from_tau2_results",
    "samples_from_tau_bench_runs",
    "parse_expected_tools",
    "parse_tool_calls",
    "sample_from_row",
    "sample_to_row",
]
