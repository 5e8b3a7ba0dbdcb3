"""`tooleval bfcl` per model: function calling or prompting, names with dots or underscores."""

from __future__ import annotations

import json
import sys

import pytest

from tooleval._extras import install_hint
from tooleval.benchmarks.bfcl import decode_tree as bfcl_decode_tree
from tooleval.benchmarks.bfcl.decode_python import BfclDecodeError
from tooleval.benchmarks.bfcl.metric import bfcl_ast
from tooleval.benchmarks.bfcl.models import KNOWN_MODELS, SOURCE_VERSION, model_settings
from tooleval.benchmarks.bfcl.reader import (
    BfclSettings,
    decode_bfcl,
    resolve_settings,
    sample_from_entry,
)
from tooleval.cli.main import main
from tooleval.errors import ConfigError

JAVA_0 = "[GeometryPresentation.createPresentation(controller=mapController, parent=mapArea)]"


def _write(folder, category, rows):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"BFCL_v4_{category}_result.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_model_list_is_bfcls():
    assert SOURCE_VERSION == "bfcl-eval 2026.3.23"
    assert len(KNOWN_MODELS) == 175
    assert model_settings("gpt-4.1-2025-04-14-FC").underscore_names is True
    assert model_settings("gpt-4.1-2025-04-14").mode == "prompt"
    # result folders replace "/" with "_"
    folder = model_settings("meetkai_functionary-small-v3.1-FC")
    assert folder is not None and folder.name == "meetkai/functionary-small-v3.1-FC"
    assert model_settings("glyphh-ada-1.1") is None


def test_resolve_settings_prefers_explicit_choices():
    assert resolve_settings("x/gpt-4.1-2025-04-14-FC").names == "underscores"
    explicit = resolve_settings("x/gpt-4.1-2025-04-14-FC", mode="prompt", names="dots")
    assert explicit == BfclSettings(
        "prompt",
        "dots",
        "gpt-4.1-2025-04-14-FC",
        "BFCL decodes gpt-4.1-2025-04-14-FC with its handler's 'openai' decoder; "
        "--mode prompt may score its results differently",
    )
    assert resolve_settings("x/gpt-4.1-2025-04-14-FC", mode="openai").note is None
    with pytest.raises(ConfigError, match="names must be one of"):
        resolve_settings("x", names="snake")


def _sample(result, names, mode="auto"):
    return sample_from_entry(
        {
            "id": "t",
            "function": [
                {
                    "name": "math.factorial",
                    "parameters": {
                        "type": "dict",
                        "properties": {"n": {"type": "integer"}},
                        "required": ["n"],
                    },
                }
            ],
        },
        {"id": "t", "ground_truth": [{"math.factorial": {"n": [5]}}]},
        {"id": "t", "result": result},
        category="simple_python",
        names=names,
        mode=mode,
    )


@pytest.mark.parametrize(
    ("name", "names", "passed"),
    [
        ("math.factorial", "dots", True),
        ("math_factorial", "dots", False),
        ("math.factorial", "underscores", False),
        ("math_factorial", "underscores", True),
        ("math.factorial", "either", True),
        ("math_factorial", "either", True),
    ],
)
def test_name_rules(name, names, passed):
    assert bfcl_ast(_sample(f"[{name}(n=5)]", names)).passed is passed


def test_function_calling_mode_refuses_text_and_prompt_mode_refuses_lists():
    text = _sample("[math.factorial(n=5)]", "dots", mode="fc")
    assert bfcl_ast(text).diagnosis.details["bfcl_error_type"] == "ast_decoder:decoder_failed"
    listed = _sample([{"math.factorial": '{"n": 5}'}], "dots", mode="prompt")
    assert not bfcl_ast(listed).passed
    assert bfcl_ast(_sample([{"math.factorial": '{"n": 5}'}], "dots")).passed  # auto: by type


def test_cli_uses_the_model_list_for_a_known_folder(shared_data, tmp_path, capsys):
    folder = tmp_path / "gpt-4.1-2025-04-14"
    _write(folder, "simple_java", [{"id": "simple_java_0", "result": JAVA_0}])
    assert main(["bfcl", str(folder), "--data", str(shared_data / "bfcl")]) == 0
    out = capsys.readouterr().out
    assert (
        "gpt-4.1-2025-04-14 in BFCL's model list (bfcl-eval 2026.3.23); mode: prompt; names: dots"
        in out
    )
    assert "100.00%" in out


def test_cli_mode_and_names_options(shared_data, tmp_path, capsys):
    folder = tmp_path / "my-model"
    _write(
        folder,
        "simple_python",
        [{"id": "simple_python_0", "result": "[calculate_triangle_area(base=10, height=5)]"}],
    )
    data = str(shared_data / "bfcl")
    assert main(["bfcl", str(folder), "--data", data]) == 0
    out = capsys.readouterr().out
    assert "not in BFCL model list; mode: decided from each file's results; names: either" in out
    assert "mode for simple_python: prompt, decided from its results (every result is text)" in out
    assert (
        main(["bfcl", str(folder), "--data", data, "--mode", "fc", "-o", str(tmp_path / "v.jsonl")])
        == 0
    )
    row = json.loads((tmp_path / "v.jsonl").read_text())
    assert row["bfcl_error_type"] == "ast_decoder:decoder_failed"
    assert main(["bfcl", str(folder), "--data", data, "--underscore-names", "yes"]) == 0
    assert "names: underscores" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        main(["bfcl", str(folder), "--data", data, "--mode", "json"])
    assert info.value.code == 2


def test_missing_tree_sitter_is_one_clear_line(shared_data, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "my-model"
    _write(folder, "simple_java", [{"id": "simple_java_0", "result": JAVA_0}])
    bfcl_decode_tree._parser.cache_clear()
    monkeypatch.setitem(sys.modules, "tree_sitter_java", None)
    try:
        assert not bfcl_decode_tree.tree_sitter_available()
        assert main(["bfcl", str(folder), "--data", str(shared_data / "bfcl")]) == 2
    finally:
        bfcl_decode_tree._parser.cache_clear()
    err = capsys.readouterr().err.strip()
    assert install_hint("bfcl") in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("decoder", "result", "decoded"),
    [
        ("gemini_prompt", "```tool_code\n[f(a=1)]\n```", [{"f": {"a": 1}}]),
        ("phi_prompt", "  ```python[f(a=1)]```", [{"f": {"a": 1}}]),
        ("phi_prompt", "```json\nf(a=1)", [{"f": {"a": 1}}]),
        ("openai", [{"f": '{"a": 1}'}], [{"f": {"a": 1}}]),
        ("gemini_fc", {"f": {"a": 1}}, [{"f": {"a": 1}}]),
        ("list", [{"f": {"a": 1}}], [{"f": {"a": 1}}]),
        ("list_of_dicts", [{"f": {"a": 1}}], [{"f": {"a": 1}}]),
        ("name_arguments", [{"name": "f", "arguments": {"a": 1}}], [{"f": {"a": 1}}]),
        ("cohere", [{"tool_name": "f", "parameters": {"a": 1}}], [{"f": {"a": 1}}]),
        ("cohere", "no call here", []),
    ],
)
def test_handler_decoders(decoder, result, decoded):
    assert decode_bfcl(result, mode=decoder) == decoded


@pytest.mark.parametrize(
    ("decoder", "result", "label"),
    [
        ("openai", [{"f": {"a": 1}}], "decoder_failed"),  # json.loads of an object
        ("gemini_prompt", [{"f": "{}"}], "decoder_failed"),
        ("gemini_fc", [{"f": '{"a": 1}'}], "wrong_output_format"),
        ("list", {"f": {}}, "decoder_failed"),
        ("list_of_dicts", [["f"]], "decoder_failed"),
        ("name_arguments", [{"name": "f"}], "decoder_failed"),
        ("cohere", [{"tool_name": "f", "parameters": "a=1"}], "wrong_output_format"),
    ],
)
def test_handler_decoders_fail_where_bfcl_does(decoder, result, label):
    with pytest.raises(BfclDecodeError) as info:
        decode_bfcl(result, mode=decoder)
    assert info.value.error_type.endswith(label)


def test_known_models_use_their_handlers_decoder_and_other_modes_warn(
    shared_data, tmp_path, capsys
):
    assert resolve_settings("r/gemini-2.5-flash").mode == "gemini_prompt"
    assert resolve_settings("r/command-a-03-2025-FC").mode == "cohere"
    assert resolve_settings("r/meta-llama_Llama-3.2-1B-Instruct-FC").mode == "prompt"
    qwen = resolve_settings("r/Qwen_Qwen3-8B-FC")
    assert qwen.mode == "tool_call_tags" and qwen.note is None
    folder = tmp_path / "Qwen_Qwen3-8B-FC"
    call = {"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}
    _write(
        folder,
        "simple_python",
        [{"id": "simple_python_0", "result": f"<tool_call>\n{json.dumps(call)}\n</tool_call>"}],
    )
    assert main(["bfcl", str(folder), "--data", str(shared_data / "bfcl")]) == 0
    captured = capsys.readouterr()
    assert "mode: tool_call_tags" in captured.out and "100.00%" in captured.out
    assert captured.err == ""
    assert main(["bfcl", str(folder), "--data", str(shared_data / "bfcl"), "--mode", "hammer"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith(
        "warning: BFCL decodes Qwen/Qwen3-8B-FC with its handler's 'tool_call_tags' decoder"
    )
    assert "mode: hammer" in captured.out and "0.00%" in captured.out
