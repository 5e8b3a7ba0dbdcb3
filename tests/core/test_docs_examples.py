"""Every Python block in README.md and docs/ runs, in order, page by page.

A page's blocks share one namespace, as a reader follows them. Two HTML comments (invisible
when the page is rendered) say what a block needs:

- ``<!-- docs-test: setup -->`` followed by a fenced ``python`` block inside the comment:
  code run before the next visible block (the inputs a snippet takes for granted, such as
  ``messages`` or a stored run);
- ``<!-- docs-test: skip REASON -->`` right before a block: the block is not run, and the
  reason says why (a live agent, an API key). A skip without a reason fails.

Blocks run in a temporary folder holding a copy of ``examples/``, with a store of their own;
setup blocks build what examples read with ``tests/core/docs_support.py``.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..conftest import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]
# a visible python block, or a hidden setup block, or a skip marker
_PIECE = re.compile(
    r"<!-- docs-test: setup\s*\n```python\n(?P<setup>.*?)```\s*-->"
    r"|<!-- docs-test: skip(?P<skip>[^>]*?)-->\s*\n```python\n(?P<skipped>.*?)```"
    r"|^```python\n(?P<code>.*?)^```",
    re.S | re.M,
)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    code: str
    kind: str  # "setup", "code" or "skip"
    reason: str = ""


def blocks(page: Path) -> list[Block]:
    """The page's Python blocks in order, with what the comments say of each."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _PIECE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if match.group("setup") is not None:
            found.append(Block(page, line, match.group("setup"), "setup"))
        elif match.group("skipped") is not None:
            reason = match.group("skip").strip()
            found.append(Block(page, line, match.group("skipped"), "skip", reason))
        else:
            found.append(Block(page, line, match.group("code"), "code"))
    return found


WITH_CODE = [p for p in PAGES if any(b.kind == "code" for b in blocks(p))]


def _name(page: Path) -> str:
    return str(page.relative_to(REPO_ROOT))


@pytest.mark.parametrize("page", WITH_CODE, ids=_name)
def test_every_python_block_of_the_page_runs(page, tmp_path, monkeypatch, capsys):
    shutil.copytree(REPO_ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(REPO_ROOT))  # setup blocks use tests/core/docs_support.py
    monkeypatch.setenv("TOOLEVAL_STORE", f"sqlite:///{tmp_path / 'runs.db'}")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in blocks(page):
        if block.kind == "skip":
            continue
        where = f"{_name(page)}:{block.line}"
        try:
            _run(block.code, where, namespace)
        except Exception as exc:
            pytest.fail(f"the {block.kind} block at {where} raised {type(exc).__name__}: {exc}")
    capsys.readouterr()


def _run(code: str, where: str, namespace: dict[str, object]) -> None:
    """Run the docs' own code; a block with a top-level ``await`` runs in an event loop."""
    compiled = compile(code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    if compiled.co_flags & inspect.CO_COROUTINE:
        asyncio.run(eval(compiled, namespace))
    else:
        exec(compiled, namespace)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_a_block_not_run_says_why(page):
    for block in blocks(page):
        if block.kind == "skip":
            assert len(block.reason) > 10, f"{_name(page)}:{block.line}: a skip needs a reason"


def test_the_parser_sees_every_python_fence():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        fences = len(re.findall(r"^```python$", text, re.M))
        assert fences == len(blocks(page)), f"{_name(page)}: a python block was not recognised"
