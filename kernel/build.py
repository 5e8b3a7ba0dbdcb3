"""Build the kernel with maturin and place it in src/tooleval/ (run by `make kernel`).

    python kernel/build.py            # release build, then copy tooleval/_kernel*.so

Exits 0 without building when cargo is missing: tooleval then runs in pure Python.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = HERE.parent / "src" / "tooleval"


def main() -> int:
    if shutil.which("cargo") is None:
        print("kernel: cargo not found; tooleval stays pure Python (slower `tooleval score`)")
        return 0
    maturin = [sys.executable, "-m", "maturin"]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as out:
        command = [*maturin, "build", "--release", "--quiet", "-m", str(HERE / "Cargo.toml")]
        subprocess.run([*command, "--interpreter", sys.executable, "--out", out], check=True)
        (wheel,) = Path(out).glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            (name,) = [n for n in archive.namelist() if n.endswith(".so")]
            target = TARGET / "_kernel.abi3.so"  # abi3: one file serves CPython 3.11 and later
            for stale in TARGET.glob("_kernel*.so"):
                if stale != target:
                    stale.unlink()
            partial = target.with_suffix(".so.partial")
            partial.write_bytes(archive.read(name))
            partial.replace(target)  # atomic: a running import never sees half a file
    print(f"kernel: built tooleval/_kernel.abi3.so in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
