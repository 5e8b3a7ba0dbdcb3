"""Peer tools for the benchmark, each in its own virtualenv under ``bench/.venvs/``.

deepeval and agentevals pin versions that clash with ragas (and with each
other), so each gets a private venv, created from PyPI on first use. ragas
runs in the project's own ``.venv`` (the ``ragas-compat-test`` extra).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
VENVS = BENCH / ".venvs"
MAIN_PYTHON = ROOT / ".venv" / "bin" / "python"


@dataclass(frozen=True)
class Peer:
    name: str
    module: str  # imported to check the venv works
    requirements: tuple[str, ...]  # pip install arguments; empty = use the main venv
    worker: str

    @property
    def python(self) -> Path:
        return VENVS / self.name / "bin" / "python" if self.requirements else MAIN_PYTHON


PEERS = (
    Peer("tooleval", "tooleval", (), "tooleval_worker.py"),
    Peer("ragas", "ragas", (), "ragas_worker.py"),
    Peer("deepeval", "deepeval", ("deepeval",), "deepeval_worker.py"),
    Peer("agentevals", "agentevals", ("agentevals",), "agentevals_worker.py"),
)


def _imports(python: Path, module: str) -> bool:
    if not python.exists():
        return False
    probe = subprocess.run(
        [str(python), "-c", f"import {module}"], capture_output=True, env=_quiet_env()
    )
    return probe.returncode == 0


def _quiet_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.update(
        RAGAS_DO_NOT_TRACK="true",
        DEEPEVAL_TELEMETRY_OPT_OUT="1",
        LANGSMITH_TRACING="false",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def ensure(peer: Peer) -> str | None:
    """Make ``peer`` importable in its python; return why not, or None when ready."""
    if _imports(peer.python, peer.module):
        return None
    if not peer.requirements:
        return f"{peer.module} is not importable in {peer.python} (install the dev extras)"
    venv = VENVS / peer.name
    print(f"[bench] creating {venv} and installing {' '.join(peer.requirements)} ...", flush=True)
    VENVS.mkdir(parents=True, exist_ok=True)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *peer.requirements],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            return f"`{' '.join(step)}` failed: {done.stderr.strip().splitlines()[-1:]}"
    if not _imports(peer.python, peer.module):
        return f"{peer.module} still not importable after installing into {venv}"
    return None


def run_worker(peer: Peer, rows: Path, *, timeout: float = 900) -> list[dict]:
    """Run the peer's worker on ``rows``; one dict per JSON line it prints."""
    import json

    done = subprocess.run(
        [str(peer.python), str(BENCH / "workers" / peer.worker), str(rows)],
        capture_output=True,
        text=True,
        env=_quiet_env(),
        timeout=timeout,
    )
    records = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        records.append({"tool": peer.name, "variant": "(worker)", "error": tail[0]})
    return records
