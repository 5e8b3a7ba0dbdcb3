"""``tooleval judge``: serve the local judge, or check a judge endpoint before trusting it.

The bundled SmolLM2-135M local judge is for plumbing only: it parrots prompt
examples; ``judge check`` shows it.

tooleval judge serve [--host 127.0.0.1] [--port 8765] [--max-new-tokens 256]
tooleval judge check --local
tooleval judge check --base-url http://127.0.0.1:11434/v1 --model qwen2.5:7b
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tooleval.cli._groups import add_verb_group
from tooleval.errors import ConfigError

PROBE_SCHEMA = {
    "title": "probe",
    "type": "object",
    "properties": {"tool_failed": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["tool_failed", "reason"],
    "additionalProperties": False,
}
# The example shows the shape only: a judge that copies it has not answered.
PROBE_EXAMPLE = '{"tool_failed": <true or false>, "reason": "<one sentence>"}'


def _probe(result: str) -> str:
    return (
        f"An agent called cancel_order(order_id=4471) and the tool returned {result!r}. "
        "Did the tool call fail? Reply with JSON only, in this shape: " + PROBE_EXAMPLE
    )


# Two probes with opposite answers: a judge that says the same thing to both is not judging.
PROBES = (
    ("failed_call", _probe("ERROR: order not found"), True),
    ("successful_call", _probe("order 4471 cancelled"), False),
)


def register(subparsers: Any) -> None:
    from tooleval.cli.judge_labels import add_judge_options, add_label_verbs
    from tooleval.cli.run import add_store_option

    verbs = add_verb_group(
        subparsers,
        "judge",
        help="serve the local judge model or check a judge endpoint",
        description="Serve the local judge over an OpenAI-compatible API, or send two probe "
        "questions to a judge and show its replies, tokens and latency. The bundled "
        "SmolLM2-135M is for plumbing only (it parrots prompt examples).",
        metavar="ACTION",
    )

    serve = verbs.add_parser(
        "serve",
        help="serve the local judge as an OpenAI-compatible endpoint (127.0.0.1); "
        "the bundled SmolLM2-135M is for plumbing only",
    )
    serve.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=8765, help="port (default 8765; 0 for any free port)"
    )
    serve.add_argument("--model-path", help="a GGUF chat model (default: SmolLM2-135M-Instruct)")
    serve.add_argument("--max-new-tokens", type=int, default=256, help="reply length cap")
    serve.add_argument(
        "--no-structured-output",
        action="store_true",
        help="answer 400 to response_format json_schema (to test clients' fallback)",
    )
    serve.set_defaults(handler=_serve)

    check = verbs.add_parser(
        "check",
        help="ask a judge two probe questions with opposite answers; exit 1 unless both are "
        "answered correctly (a copied example or the same verdict twice fails); also lists "
        "the judge's stored calibrations",
    )
    add_judge_options(check, required=True)
    check.add_argument(
        "--json", action="store_true", help="print the whole report (replies, tokens) as JSON"
    )
    add_store_option(check)
    check.set_defaults(handler=_check)
    add_label_verbs(verbs)


def _serve(args: argparse.Namespace) -> int:
    from tooleval.cli._ports import bound_port, listen

    # The port first: a busy one is one line and exit 2 before the model loads for seconds.
    sock = listen(args.host, args.port)
    try:
        return _serve_on(args, sock, bound_port(sock))
    finally:
        sock.close()


def _serve_on(args: argparse.Namespace, sock: Any, port: int) -> int:
    from tooleval.llm.local import PLUMBING_ONLY, LocalJudge, load_local_model
    from tooleval.llm.serve import serve

    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: serving the judge on {args.host}, reachable from other machines")
    judge = LocalJudge(args.model_path, max_new_tokens=args.max_new_tokens, cache=False)
    if args.model_path is None:
        print(f"note: {PLUMBING_ONLY}")
    print(f"loading {judge.model} ...")
    sys.stdout.flush()
    # Loaded before the server answers: a bad file is one line and exit 2; connections
    # made meanwhile wait in the bound port's backlog. GET /health answers
    # {"status": "ready"} from the first request on.
    loaded = load_local_model(args.model_path)
    print(
        f"serving {judge.model} at http://{args.host}:{port}/v1 "
        f"(loaded in {loaded.load_seconds:.1f} s; readiness: GET /health)"
    )
    sys.stdout.flush()
    serve(judge, sock=sock, structured_output=not args.no_structured_output)
    return 0


def probe_status(reply: Any, expected: bool) -> str:
    """``correct``, ``wrong verdict``, ``repeats the example`` or ``unparsable``.

    >>> from tooleval.llm.reply import JudgeReply
    >>> probe_status(JudgeReply(text=PROBE_EXAMPLE), True)
    'repeats the example'
    """
    from tooleval.judged.prompts import repeats_example

    if repeats_example(reply.text, PROBE_EXAMPLE):
        return "repeats the example"
    if reply.parsed is None:
        return "unparsable"
    return "correct" if reply.parsed["tool_failed"] is expected else "wrong verdict"


def _check(args: argparse.Namespace) -> int:
    from tooleval.cli.judge_labels import judge_config
    from tooleval.llm.config import judge_from_config

    config = judge_config(args)
    if config is None:  # argparse requires --local or --base-url
        raise ConfigError("expected --local or --base-url", field="--base-url")
    judge = judge_from_config(config, field="--judge")
    probes = []
    for name, prompt, expected in PROBES:
        reply = judge.complete([{"role": "user", "content": prompt}], schema=PROBE_SCHEMA)
        probes.append(
            {
                "probe": name,
                "expected_tool_failed": expected,
                "status": probe_status(reply, expected),
                "reply": reply.text,
                "parsed": reply.parsed,
                "parse_error": reply.parse_error,
                "tokens_in": reply.tokens_in,
                "tokens_out": reply.tokens_out,
                "latency_ms": round(reply.latency_ms, 1),
            }
        )
    passed = all(p["status"] == "correct" for p in probes)
    report = {
        "judge": judge.describe(),
        "passed": passed,
        "probes": probes,
        "structured_output": getattr(judge, "structured_supported", None),
        "calibrations": _calibrations(args, str(getattr(judge, "model", ""))),
    }
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_check(report)
    if not passed:
        problems = "; ".join(f"{p['probe']}: {p['status']}" for p in probes)
        print(f"the judge did not answer both probes correctly ({problems})", file=sys.stderr)
        return 1
    return 0


def _calibrations(args: argparse.Namespace, model: str) -> list[dict[str, Any]] | None:
    """The judge's stored calibrations (newest first), or None when there is no store."""
    from tooleval.cli.run import open_cli_store
    from tooleval.errors import MissingExtraError, StoreError

    try:
        store = open_cli_store(args)
    except (StoreError, MissingExtraError):  # no store here, or no store extra: nothing known
        return None
    with store:
        found = store.labels.calibrations(model=model, limit=20)
    return [
        {
            "id": c.id,
            "created_at": c.created_at,
            "source": c.source,
            "identity": c.identity,
            "compared": c.report.get("compared"),
            "kappa": c.report.get("kappa"),
            "tpr": c.report.get("tpr"),
            "tnr": c.report.get("tnr"),
        }
        for c in found
    ]


def _print_calibrations(calibrations: list[dict[str, Any]] | None) -> None:
    if calibrations is None:
        print("calibrations: no run store here (--store), so none known")
        return
    if not calibrations:
        print(
            "calibrations: none for this model; measure it with "
            "`tooleval judge calibrate RUN --metric M` on labelled rows"
        )
        return
    print("calibrations (newest first):")
    for c in calibrations:
        tpr, tnr, kappa = c["tpr"], c["tnr"], c["kappa"]
        shown = "kappa n/a" if kappa is None else f"kappa {kappa:.2f}"
        for name, figure in (("TPR", tpr), ("TNR", tnr)):
            shown += f", {name} n/a" if not figure else f", {name} {figure['value']:.0%}"
        print(
            f"  {c['identity'].get('metric')} (prompt {c['identity'].get('prompt_version')}): "
            f"{shown} on {c['compared']} labelled rows, {c['source']}, {c['created_at'][:10]}"
        )


def _print_check(report: dict[str, Any]) -> None:
    """The probe report as a person reads it: the judge, one line per probe, the verdict."""
    from tooleval.cli.main import one_line

    judge = report["judge"]
    name = judge.get("model") if isinstance(judge, dict) else judge
    structured = report.get("structured_output")
    if structured is None:
        mode = "reply format unknown"
    else:
        mode = "structured output" if structured else "free text (no structured output)"
    print(f"judge {name}: {mode}")
    for probe in report["probes"]:
        mark = "ok  " if probe["status"] == "correct" else "FAIL"
        tokens = f"{probe['tokens_in'] or 0}+{probe['tokens_out'] or 0} tokens"
        print(
            f"  {mark} {probe['probe']}: {probe['status']} "
            f"({probe['latency_ms']:.0f} ms, {tokens}); reply: {one_line(probe['reply'], 120)}"
        )
    _print_calibrations(report.get("calibrations"))
    verdict = "passed: both probes answered correctly" if report["passed"] else "failed"
    print(f"check {verdict} (--json for the whole report)")
