"""The stage table of `make test` (.ci/stage.py): CPU from `times`, the exit status, the table."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

STAGE = Path(__file__).resolve().parents[1] / ".ci" / "stage.py"


def _module():
    spec = importlib.util.spec_from_file_location("ci_stage", STAGE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_children_cpu_is_the_second_line_of_times_user_plus_system():
    stage = _module()
    assert stage.children_cpu("0m0.010s 0m0.020s\n2m1.500s 0m0.500s\n") == 122.0
    assert stage.children_cpu("") == 0.0  # nothing recorded is nothing spent, not a crash


@pytest.mark.parametrize("status", [0, 3])
def test_a_stage_is_recorded_and_its_exit_status_kept(tmp_path, status):
    table, times = tmp_path / "stages.tsv", tmp_path / "times"
    times.write_text("0m0.000s 0m0.000s\n0m4.250s 0m0.750s\n")
    done = subprocess.run(
        [sys.executable, str(STAGE), str(table), "pytest", "0", "1.5", str(status), str(times)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == status
    assert "== stage pytest:" in done.stdout and "5 CPU-s" in done.stdout
    assert not times.exists()
    name, _wall, cpu, load, _after, verdict, started = table.read_text().strip().split("\t")
    assert (name, cpu, load, started) == ("pytest", "5.0", "1.5", "0")
    assert verdict == ("ok" if status == 0 else f"exit {status}")
    shown = subprocess.run(
        [sys.executable, str(STAGE), str(table), "--print"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[1].split()[:1] == ["pytest"]
    assert "total" in shown.stdout.splitlines()[-1]


def test_the_total_is_the_elapsed_span_when_stages_ran_side_by_side(tmp_path, capsys):
    table = tmp_path / "stages.tsv"
    table.write_text(
        "lint\t2.0\t1.0\t1.0\t1.0\tok\t100\n"
        "pytest\t400.0\t600.0\t1.0\t2.0\tok\t102\n"  # beside mypy and the installed checks
        "mypy\t30.0\t30.0\t1.0\t2.0\tok\t102\n"
        "installed\t70.0\t140.0\t2.0\t3.0\tok\t132\n"
        "no-kernel\t10.0\t15.0\t1.0\t1.0\tok\t502\n"
    )
    assert _module().print_table(table) == 0
    total = capsys.readouterr().out.splitlines()[-1].split()
    assert total[:3] == ["total", "412", "786"]  # from 100 to 512 s; the walls add up to 512


def test_bad_arguments_print_the_usage_and_exit_2(tmp_path):
    done = subprocess.run(
        [sys.executable, str(STAGE), "x"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "--print" in done.stderr


@pytest.mark.parametrize("status", [0, 2])
def test_ci_run_prints_the_stage_table_whatever_make_test_ends_with(tmp_path, status):
    """.ci/run in a copy of the checkout whose ``make`` records one stage, then fails or not."""
    root = Path(__file__).resolve().parents[1]
    (tmp_path / ".ci").mkdir()
    for name in ("run", "stage.py"):
        (tmp_path / ".ci" / name).write_bytes((root / ".ci" / name).read_bytes())
    (tmp_path / ".ci" / "run").chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # the stage ran, then make stops with its status before printing a table of its own
    (bin_dir / "make").write_text(
        "#!/bin/sh\nmkdir -p build\nprintf '0m0.000s 0m0.000s\\n0m1.000s 0m0.000s\\n' > t\n"
        f"python3 .ci/stage.py build/stage-times.tsv lint 0 1.0 {status} t >/dev/null\n"
        f"exit {status}\n"
    )
    (bin_dir / "make").chmod(0o755)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "pytest").write_text("#!/bin/sh\nexit 0\n")  # the no-kernel pass after a green make
    (venv / "pytest").chmod(0o755)
    done = subprocess.run(
        [str(tmp_path / ".ci" / "run")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == status, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.split()[:1] == ["lint"] for line in lines), done.stdout
    assert "total" in lines[-1]
    if status:
        assert f"make test failed (exit {status}); the stages that ran:" in done.stdout
    else:
        assert any(line.split()[:1] == ["no-kernel"] for line in lines), done.stdout
