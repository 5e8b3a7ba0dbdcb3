"""Foreign trace formats: OTLP files and streams, OTel GenAI spans and log events, OpenInference.

Read only by :mod:`tooleval.monitor` (and the commands over it): each span or log record is
turned into :class:`~tooleval.traces.genai.SpanFacts`, what it says about tool calls.

* :mod:`~tooleval.traces.otlp`: OTLP JSON requests, span by span (``IngestReport``, ``loads``);
* :mod:`~tooleval.traces.files`: every file layout (JSONL, one document, protobuf, gzip, ``-``);
* :mod:`~tooleval.traces.genai`: what a span says, every convention walked from one list;
* :mod:`~tooleval.traces.facts`: ``SpanFacts`` and the ``Convention`` interface;
* one module per convention: :mod:`~tooleval.traces.otel_genai`, :mod:`~tooleval.traces.mcp`,
  :mod:`~tooleval.traces.openinference`, :mod:`~tooleval.traces.traceloop`, and
  :mod:`~tooleval.traces.langchain` (LangChain / LangGraph values as OpenInference records them);
* :mod:`~tooleval.traces.logs`: GenAI log events.
"""
