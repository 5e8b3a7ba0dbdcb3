"""An optional dependency missing on a user path is one line naming the extra, exit 2.

Each command runs in a subprocess where the extra's modules cannot be
imported (a meta-path finder refuses them, as if never installed).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tooleval._extras import install_hint

_RUNNER = textwrap.dedent(
    """
    import importlib.abc, sys

    BLOCKED = set(sys.argv[1].split(","))

    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing())
    from tooleval.cli.main import main
    sys.exit(main(sys.argv[2:]))
    """
)


def run_without(modules: str, *args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _RUNNER, modules, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def _one_line(proc: subprocess.CompletedProcess, extra: str) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    # the install that works where this tooleval came from (a checkout: `make extras`)
    assert install_hint(extra) in lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "args",
    [
        ["runs", "list", "--store", "postgresql://me@127.0.0.1:1/evals"],
        ["runs", "list", "--store", "postgresql+psycopg://me@127.0.0.1:1/evals"],
    ],
)
def test_a_postgresql_store_without_the_driver_names_the_extra(args, tmp_path):
    line = _one_line(run_without("psycopg,psycopg2", *args, cwd=tmp_path), "postgres")
    assert "PostgreSQL" in line


def test_view_without_the_web_extra_names_it(tmp_path):
    (tmp_path / "r.db").write_bytes(b"")
    proc = run_without("fastapi,uvicorn,starlette", "view", "--store", str(tmp_path / "r.db"))
    _one_line(proc, "web")


def test_a_parquet_dataset_without_pyarrow_names_the_extra(tmp_path):
    (tmp_path / "d.parquet").write_bytes(b"PAR1" + b"\0" * 16 + b"PAR1")
    _one_line(run_without("pyarrow", "dataset", "check", str(tmp_path / "d.parquet")), "parquet")


def test_binary_otlp_traces_without_the_otel_extra_names_it(tmp_path):
    (tmp_path / "t.pb").write_bytes(b"\x0a\x02\x0a\x00")
    proc = run_without("opentelemetry,google", "monitor", str(tmp_path / "t.pb"))
    _one_line(proc, "otel")
