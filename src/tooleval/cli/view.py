"""``tooleval view``: browse stored runs in a local web viewer (127.0.0.1 by default)."""

from __future__ import annotations

import argparse
import sys

from tooleval._extras import install_hint


def register(subparsers: argparse._SubParsersAction) -> None:
    from tooleval.cli.run import add_store_option

    parser = subparsers.add_parser(
        "view",
        help="browse stored runs in a local web viewer (needs the web extra)",
        description="Serve the run store as web pages: runs, one run with filters and pages, "
        "one row with its tool-call chips, and a comparison of two runs. Listens on "
        "127.0.0.1 only, unless --host says otherwise.",
    )
    add_store_option(parser)
    parser.add_argument(
        "--port", type=int, default=8765, help="port (default 8765; 0 for any free port)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; anything else exposes run data)",
    )
    parser.add_argument(
        "--allow-labels",
        action="store_true",
        help="let row pages store human labels (keys p / f, a note); read-only without it",
    )
    parser.set_defaults(handler=view)


def view(args: argparse.Namespace) -> int:
    from tooleval.calibration import gate_calibrations
    from tooleval.cli._ports import bound_port, check_port, listen
    from tooleval.cli.run import open_cli_store
    from tooleval.errors import ConfigError
    from tooleval.web import is_loopback

    check_port(args.port)
    try:
        import uvicorn

        from tooleval.web.app import create_app
    except ImportError as exc:
        raise ConfigError(
            f"the viewer needs the web extra ({exc.name} is missing): {install_hint('web')}"
        ) from None
    if args.allow_labels and not is_loopback(args.host):
        raise ConfigError(
            f"--allow-labels writes to the store: the viewer must listen on a loopback address "
            f"(127.0.0.1, ::1), not {args.host}",
            field="--allow-labels",
        )
    if not is_loopback(args.host):
        print(
            f"tooleval view: warning: listening on {args.host}: run data (agent inputs, outputs "
            "and tool arguments) becomes visible to the network",
            file=sys.stderr,
        )
    with open_cli_store(args) as store:
        app = create_app(
            store, host=args.host, allow_labels=args.allow_labels, calibrations=gate_calibrations
        )
        # The port is taken before the address is printed: a busy one is one line, exit 2.
        sock = listen(args.host, args.port)
        shown = f"[{args.host}]" if ":" in args.host else args.host
        print(
            f"tooleval viewer on http://{shown}:{bound_port(sock)}/ (Ctrl+C to stop)",
            file=sys.stderr,
        )
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        try:
            server.run(sockets=[sock])
        finally:
            sock.close()
    return 0
