"""``tooleval`` entry point.

Every module in :mod:`tooleval.cli` that defines ``register(subparsers)``
adds its own sub-command; modules import their heavy dependencies inside the
command handler so ``tooleval --help`` stays fast. A handler returns the
process exit code: 0 success (gate passed), 1 gate failed, 2 usage or input
error. Library errors become one-line messages, never tracebacks.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from tooleval.errors import ToolEvalError

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    import tooleval.cli as cli_package

    parser = argparse.ArgumentParser(
        prog="tooleval",
        description="Evaluate what AI agents do: score their tool calls.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name):
        if info.name in {"main"} or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"tooleval.cli.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(handler(args) or 0)
    except ToolEvalError as exc:
        print(f"tooleval {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"tooleval {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
