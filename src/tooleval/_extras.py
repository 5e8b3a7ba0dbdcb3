"""Optional dependencies: which extra brings each, and the error that says so.

``pip install tooleval`` holds what ``tooleval score`` needs; live runs, the
run store and the connectors need the ``runs`` extra. A package that needs an
extra calls :func:`require` first, so a missing one is one clear error naming
the command to run, not a ``ModuleNotFoundError`` from deep inside.

The command named is one that works where this tooleval came from
(:func:`install_hint`), never an install that cannot succeed:

- a checkout whose ``.venv`` is the running one: ``make extras`` (every extra's
  dependencies, the project and its compiled kernel left as they are);
- another install from a folder (a checkout, an sdist unpacked): the extra's
  own requirements by name, so nothing is rebuilt;
- a wheel file that is still there: ``pip install 'WHEEL[extra]'``;
- a package index (no ``direct_url.json``): ``pip install 'tooleval[extra]'``.

>>> require("runs", "json")  # present: returns nothing
>>> print(install_hint("runs", Origin("index")))
pip install 'tooleval[runs]'
>>> print(install_hint("judge", Origin("folder", requires=("openai>=1.40 ; extra == 'judge'",))))
pip install 'openai>=1.40'
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from urllib.parse import unquote, urlparse

from tooleval.errors import MissingExtraError

__all__ = ["EXTRA_OF", "Origin", "install_hint", "message", "origin", "require", "requirements"]

# top-level module -> the extra that installs it (pyproject.toml [project.optional-dependencies])
EXTRA_OF = {
    "sqlalchemy": "runs",
    "alembic": "runs",
    "httpx": "runs",
    "aiohttp": "runs",
    "jsonpath": "runs",
    "pandas": "pandas",
}

# extras for the project's own tests only: never named to a user, never in `make extras`
TEST_ONLY_EXTRAS = frozenset({"dev", "ragas-compat-test"})
_EXTRA_MARKER = re.compile(
    r"""^\s*(?P<req>[^;]+?)\s*;\s*extra\s*==\s*['"](?P<extra>[\w.-]+)['"]\s*$"""
)
_SELF = re.compile(r"^tooleval\[(?P<extras>[^\]]+)\]$")


@dataclass(frozen=True, slots=True)
class Origin:
    """Where the running tooleval was installed from.

    ``kind`` is ``checkout`` (a source tree with its own ``.venv`` running now),
    ``folder`` (installed from a local directory), ``wheel`` (a wheel file that
    still exists at ``path``) or ``index`` (a package index). ``requires`` are the
    distribution's requirement strings (with their ``extra ==`` markers).
    """

    kind: str
    path: str = ""
    requires: tuple[str, ...] = ()


def requirements(extras: Iterable[str], requires: Sequence[str]) -> list[str]:
    """The requirements the named extras add, an extra's own ``tooleval[...]`` expanded.

    >>> reqs = ["httpx>=0.27 ; extra == 'runs'", "tooleval[runs] ; extra == 'web'",
    ...         "fastapi>=0.110 ; extra == 'web'"]
    >>> requirements(["web"], reqs)
    ['httpx>=0.27', 'fastapi>=0.110']
    """
    by_extra: dict[str, list[str]] = {}
    for line in requires:
        found = _EXTRA_MARKER.match(line)
        if found:
            by_extra.setdefault(found["extra"], []).append(found["req"].replace(" ", ""))
    out: list[str] = []
    seen: set[str] = set()

    def add(extra: str) -> None:
        if extra in seen:
            return
        seen.add(extra)
        for req in by_extra.get(extra, ()):
            nested = _SELF.match(req)
            if nested:
                for inner in nested["extras"].split(","):
                    add(inner.strip())
            elif req not in out:
                out.append(req)

    for extra in extras:
        add(extra)
    return out


def user_extras(requires: Sequence[str]) -> list[str]:
    """Every extra a user may install (the test-only ones left out), in declaration order."""
    names = [m["extra"] for m in map(_EXTRA_MARKER.match, requires) if m]
    return [e for e in dict.fromkeys(names) if e not in TEST_ONLY_EXTRAS]


def origin(dist: metadata.Distribution | None = None) -> Origin:
    """Where this tooleval came from, read from its installed metadata (PEP 610)."""
    if dist is None:
        try:
            dist = metadata.distribution("tooleval")
        except metadata.PackageNotFoundError:
            return _source_tree_origin(())
    requires = tuple(dist.requires or ())
    direct = dist.read_text("direct_url.json")
    if direct is None:
        return Origin("index", requires=requires)
    import json

    try:
        url = str(json.loads(direct).get("url", ""))
    except (ValueError, AttributeError):
        return Origin("folder", requires=requires)
    path = unquote(urlparse(url).path) if url.startswith("file:") else ""
    if path.endswith(".whl") and Path(path).is_file():
        return Origin("wheel", path=path, requires=requires)
    if path and Path(path).is_dir():
        checkout = _source_tree_origin(requires)
        if checkout.kind == "checkout":
            return checkout
    return Origin("folder", path=path, requires=requires)


def _source_tree_origin(requires: tuple[str, ...]) -> Origin:
    """A checkout when the running package is a source tree whose ``.venv`` runs now."""
    package = Path(__file__).resolve().parent
    root = package.parent.parent  # src/tooleval -> the checkout
    venv = root / ".venv"
    is_tree = (root / "pyproject.toml").is_file() and (root / "Makefile").is_file()
    if is_tree and venv.exists() and Path(sys.prefix).resolve() == venv.resolve():
        return Origin("checkout", path=str(root), requires=requires)
    return Origin("folder", path=str(root) if is_tree else "", requires=requires)


def install_hint(extra: str, where: Origin | None = None) -> str:
    """The command that installs ``extra`` for the tooleval that runs now (see the module doc)."""
    where = origin() if where is None else where
    if where.kind == "checkout":
        return f"make extras (in {where.path}: every extra, the kernel is not rebuilt)"
    if where.kind == "wheel":
        return f"pip install '{where.path}[{extra}]'"
    if where.kind == "index":
        return f"pip install 'tooleval[{extra}]'"
    reqs = requirements([extra], where.requires)
    if reqs:
        return "pip install " + " ".join(f"'{r}'" for r in reqs)
    return f"pip install 'tooleval[{extra}]'"


def message(extra: str, module: str) -> str:
    return (
        f"this needs the tooleval[{extra}] extra ({module} is not installed): {install_hint(extra)}"
    )


def require(extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` unless every one of ``modules`` can be imported."""
    for module in modules:
        if find_spec(module) is None:
            raise MissingExtraError(message(extra, module))


def for_missing(exc: ModuleNotFoundError) -> str | None:
    """The install hint for a missing module that an extra brings, or None."""
    top = (exc.name or "").partition(".")[0]
    extra = EXTRA_OF.get(top)
    return message(extra, top) if extra else None


def _main(argv: Sequence[str]) -> int:
    """``python -m tooleval._extras [EXTRA ...]``: one requirement a line (``make extras``).

    Without arguments, every extra a user may install.
    """
    requires = origin().requires
    if not requires:
        print("tooleval's metadata is not installed: run `make demo` first", file=sys.stderr)
        return 2
    for line in requirements(list(argv) or user_extras(requires), requires):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
