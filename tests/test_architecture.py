"""The layers of docs/architecture.md, enforced on every import in src/tooleval.

Every ``import`` and ``from ... import`` is read, including the ones inside
functions (an import moved into a function to dodge a cycle is still an
import). A package may import only the packages listed for it in ``ALLOWED``;
``BASE`` modules (errors, text and file safety, the compiled kernel) hold no
domain knowledge and may be imported from anywhere.

Outside the store, only its public read/write surface is imported
(``tooleval.store`` and its records), never its internals (SQL, queries, engine).

``KNOWN_DEBT`` lists the imports that still break the layers, by package, each
with the plan that removes it. The test fails when a new one appears and also when a
listed one is gone, so the list is always exact and only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "tooleval"

BASE = {
    "errors",
    "textsafe",
    "urlsafe",
    "stdio",
    "event_loop",
    "io_atomic",
    "http_deadline",
    "user_deadline",
    "_kernel",
    "_extras",
    "plugins",
}

# package -> the packages of ours it may import (besides BASE and itself), bottom up.
ALLOWED: dict[str, set[str]] = {
    "model": set(),
    "matching": {"model"},
    "metrics": {"model", "matching"},
    "formats": {"model"},
    # OTLP / OTel GenAI / OpenInference readers: foreign trace formats, read for monitor/.
    "traces": {"model", "formats"},
    "llm": {"model"},
    "store": {"model"},
    # Intervals, paired tests, power and verdicts over numbers: no I/O, no store.
    "stats": {"model"},
    "judged": {"model", "llm"},
    # Judges measured against a run's human labels; judged rates corrected for their error.
    "calibration": {"model", "formats", "llm", "judged", "stats", "store"},
    # Simulated users (a chat model playing the user) and their deterministic audit.
    "simulators": {"model", "llm"},
    # Replaying calls on environments and comparing end states (state_match).
    "environments": {"model", "matching", "metrics"},
    # The one scoring pipeline (row -> sample -> result -> line) and its error policy.
    "scoring": {"model", "formats", "metrics"},
    "datasets": {"model", "formats"},
    "connectors": {"model", "formats"},
    # Monitoring runs detectors and (sampled) judged metrics over sessions read from traces.
    "monitor": {"model", "formats", "traces", "store", "llm", "judged"},
    # One folder per benchmark: readers, decoders, grading metrics, detection, the records.
    # (and replay on the benchmark's own environments: BFCL multi-turn, tau-bench).
    "benchmarks": {"model", "matching", "metrics", "formats", "environments"},
    # Environments served to the agent under test (the openai tool loop; tau-bench's domains).
    "serving": {
        "model",
        "formats",
        "connectors",
        "environments",
        "benchmarks",
        "llm",
        "simulators",
    },
    "analysis": {"model", "store", "metrics", "stats"},
    "runs": {
        "model",
        "matching",
        "metrics",
        "formats",
        "llm",
        "store",
        "judged",
        "datasets",
        "connectors",
        "analysis",
        "stats",
        "scoring",
        "environments",
        "calibration",
        "serving",
    },
    "report": {"model", "store", "analysis", "stats"},
    "web": {"model", "store", "analysis", "report", "stats"},
    "scale": {"model", "formats", "metrics", "monitor", "scoring"},
    "testing": {"model", "formats", "metrics", "datasets", "scoring"},
    "pytest_plugin": {"model", "formats", "metrics", "datasets", "testing", "scoring"},
    "compat": {"model", "matching", "metrics", "__init__"},
    # Adapters for other evaluation tools (inspect_ai, promptfoo): the public layers.
    "integrations": {"model", "formats", "metrics", "errors"},
    # tooleval.evaluate: datasets and metrics in, through the scoring pipeline, results out.
    "evaluation": {
        "benchmarks",
        "datasets",
        "formats",
        "llm",
        "metrics",
        "model",
        "scoring",
        "stats",
    },
}
TOP = {"cli", "__init__", "__main__"}  # the command line (and `python -m tooleval`) and the
# curated public surface see everything

# Outside the store, these are its public surface; any other tooleval.store.X is internal.
STORE_PUBLIC = {"tooleval.store", "tooleval.store.records"}

# (importing package, imported package or "store internals"): what removes it.
KNOWN_DEBT: dict[tuple[str, str], str] = {}


def _package(path: Path) -> str:
    first = path.relative_to(SRC).parts[0]
    return first[:-3] if first.endswith(".py") else first


def _is_module(name: str) -> bool:
    """Whether ``tooleval.a.b`` names a module or package of ours (not a name inside one)."""
    path = SRC.joinpath(*name.split(".")[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported_modules(path: Path) -> set[str]:
    """Every ``tooleval`` module that ``path`` imports anywhere in its body."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "tooleval":
                names = [f"tooleval.{alias.name}" for alias in node.names]
            else:  # `from tooleval.store import aggregates` imports a submodule
                names += [
                    f"{node.module}.{alias.name}"
                    for alias in node.names
                    if _is_module(f"{node.module}.{alias.name}")
                ]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found.update(name for name in names if name.split(".")[0] == "tooleval")
    return found


def _imported_packages(path: Path) -> set[str]:
    """Our top-level packages that ``path`` imports anywhere in its body."""
    return {name.split(".")[1] if "." in name else "__init__" for name in _imported_modules(path)}


def _violations() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in sorted(SRC.rglob("*.py")):
        package = _package(path)
        allowed = ALLOWED.get(package)
        assert allowed is not None or package in BASE | TOP, (
            f"{path.relative_to(SRC)} is in package {package!r}, which has no place in the "
            "layers: add it to ALLOWED (and to docs/architecture.md)"
        )
        if package != "store" and any(
            name.startswith("tooleval.store.") and name not in STORE_PUBLIC
            for name in _imported_modules(path)
        ):
            found.add((package, "store internals"))
        if package in TOP:
            continue
        allowed = (allowed or set()) | BASE | {package}
        for imported in _imported_packages(path) - allowed:
            found.add((package, imported))
    return found


def test_every_import_respects_the_layers():
    new = _violations() - set(KNOWN_DEBT)
    assert not new, "imports that break the layers (see docs/architecture.md):\n" + "\n".join(
        f"  {package} imports {imported}" for package, imported in sorted(new)
    )


def test_known_debt_is_exact():
    gone = set(KNOWN_DEBT) - _violations()
    assert not gone, "layer debt paid off; remove it from KNOWN_DEBT:\n" + "\n".join(
        f"  {package} -> {imported}" for package, imported in sorted(gone)
    )


def test_base_modules_import_only_base():
    for name in BASE - {"_kernel"}:
        path = SRC / f"{name}.py"
        if path.exists():
            assert _imported_packages(path) <= BASE, name


def test_function_level_imports_are_seen(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from tooleval.runs import runner\n    import tooleval.web\n")
    assert _imported_packages(module) == {"runs", "web"}


def test_the_layer_table_of_docs_contributing_is_the_contract():
    text = (SRC.parents[1] / "docs" / "contributing.md").read_text(encoding="utf-8")
    table = text.split("| package | may import |", 1)[1]
    documented: dict[str, set[str]] = {}
    for line in table.splitlines()[2:]:
        if not line.startswith("| `"):
            break
        package, allowed = (cell.strip() for cell in line.strip("|").split("|"))
        documented[package.strip("`")] = {a.strip(" `") for a in allowed.split(",")} - {
            "nothing (base only)"
        }
    assert documented == ALLOWED
