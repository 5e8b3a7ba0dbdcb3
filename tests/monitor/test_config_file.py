"""The monitor's JSON/YAML option files: every failure a ConfigError naming the file."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.monitor.config_file import read_config_file
from tooleval.monitor.judging import load_judge_config
from tooleval.monitor.usage import PriceTable


def test_reads_json_and_yaml(tmp_path):
    (tmp_path / "p.json").write_text('{"m": {"input": 1, "output": 2}}')
    (tmp_path / "p.yml").write_text("m: {input: 1, output: 2}\n")
    assert read_config_file(tmp_path / "p.json", what="price table") == {
        "m": {"input": 1, "output": 2}
    }
    assert PriceTable.load(tmp_path / "p.yml").price("m") == (1.0, 2.0)


@pytest.mark.parametrize(
    ("name", "text"),
    [("j.json", "{oops"), ("j.yaml", "a: [unclosed\n"), ("j.yaml", "\tkey: tab-indented\n")],
)
def test_unparsable_files_name_the_file_and_the_option(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError, match="not valid JSON/YAML") as info:
        load_judge_config(path)
    assert str(path) in str(info.value) and info.value.field == "--judge"


def test_unreadable_and_binary_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read price table"):
        PriceTable.load(tmp_path / "absent.json")
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        read_config_file(binary, what="judge config")
