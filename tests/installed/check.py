"""Install a built tooleval artefact into a fresh venv under /tmp and test it there.

    python tests/installed/check.py dist/tooleval-*.whl --expect compiled
    python tests/installed/check.py dist/tooleval-*.tar.gz --expect absent --no-cargo

Run by ``make test`` for the wheel and the sdist (with cargo and without it). It
times the install, counts what it pulled (packages and size, before any test
dependency is added), checks ``tooleval --version`` and ``python -m tooleval``,
scores ``examples/support_agent.jsonl`` with and without the kernel (same bytes),
checks that a command of the ``runs`` extra names the extra (and, for a wheel,
scores 100,000 two-call rows with the kernel, printing the CPU seconds, and installs
``WHEEL[runs]`` as the example CI workflow does and runs it), then runs pytest
from a folder outside the checkout, so ``import tooleval`` can only find the
installed package: tests/installed and (unless ``--smoke``) the kernel identity
tests (tests/kernel).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# the longest a step may take (an install, the sdist's cargo build, the 100k-row score)
STEP_SECONDS = 1800
TEST_DEPS = ["pytest>=8", "pytest-asyncio>=0.23", "hypothesis>=6.100"]
PYTEST_INI = """[pytest]
addopts = --import-mode=importlib -p no:cacheprovider
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
markers =
    slow: slower tests
    property: hypothesis property tests
    browser: needs Debian chromium
    postgres: needs a PostgreSQL server
    ray: needs a local Ray cluster
    llm: runs the real local judge model
"""


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(command), flush=True)
    kwargs.setdefault("timeout", STEP_SECONDS)  # a stalled install or build fails the check
    return subprocess.run(command, check=True, text=True, **kwargs)  # type: ignore[call-overload]


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def _no_cargo_env() -> dict[str, str]:
    cargo = shutil.which("cargo")
    bins = {str(Path(cargo).parent)} if cargo else set()
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p not in bins)
    env = {k: v for k, v in os.environ.items() if k not in ("CARGO", "MATURIN_PEP517_ARGS")}
    return {**env, "PATH": path}


def install(artefact: Path, venv: Path, env: dict[str, str]) -> None:
    run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    base = _size_mb(venv)
    listing = [python, "-m", "pip", "list", "--format=freeze"]
    before = set(run(listing, capture_output=True).stdout.split())
    started = time.monotonic()
    run([python, "-m", "pip", "install", "-q", str(artefact)], env=env, cwd=venv)
    took = time.monotonic() - started
    after = run(listing, capture_output=True).stdout.split()
    pulled = sorted(set(after) - before)
    print(
        f"install: {artefact.name}: {took:.1f} s, {len(pulled)} distributions, "
        f"{_size_mb(venv) - base:.1f} MB: {' '.join(pulled)}",
        flush=True,
    )


def check(venv: Path, expect: str, artefact: Path) -> None:
    bindir = venv / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLEVAL_NO_KERNEL", "PYTHONPATH")}
    shown = run([str(bindir / "tooleval"), "--version"], capture_output=True, cwd=venv, env=env)
    print(shown.stdout.strip())
    assert f"(kernel: {expect}" in shown.stdout, f"expected kernel {expect}: {shown.stdout}"
    module = run(
        [str(bindir / "python"), "-m", "tooleval", "--version"],
        capture_output=True,
        cwd=venv,
        env=env,
        timeout=120,
    )
    assert module.stdout == shown.stdout
    where = run(
        [str(bindir / "python"), "-c", "import tooleval; print(tooleval.__file__)"],
        capture_output=True,
        cwd=venv,
        env=env,
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), f"tooleval imported from {where}, not the venv"
    rows = venv / "rows.jsonl"
    shutil.copy(REPO / "examples" / "support_agent.jsonl", rows)
    outputs = []
    for disabled in ("", "1"):
        out = venv / f"out{disabled}.jsonl"
        run(
            [
                str(bindir / "tooleval"),
                "score",
                str(rows),
                "--metric",
                "tool_call_accuracy",
                "--output",
                str(out),
            ],
            cwd=venv,
            env={**env, "TOOLEVAL_NO_KERNEL": disabled},
        )
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1], "kernel and pure-Python results differ"
    needs = subprocess.run(
        [str(bindir / "tooleval"), "runs", "list"],
        capture_output=True,
        text=True,
        cwd=venv,
        env=env,
        timeout=120,
    )
    print(
        f"tooleval runs list without the runs extra: exit {needs.returncode}: "
        f"{needs.stderr.strip()}"
    )
    # the install that works for this artefact: the wheel file with the extra; an sdist's
    # requirements by name (naming the sdist would rebuild the kernel; no index has tooleval)
    works = f"pip install '{artefact}[runs]'" if artefact.suffix == ".whl" else "'sqlalchemy>=2.0'"
    assert needs.returncode == 2 and works in needs.stderr, needs.stderr
    assert "pip install 'tooleval[runs]'" not in needs.stderr


def score_100k(venv: Path) -> None:
    """The installed wheel scores 100,000 two-call rows (bench/gen_rows.py) with its kernel.

    Prints the CPU and wall seconds (the speed figure is measured in bench/, this is the
    installed artefact's own run), and checks the first 2,000 rows' bytes against pure Python.
    """
    sys.path.insert(0, str(REPO / "bench"))
    from gen_rows import write_rows

    bindir = venv / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLEVAL_NO_KERNEL", "PYTHONPATH")}
    rows, head = venv / "rows_100k.jsonl", venv / "rows_2k.jsonl"
    write_rows(rows, 100_000, [2])
    with rows.open("rb") as every, head.open("wb") as first:
        first.writelines(line for _, line in zip(range(2_000), every, strict=False))
    score = [str(bindir / "tooleval"), "score", "--metric", "tool_call_accuracy", "-o"]
    load = os.getloadavg()[0]
    started = time.monotonic()
    process = subprocess.Popen([*score, str(venv / "out_100k.jsonl"), str(rows)], cwd=venv, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    assert os.waitstatus_to_exitcode(status) == 0, "tooleval score failed on 100,000 rows"
    scored = (venv / "out_100k.jsonl").read_bytes()
    assert scored.count(b"\n") == 100_000, "not one result line per row"
    print(
        f"installed wheel: 100,000 two-call rows scored in {usage.ru_utime + usage.ru_stime:.2f}"
        f" CPU-s ({usage.ru_utime:.2f} user, {usage.ru_stime:.2f} system), {wall:.2f} s wall,"
        f" load {load:.1f}",
        flush=True,
    )
    run(
        [*score, str(venv / "out_2k.jsonl"), str(head)],
        cwd=venv,
        env={**env, "TOOLEVAL_NO_KERNEL": "1"},
    )
    pure = (venv / "out_2k.jsonl").read_bytes()
    assert scored.startswith(pure), "the kernel's first 2,000 results differ from pure Python's"
    for done in (rows, head, venv / "out_100k.jsonl", venv / "out_2k.jsonl"):
        done.unlink()


def check_runs_extra(venv: Path, wheel: Path) -> None:
    """The install command of examples/ci_agent/github-workflow.yml: the wheel with `runs`."""
    bindir = venv / "bin"
    run([str(bindir / "python"), "-m", "pip", "install", "-q", f"{wheel}[runs]"], cwd=venv)
    run([str(bindir / "python"), "-c", "import tooleval.store, tooleval.connectors"], cwd=venv)
    # past the extra's check: this folder has no store, which it says (exit 2)
    listed = subprocess.run(
        [str(bindir / "tooleval"), "runs", "list"],
        capture_output=True,
        text=True,
        cwd=venv,
        timeout=120,
    )
    print(
        f"tooleval runs list with the runs extra: exit {listed.returncode}: {listed.stderr.strip()}"
    )
    assert listed.returncode == 2 and "no run store" in listed.stderr, listed.stderr


def test_installed(venv: Path, expect: str, areas: tuple[str, ...]) -> None:
    python = str(venv / "bin" / "python")
    run([python, "-m", "pip", "install", "-q", *TEST_DEPS])
    work = venv / "suite"
    (work / "tests").mkdir(parents=True)
    shutil.copy(REPO / "tests" / "conftest.py", work / "tests" / "conftest.py")
    for area in areas:
        shutil.copytree(
            REPO / "tests" / area,
            work / "tests" / area,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    (work / "pytest.ini").write_text(PYTEST_INI)
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLEVAL_NO_KERNEL", "PYTHONPATH")}
    env.update(
        TOOLEVAL_SOURCE_TREE=str(REPO), TOOLEVAL_EXPECT_KERNEL=expect, HYPOTHESIS_PROFILE="ci"
    )
    run([python, "-m", "pytest", "-q", "-p", "no:randomly", "tests"], cwd=work, env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artefact", type=Path)
    parser.add_argument("--expect", choices=["compiled", "absent"], required=True)
    parser.add_argument("--no-cargo", action="store_true", help="install with cargo off PATH")
    parser.add_argument("--keep", action="store_true", help="keep the venv (its path is printed)")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tests/installed only, not the kernel identity tests (tests/kernel)",
    )
    args = parser.parse_args()
    venv = Path(tempfile.mkdtemp(prefix="tooleval-installed-", dir="/tmp"))
    started = time.monotonic()
    try:
        # an sdist is built as a user's pip builds it: no MATURIN_PEP517_ARGS (no zig); in a
        # cargo target folder of its own, kept across runs (its dependencies compile once) and
        # apart from the one `make` shares between the editable install and the wheel
        env = {k: v for k, v in os.environ.items() if k != "MATURIN_PEP517_ARGS"}
        env["CARGO_TARGET_DIR"] = str(REPO / "kernel" / "target" / "sdist-check")
        env = _no_cargo_env() if args.no_cargo else env
        install(args.artefact.resolve(), venv / "venv", env)
        check(venv / "venv", args.expect, args.artefact.resolve())
        if args.artefact.suffix == ".whl":
            score_100k(venv / "venv")
            check_runs_extra(venv / "venv", args.artefact.resolve())
        areas = ("installed",) if args.smoke else ("installed", "kernel")
        test_installed(venv / "venv", args.expect, areas)
    finally:
        if not args.keep:
            shutil.rmtree(venv, ignore_errors=True)
        else:
            print(f"kept {venv}")
    print(
        f"installed check: {args.artefact.name} ({args.expect}): {time.monotonic() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
