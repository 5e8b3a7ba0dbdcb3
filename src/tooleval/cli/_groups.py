"""Commands made of verbs (``tooleval runs list``, ``tooleval judge serve``, ...)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_verb_group"]


def add_verb_group(
    subparsers: Any, name: str, *, metavar: str = "VERB", **parser_options: Any
) -> argparse._SubParsersAction:
    """Add command ``name`` and return the sub-parsers its verbs are added to.

    The command given without a verb prints its help to stderr and exits 2.
    The chosen verb is stored as ``args.<name>_command``.
    """
    parser = subparsers.add_parser(name, **parser_options)
    parser.set_defaults(handler=lambda args: _usage(parser))
    return parser.add_subparsers(dest=f"{name}_command", metavar=metavar)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2
