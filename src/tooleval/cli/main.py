"""``tooleval`` entry point.

Every module in :mod:`tooleval.cli` that defines ``register(subparsers)``
adds its own sub-command; modules import their heavy dependencies inside the
command handler so ``tooleval --help`` stays fast. A handler returns the
process exit code: 0 success (gate passed), 1 gate failed, 2 usage or input
error. Library errors become one-line messages, never tracebacks; an
unexpected exception is exit 3 with one line, its traceback written to a log
file whose path the line gives (printed instead under ``--debug``). The codes
and message classes are listed in docs/errors.md.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import tempfile
import traceback
from collections.abc import Sequence

from tooleval._extras import for_missing
from tooleval.errors import ToolEvalError

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
DEBUG_FLAG = "--debug"


def _command_modules() -> list[str]:
    import tooleval.cli as cli_package

    return [
        info.name
        for info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name)
        if info.name != "main" and not info.name.startswith("_")
    ]


class _Version(argparse.Action):
    """``--version``: the version and whether the compiled kernel is in use (computed when asked)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(version_line())
        parser.exit()


def version_line() -> str:
    """``tooleval X.Y.Z (kernel: compiled|absent ...|disabled ...; Python 3.N.N)``.

    >>> version_line().startswith("tooleval ")
    True
    """
    import platform

    import tooleval
    from tooleval.metrics.engine import kernel_status

    status = kernel_status()
    kernel = {
        "compiled": "compiled",
        "absent": "absent, scoring in pure Python",
        "disabled": "disabled by TOOLEVAL_NO_KERNEL",
    }.get(status, status)
    return f"tooleval {tooleval.__version__} (kernel: {kernel}; Python {platform.python_version()})"


def _parser(modules: list[str]) -> tuple[argparse.ArgumentParser, set[str]]:
    """The ``tooleval`` parser with the commands of ``modules``, and their names."""
    parser = argparse.ArgumentParser(
        prog="tooleval",
        description="Evaluate what AI agents do: score their tool calls.",
    )
    parser.add_argument(
        DEBUG_FLAG,
        action="store_true",
        help="print the traceback of an unexpected error (exit 3) instead of writing it to a "
        "log file; may be given anywhere on the command line",
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="print the version and whether the compiled kernel is in use, and exit",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        module = importlib.import_module(f"tooleval.cli.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser, set(subparsers.choices)


def build_parser() -> argparse.ArgumentParser:
    """The ``tooleval`` parser with every command."""
    return _parser(_command_modules())[0]


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """Only the command's own module when ``argv`` starts with a command it registers.

    A command then starts without importing every other command's module (a
    tenth of a second of ``tooleval score`` on a small file); anything else
    (``--help``, a typo, a command registered under another module's name)
    gets the full parser and its messages.
    """
    command = next((a for a in argv if a != DEBUG_FLAG), None)
    if command is not None and command.isidentifier() and command in _command_modules():
        parser, commands = _parser([command])
        if command in commands:
            return parser
    return build_parser()


def one_line(text: object, limit: int = 500) -> str:
    """A message on one line: newlines and control characters become spaces.

    >>> one_line("bad\\nrow\\x1b[31m")
    'bad row [31m'
    """
    flat = "".join(c if c.isprintable() else " " for c in str(text))
    flat = " ".join(flat.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["monitor", "serve"]:  # the OTLP receiver lives in cli/monitor_serve.py
        argv = ["collect", *argv[2:]]
    debug = DEBUG_FLAG in argv
    if debug:  # accepted anywhere, not only before the command
        argv = [DEBUG_FLAG] + [a for a in argv if a != DEBUG_FLAG]
    parser = _parser_for(argv)
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    command = args.command
    try:
        return int(handler(args) or 0)
    except ToolEvalError as exc:
        print(f"tooleval {command}: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"tooleval {command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except RecursionError:
        # A reader below the depth checks met JSON nested past Python's stack.
        print(
            f"tooleval {command}: error: input nested too deeply to read; tooleval reads JSON "
            "nested at most 100 levels",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except OSError as exc:
        # A file the user named cannot be read or written (disk full, permissions, ...).
        where = f"{exc.filename}: " if exc.filename else ""
        reason = exc.strerror or type(exc).__name__
        print(f"tooleval {command}: error: {one_line(where + reason)}", file=sys.stderr)
        return EXIT_USAGE
    except ModuleNotFoundError as exc:  # an optional dependency: name the extra to install
        hint = for_missing(exc)
        if hint is None:
            return _internal_error(command, exc, debug=debug)
        print(f"tooleval {command}: error: {hint}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug: one line and a log, never a traceback on screen
        return _internal_error(command, exc, debug=debug)


def _internal_error(command: str, exc: Exception, *, debug: bool) -> int:
    summary = one_line(f"{type(exc).__name__}: {exc}", limit=300)
    text = "".join(traceback.format_exception(exc))
    if debug:
        sys.stderr.write(text)
        print(f"tooleval {command}: internal error: {summary}", file=sys.stderr)
        return EXIT_INTERNAL
    try:
        fd, log = tempfile.mkstemp(prefix="tooleval-error-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"tooleval {command}\n{text}")
        where = f"traceback in {log}"
    except OSError:
        where = f"rerun with {DEBUG_FLAG} to see the traceback"
    print(
        f"tooleval {command}: internal error: {summary} ({where}; please report it)",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
