"""Run BFCL's own decoders and AST checker (the ``bfcl-eval`` package) in-process.

``bfcl-eval`` is installed without its dependencies (``make test`` does it;
by hand: ``pip install --no-deps bfcl-eval==2026.3.23``). Its model list
imports every model vendor's SDK, so a small stand-in for
``bfcl_eval.constants.model_config`` is put in place first when the real one
cannot be imported; it lists two models of our own, one per name rule.

The per-entry flow (decode, "is this a list of calls", check) follows
``eval_runner._evaluate_single_ast_entry`` / ``_evaluate_single_relevance_entry``;
function-calling results are decoded as BFCL's OpenAI-style handlers do
(first key of each item, arguments through ``json.loads``).

Our side is :func:`ours`: ``sample_from_entry`` + ``bfcl_ast``, as ``tooleval bfcl`` runs them.
"""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass
from typing import Any

from tooleval.benchmarks.bfcl.metric import bfcl_ast
from tooleval.benchmarks.bfcl.reader import CATEGORIES, sample_from_entry

#: Our stand-in model names per name rule (no "_": BFCL reads "_" in a model name as "/").
MODEL_FOR_NAMES = {"dots": "tooleval-dots", "underscores": "tooleval-underscores"}


@dataclass
class _Config:
    underscore_to_dot: bool
    is_fc_model: bool = True


def load_bfcl() -> types.SimpleNamespace | None:
    """BFCL's functions, or None when ``bfcl_eval`` (or tree-sitter) cannot be imported."""
    try:
        try:
            import bfcl_eval.constants.model_config as config
        except ImportError:
            config = types.ModuleType("bfcl_eval.constants.model_config")
            config.MODEL_CONFIG_MAPPING = {}
            sys.modules["bfcl_eval.constants.model_config"] = config
        config.MODEL_CONFIG_MAPPING["tooleval-dots"] = _Config(False)
        config.MODEL_CONFIG_MAPPING["tooleval-underscores"] = _Config(True)
        from bfcl_eval.constants.enums import Language, ReturnFormat
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
        from bfcl_eval.utils import is_empty_output, is_function_calling_format_output
    except ImportError:
        return None
    return types.SimpleNamespace(
        Language=Language,
        ReturnFormat=ReturnFormat,
        ast_checker=ast_checker,
        decode_prompt=default_decode_ast_prompting,
        is_empty_output=is_empty_output,
        is_call_list=is_function_calling_format_output,
    )


def _fc_decode(result: Any) -> list[dict[str, Any]]:
    decoded = []
    for item in result:
        name = list(item.keys())[0]
        arguments = item[name]
        if not isinstance(arguments, dict):  # BFCL's Gemini-style handlers keep objects as they are
            arguments = json.loads(arguments)
        decoded.append({name: arguments})
    return decoded


def theirs(bfcl: types.SimpleNamespace, case: dict[str, Any]) -> dict[str, Any]:
    """BFCL's verdict for one case: ``{"valid": bool, "error_type": str | None}``."""
    category = case["category"]
    language = CATEGORIES[category].language
    formats = {"java": "JAVA", "javascript": "JAVASCRIPT", "python": "PYTHON"}
    if CATEGORIES[category].kind in ("irrelevance", "relevance"):
        try:
            decoded = _decode(bfcl, case, bfcl.ReturnFormat.PYTHON)
            has_call = not bfcl.is_empty_output(decoded)
        except Exception:  # BFCL: any decoder exception means "no call"
            has_call = False
        valid = not has_call if "irrelevance" in category else has_call
        label = "irrelevance_error:decoder_success" if "irrelevance" in category else None
        return {
            "valid": valid,
            "error_type": None if valid else label or "relevance_error:decoder_failed",
        }
    try:
        decoded = _decode(bfcl, case, getattr(bfcl.ReturnFormat, formats[language]))
    except Exception:
        return {"valid": False, "error_type": "ast_decoder:decoder_failed"}
    if not bfcl.is_call_list(decoded):
        return {"valid": False, "error_type": "ast_decoder:decoder_wrong_output_format"}
    verdict = bfcl.ast_checker(
        case["functions"],
        decoded,
        case["ground_truth"],
        getattr(bfcl.Language, formats[language]),
        category,
        MODEL_FOR_NAMES[case.get("names", "dots")],
    )
    return {
        "valid": verdict["valid"],
        "error_type": verdict.get("error_type") if not verdict["valid"] else None,
    }


def _decode(bfcl: types.SimpleNamespace, case: dict[str, Any], return_format: Any) -> Any:
    if case.get("mode", "prompt") == "fc":
        return _fc_decode(case["result"])
    return bfcl.decode_prompt(case["result"], return_format)


def ours(case: dict[str, Any]) -> dict[str, Any]:
    """tooleval's verdict for one case, same shape as :func:`theirs`."""
    category = case["category"]
    answer = None
    if case.get("ground_truth") is not None:
        answer = {"id": "case", "ground_truth": case["ground_truth"]}
    sample = sample_from_entry(
        {"id": "case", "function": case["functions"], "question": [[]]},
        answer,
        {"id": "case", "result": case["result"]},
        category=category,
        mode=case.get("mode", "prompt"),
        names=case.get("names", "dots"),
    )
    result = bfcl_ast(sample)
    valid = bool(result.passed)
    return {
        "valid": valid,
        "error_type": None if valid else result.diagnosis.details.get("bfcl_error_type"),
    }


# ---------------------------------------------------------------- model handlers

#: Our decoder -> BFCL handler classes (module under ``bfcl_eval.model_handler``, class).
HANDLER_CLASSES: dict[str, tuple[tuple[str, str], ...]] = {
    "tool_call_tags": (
        ("local_inference.qwen_fc", "QwenFCHandler"),
        ("local_inference.granite_4", "Granite4FCHandler"),
        ("local_inference.pelican_vl_fc", "PelicanVLFCHandler"),
        ("local_inference.nanbeige_fc", "NanbeigeFCHandler"),
    ),
    "hammer": (("local_inference.hammer", "HammerHandler"),),
    "xlam": (
        ("local_inference.salesforce_llama", "SalesforceLlamaHandler"),
        ("local_inference.salesforce_qwen", "SalesforceQwenHandler"),
    ),
    "json_calls": (("local_inference.bitagent", "BitAgentHandler"),),
    "falcon_fc": (("local_inference.falcon_fc", "Falcon3FCHandler"),),
    "think_agent": (("local_inference.think_agent", "ThinkAgentHandler"),),
    "llama_3_1": (("local_inference.llama_3_1", "LlamaHandler_3_1"),),
    "gorilla": (("api_inference.gorilla", "GorillaHandler"),),
    "nemotron": (("api_inference.nemotron", "NemotronHandler"),),
    "glm": (("local_inference.glm", "GLMHandler"),),
    "granite_fc": (("local_inference.granite", "GraniteFunctionCallingHandler"),),
    "minicpm_fc": (("local_inference.minicpm_fc", "MiniCPMFCHandler"),),
    "functiongemma": (("local_inference.functiongemma", "FunctionGemmaHandler"),),
}


class _Anything(types.ModuleType):
    """A stand-in module whose every attribute is a harmless placeholder."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


def _stub_missing_modules() -> None:
    """Stand-ins for imports the handlers' ``decode_ast`` never uses (only when not installed)."""
    try:
        import overrides  # noqa: F401
    except ImportError:
        stub = types.ModuleType("overrides")
        stub.override = lambda function: function  # type: ignore[attr-defined]
        stub.final = lambda function: function  # type: ignore[attr-defined]
        stub.EnforceOverrides = type("EnforceOverrides", (), {})  # type: ignore[attr-defined]
        sys.modules["overrides"] = stub
    try:
        import datamodel_code_generator  # noqa: F401
    except ImportError:
        for name in (
            "datamodel_code_generator",
            "datamodel_code_generator.model",
            "datamodel_code_generator.parser",
            "datamodel_code_generator.parser.jsonschema",
        ):
            sys.modules[name] = _Anything(name)


def load_handler(module: str, cls: str) -> Any:
    """A BFCL handler instance made without loading a model (``decode_ast`` reads no state)."""
    import importlib

    _stub_missing_modules()
    handler_class = getattr(importlib.import_module(f"bfcl_eval.model_handler.{module}"), cls)
    return handler_class.__new__(handler_class)


def handler_decode(bfcl: types.SimpleNamespace, handler: Any, result: Any, language: str) -> Any:
    """``("ok", decoded)`` or ``("error", None)`` for BFCL's ``handler.decode_ast``."""
    formats = {"java": "JAVA", "javascript": "JAVASCRIPT", "python": "PYTHON"}
    try:
        return "ok", handler.decode_ast(
            result, getattr(bfcl.ReturnFormat, formats[language]), False
        )
    except Exception:
        return "error", None


def handler_verdict(
    bfcl: types.SimpleNamespace, handler: Any, case: dict[str, Any]
) -> dict[str, Any]:
    """BFCL's verdict for one case decoded by ``handler`` (same flow as :func:`theirs`)."""
    category = case["category"]
    language = CATEGORIES[category].language
    formats = {"java": "JAVA", "javascript": "JAVASCRIPT", "python": "PYTHON"}
    if CATEGORIES[category].kind in ("irrelevance", "relevance"):
        status, decoded = handler_decode(bfcl, handler, case["result"], "python")
        has_call = status == "ok" and not bfcl.is_empty_output(decoded)
        valid = not has_call if "irrelevance" in category else has_call
        label = "irrelevance_error:decoder_success" if "irrelevance" in category else None
        return {
            "valid": valid,
            "error_type": None if valid else label or "relevance_error:decoder_failed",
        }
    status, decoded = handler_decode(bfcl, handler, case["result"], language)
    if status == "error":
        return {"valid": False, "error_type": "ast_decoder:decoder_failed"}
    if not bfcl.is_call_list(decoded):
        return {"valid": False, "error_type": "ast_decoder:decoder_wrong_output_format"}
    verdict = bfcl.ast_checker(
        case["functions"],
        decoded,
        case["ground_truth"],
        getattr(bfcl.Language, formats[language]),
        category,
        MODEL_FOR_NAMES[case.get("names", "dots")],
    )
    return {
        "valid": verdict["valid"],
        "error_type": verdict.get("error_type") if not verdict["valid"] else None,
    }
