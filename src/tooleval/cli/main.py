"""``tooleval`` entry point.

:data:`COMMANDS` is the command table: each command (a word, or two for a command that lives
under another, ``monitor serve``) and the function of :mod:`tooleval.cli` that adds it
(``module``: its ``register(subparsers)``; ``module:function`` another one). A new command is one line there. Modules import
their heavy dependencies inside the command handler, and a known command builds only its
own module's parser, so ``tooleval score`` starts without importing the others. A handler
returns the process exit code: 0 success (gate passed), 1 gate failed, 2 usage or input
error. Library errors become one-line messages, never tracebacks; an unexpected exception
is exit 3 with one line, its traceback written to a log file whose path the line gives
(printed instead under ``--debug``). The codes and message classes are listed in
docs/errors.md.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
import tempfile
import traceback
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from tooleval._extras import for_missing
from tooleval.errors import ToolEvalError
from tooleval.stdio import guard_closed_streams

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
DEBUG_FLAG = "--debug"

# command -> module of tooleval.cli that registers it, in the order `tooleval --help` lists them.
COMMANDS: dict[tuple[str, ...], str] = {
    ("init",): "init",
    ("score",): "score",
    ("metrics",): "metrics",
    ("bfcl",): "bfcl",
    ("dataset",): "dataset",
    ("connector",): "connector",
    ("run",): "run",
    ("rescore",): "rescore",
    ("runs",): "runs",
    ("compare",): "compare",
    ("power",): "power",
    ("report",): "report",
    ("view",): "view",
    ("aggregate",): "aggregate",
    ("judge",): "judge",
    ("monitor",): "monitor",
    ("monitor", "serve"): "monitor_serve:register_serve",
    ("collect",): "monitor_serve",  # the receiver's older, one-word name
    ("trace",): "trace",
    ("serve",): "serve",
}


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


class _Parser(argparse.ArgumentParser):
    """argparse with git's and ruff's habit: a mistyped choice gets "did you mean".

    Every command's and verb's parser is made by its parent's ``add_parser``, so of this
    class too: a mistyped command (``tooleval scroe``), verb or choice value gets the nearest
    valid one named.
    """

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is not None and value not in choices:
            names = [str(c) for c in choices]
            near = difflib.get_close_matches(str(value), names, n=1)
            if near:
                raise argparse.ArgumentError(
                    action,
                    f"invalid choice: {value!r} (did you mean {near[0]!r}?); "
                    f"expected one of {', '.join(names)}",
                )
        super()._check_value(action, value)


def unknown_options_message(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """``unrecognized arguments: ...`` with the nearest option of the command for each typo.

    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("--metric")
    >>> unknown_options_message(p, ["--metrc", "x"])
    "unrecognized arguments: --metrc x (did you mean '--metric'?)"
    """
    known = [o for o in parser._option_string_actions if o.startswith("--")]
    hints = []
    for extra in extras:
        if not extra.startswith("--"):
            continue
        near = difflib.get_close_matches(extra.partition("=")[0], known, n=1)
        if near:
            hints.append(f"{extra.partition('=')[0]}: did you mean {near[0]!r}?")
    said = f"unrecognized arguments: {' '.join(extras)}"
    if len(hints) == 1:
        return f"{said} ({hints[0].partition(': ')[2]})"
    return f"{said} ({'; '.join(hints)})" if hints else said


def _register(subparsers: argparse._SubParsersAction, command: tuple[str, ...]) -> None:
    module, _, function = COMMANDS[command].partition(":")
    getattr(importlib.import_module(f"tooleval.cli.{module}"), function or "register")(subparsers)
    for parser in set(subparsers.choices.values()):
        _refuse_repeats(parser)


def _refuse_repeats(parser: argparse.ArgumentParser) -> None:
    """Every command and verb: a single-value option given twice is refused, never replaced."""
    from tooleval.cli._options import refuse_repeats

    refuse_repeats(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for verb in set(action.choices.values()):
                _refuse_repeats(verb)


def _root() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = _Parser(
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
        "-V",
        "--version",
        action=_Version,
        nargs=0,
        help="print the version and whether the compiled kernel is in use, and exit",
    )
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND")


def build_parser() -> argparse.ArgumentParser:
    """The ``tooleval`` parser with every one-word command.

    A two-word command (``monitor serve``) is named in its parent's help and gets its own
    parser when the command line starts with it.
    """
    parser, subparsers = _root()
    for command in COMMANDS:
        if len(command) == 1:
            _register(subparsers, command)
    return parser


def _command_of(argv: list[str]) -> tuple[str, ...] | None:
    """The longest command of the table that ``argv`` starts with (``--debug`` aside)."""
    words = [a for a in argv if a != DEBUG_FLAG]
    found = [c for c in COMMANDS if tuple(words[: len(c)]) == c]
    return max(found, key=len) if found else None


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """Only the command's own module when ``argv`` starts with a command of the table.

    A command then starts without importing every other command's module (a
    tenth of a second of ``tooleval score`` on a small file); anything else
    (``--help``, a typo) gets the full parser and its messages.
    """
    command = _command_of(argv)
    if command is None:
        return build_parser()
    parser, subparsers = _root()
    if len(command) == 2:  # `tooleval monitor serve`: the parent holds only this verb here
        parent = subparsers.add_parser(command[0])
        subparsers = parent.add_subparsers(dest=f"{command[0]}_command", metavar="VERB")
    _register(subparsers, command)
    return parser


def _chosen_parser(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The deepest (sub)parser that ``args`` went through."""
    while True:
        verbs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = getattr(args, verbs[0].dest, None) if verbs else None
        if not verbs or chosen not in verbs[0].choices:
            return parser
        parser = verbs[0].choices[chosen]


def _warning_line(command: str) -> Any:
    """Warnings the library gives, printed as one line each (never a source excerpt)."""

    def show(message: Warning | str, *_: object, **__: object) -> None:
        print(f"tooleval {command}: warning: {one_line(message)}", file=sys.stderr)

    return show


def one_line(text: object, limit: int = 500) -> str:
    """A message on one line: newlines and control characters become spaces.

    >>> one_line("bad\\nrow\\x1b[31m")
    'bad row [31m'
    """
    flat = "".join(c if c.isprintable() else " " for c in str(text))
    flat = " ".join(flat.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def main(argv: Sequence[str] | None = None) -> int:
    """The ``tooleval`` command: parse ``argv`` (the process's own when None), run, exit code.

    Run as the process's command (``argv`` None) after Parquet was read, the
    process ends here once Python's own exit work is done (:func:`_end_process`):
    Arrow's native thread pools, torn down by C++ static destructors at exit,
    can abort a finished command ("terminate called without an active
    exception", exit -6) on a busy machine. Called with ``argv`` (tests, embedding),
    it only returns the code: ``main(["score", "rows.jsonl", "--metric",
    "tool_correctness"])`` is the command ``tooleval score rows.jsonl --metric
    tool_correctness``.
    """
    code = _run(argv)
    if argv is None and "pyarrow" in sys.modules:
        _end_process(code)
    return code


def _end_process(code: int) -> NoReturn:
    """End as the interpreter would (threads joined, atexit handlers run, streams flushed),
    without the native teardown that follows."""
    import atexit
    import contextlib
    import threading

    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed or broken: nothing to write
            stream.flush()
    os._exit(code)


def _run(argv: Sequence[str] | None) -> int:
    guard_closed_streams()  # a closed stdin/stdout/stderr: /dev/null in its place, '-' refused
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = DEBUG_FLAG in argv
    if debug:  # accepted anywhere, not only before the command
        argv = [DEBUG_FLAG] + [a for a in argv if a != DEBUG_FLAG]
    parser = _parser_for(argv)
    args, extras = parser.parse_known_args(argv)
    if extras:  # said by the command's own parser, so the usage line is the command's
        chosen = _chosen_parser(parser, args)
        chosen.error(unknown_options_message(chosen, extras))
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    command = " ".join(_command_of(argv) or (args.command,))
    warnings.showwarning = _warning_line(command)
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
