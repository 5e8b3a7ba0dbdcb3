"""``tooleval init [DIR]``: a plan, cases, an agent stub or connector, a pytest file and a
GitHub Actions workflow, that ``tooleval run`` passes at once.

Asks for the agent (a Python function, an HTTP endpoint or an OpenAI-compatible chat
server) on a terminal when ``--agent`` is not given; ``--agent`` and its options (or
``--no-input``) answer without asking. Never overwrites: when any file it would write
exists, it writes nothing and names them (exit 2).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from tooleval.cli._scaffold import AGENT_KINDS, PLAN_FILE, scaffold_files
from tooleval.errors import ConfigError

DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "init",
        help="write a plan, cases, an agent stub, a pytest file and a CI workflow",
        description="Scaffold an evaluation that `tooleval run` passes at once: a plan with a "
        "release gate, cases with expected calls (restraint rows too), an agent stub (or a "
        "connector for your endpoint), a pytest file and a GitHub Actions workflow. Existing "
        "files are never overwritten (exit 2, nothing written).",
    )
    parser.add_argument("dir", nargs="?", default=".", help="folder to write into (default: .)")
    parser.add_argument(
        "--agent",
        choices=AGENT_KINDS,
        help="python: a function stub (agent.py); http: your agent's URL; openai: a chat "
        "server with tools (default: asked on a terminal, else python)",
    )
    parser.add_argument(
        "--url",
        metavar="URL",
        help="the agent's endpoint (with --agent http; default ${AGENT_URL}, read at run time)",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help=f"the chat server (with --agent openai; default {DEFAULT_BASE_URL})",
    )
    parser.add_argument("--model", metavar="NAME", help="the model (with --agent openai)")
    parser.add_argument("--name", metavar="NAME", help="the plan's name (default: the folder's)")
    parser.add_argument(
        "--install",
        metavar="COMMAND",
        help="the workflow's command that installs tooleval (default: one for where this "
        "tooleval came from)",
    )
    parser.add_argument(
        "--no-input", action="store_true", help="never ask; defaults for what is not given"
    )
    parser.set_defaults(handler=init)


def _check_option_pairs(args: argparse.Namespace) -> None:
    """An option that belongs to another agent kind is refused, naming the one it needs."""
    for option, value, kind in (
        ("--url", args.url, "http"),
        ("--base-url", args.base_url, "openai"),
        ("--model", args.model, "openai"),
    ):
        if value is not None and args.agent != kind:
            given = f"--agent {args.agent}" if args.agent else "no --agent"
            raise ConfigError(f"{option} needs --agent {kind} (got {given})", field=option)


def _ask(question: str, default: str, read: Callable[[str], str]) -> str:
    answer = read(f"{question} [{default}]: ").strip()
    return answer or default


def _answers(args: argparse.Namespace, read: Callable[[str], str] | None) -> None:
    """Fill in what the flags left open: asked on a terminal, defaults otherwise."""
    if read is not None and args.agent is None:
        kinds = "/".join(AGENT_KINDS)
        while args.agent not in AGENT_KINDS:
            args.agent = _ask(f"your agent: {kinds}", "python", read)
        if args.agent == "http" and args.url is None:
            args.url = _ask(
                "its URL (${AGENT_URL}: read when the run starts)", "${AGENT_URL}", read
            )
        if args.agent == "openai":
            args.base_url = args.base_url or _ask("the chat server", DEFAULT_BASE_URL, read)
            args.model = args.model or _ask("the model", "my-model", read)
    args.agent = args.agent or "python"


def workflow_install() -> str:
    """The workflow's install command for where this tooleval came from."""
    import tooleval
    from tooleval._extras import origin

    if origin().kind == "index":
        return f"python -m pip install 'tooleval[runs]=={tooleval.__version__}'"
    source = _source_url() or "https://github.com/tooleval/tooleval"
    # tooleval is not on a package index here: the workflow builds it from its repository
    return f"python -m pip install 'tooleval[runs] @ git+{source}'"


def _source_url() -> str | None:
    from importlib import metadata

    try:
        urls = metadata.metadata("tooleval").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "source":
            return url.strip()
    return None


def init(args: argparse.Namespace) -> int:
    _check_option_pairs(args)
    interactive = not args.no_input and sys.stdin.isatty()
    _answers(args, input if interactive else None)
    folder = Path(args.dir)
    if folder.exists() and not folder.is_dir():
        raise ConfigError("expected a folder, got a file", field="DIR", file=str(folder))
    name = args.name or folder.resolve().name or "agent-eval"
    files = scaffold_files(
        name=name,
        agent=args.agent,
        url=args.url or "${AGENT_URL}",
        base_url=args.base_url or DEFAULT_BASE_URL,
        model=args.model or "my-model",
        install=args.install or workflow_install(),
    )
    existing = [path for path in files if os.path.lexists(folder / path)]
    if existing:
        raise ConfigError(
            f"{', '.join(existing)} already exist{'s' if len(existing) == 1 else ''} in "
            f"{folder}; nothing was written (tooleval init never overwrites: move them or "
            "choose another folder)",
            field="DIR",
        )
    written: list[Path] = []
    try:
        for relative, text in files.items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("x", encoding="utf-8") as handle:  # "x": never over a file
                handle.write(text)
            written.append(path)
    except FileExistsError as exc:  # made by someone else meanwhile: undo ours
        for path in written:
            path.unlink()
        raise ConfigError(
            "appeared while writing; nothing was written", field="DIR", file=str(exc.filename)
        ) from None
    for path in written:
        print(f"wrote {path}")
    plan = folder / PLAN_FILE
    print(f"next: tooleval run {plan}   (then: python -m pytest {folder / 'test_agent.py'})")
    return 0
