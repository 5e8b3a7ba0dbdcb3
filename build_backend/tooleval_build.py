"""tooleval's PEP 517 build backend: maturin where cargo is found, else pure Python.

Every hook goes to maturin (the wheel then holds ``tooleval/_kernel``, built
from ``kernel/``) when ``cargo`` is on PATH (or named by ``$CARGO``). Without
cargo, or with ``TOOLEVAL_PURE_PYTHON=1``, the wheel is built by setuptools
from the same ``[project]`` table: a ``py3-none-any`` wheel with no compiled
kernel, which scores the same bytes several times slower (``tooleval
--version`` and a one-line notice on large files say so). A wheel is never
silently pure Python where cargo exists: a failing Rust build fails the
install. The sdist always comes from maturin (it needs cargo: only release
builders make one). Neither backend is imported until a hook needs it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from typing import Any

_MATURIN = "maturin>=1.9,<2"
_SETUPTOOLS = "setuptools>=77"
_NOTICE = (
    "tooleval: cargo not found (or TOOLEVAL_PURE_PYTHON is set): building a pure-Python "
    "wheel without the compiled kernel; install Rust (https://rustup.rs) and reinstall "
    "for several times the scoring speed"
)


def _compiled() -> bool:
    if os.environ.get("TOOLEVAL_PURE_PYTHON"):
        return False
    return bool(os.environ.get("CARGO")) or shutil.which("cargo") is not None


def _maturin_requires() -> list[str]:
    # `--zig` (manylinux2014 wheels from a newer glibc) needs zig in the build environment
    extra = ["ziglang"] if "--zig" in os.environ.get("MATURIN_PEP517_ARGS", "") else []
    return [_MATURIN, *extra]


def _backend() -> Any:
    if _compiled():
        import maturin

        return maturin
    print(_NOTICE, file=sys.stderr)
    from setuptools import build_meta

    return build_meta


def get_requires_for_build_wheel(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    return _maturin_requires() if _compiled() else [_SETUPTOOLS]


def get_requires_for_build_editable(
    config_settings: Mapping[str, Any] | None = None,
) -> list[str]:
    return get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    return [_MATURIN]


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Mapping[str, Any] | None = None
) -> str:
    return str(_backend().prepare_metadata_for_build_wheel(metadata_directory, config_settings))


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Mapping[str, Any] | None = None
) -> str:
    return str(_backend().prepare_metadata_for_build_editable(metadata_directory, config_settings))


def build_wheel(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    return str(_backend().build_wheel(wheel_directory, config_settings, metadata_directory))


def build_editable(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    return str(_backend().build_editable(wheel_directory, config_settings, metadata_directory))


def build_sdist(sdist_directory: str, config_settings: Mapping[str, Any] | None = None) -> str:
    import maturin

    return str(maturin.build_sdist(sdist_directory, config_settings))
