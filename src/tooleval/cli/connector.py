"""``tooleval connector test PLAN_OR_CONNECTOR_FILE [--input TEXT]``.

Sends one request through the plan's connector and prints the raw response,
what each JSONPath extracted and the verdict. A plan's ``environment`` is
served as ``tooleval run`` serves it (the ``openai`` tool loop, or a
connector's ``serve``): the tools called are those tooleval ran and recorded. Exit 0 when the plumbing is OK,
1 when a problem was found (objects instead of names, a path that matches
nothing, HTTP failure), 2 for a bad file or option.
"""

from __future__ import annotations

import argparse
import json

from tooleval.cli._groups import add_verb_group


def register(subparsers: argparse._SubParsersAction) -> None:
    verbs = add_verb_group(
        subparsers,
        "connector",
        help="check a connector against the live agent",
        description="Work with connectors (the plumbing between tooleval and your agent).",
    )
    test = verbs.add_parser(
        "test",
        help="send one request and show what each response path extracts",
        description=(
            "Send one request through the connector of a plan (or a YAML file holding only a "
            "connector mapping), print the raw response, what each JSONPath extracted, and "
            "the verdict. Exit 0 OK, 1 problem found, 2 bad file/options."
        ),
    )
    test.add_argument("file", metavar="PLAN_OR_CONNECTOR_FILE", help="YAML plan or connector file")
    test.add_argument("--input", default="Hello", help="the input text to send (default: Hello)")
    test.add_argument("--id", default="connector-test", help="row id placed in {{id}}")
    test.add_argument("--json", action="store_true", help="print the report as JSON")
    test.set_defaults(handler=_test)


def _test(args: argparse.Namespace) -> int:
    from tooleval.connectors.probe import format_probe, probe
    from tooleval.model import Sample
    from tooleval.serving.connector import load_connector_file  # a plan's environment is served

    connector = load_connector_file(args.file)
    try:
        report = probe(connector, Sample(input=args.input, id=args.id))
    finally:
        connector.close()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, default=str, ensure_ascii=False))
    else:
        from tooleval.textsafe import visible

        # The agent's reply is shown as text, never as terminal escapes.
        print(visible(format_probe(report)))
    return 0 if report.ok else 1
