"""A folder (or one file) of BFCL results read category by category.

:func:`read_folder` pairs every ``BFCL_v*_<category>_result.json`` with its
question and possible-answer files and reads each category on its own: a
category this machine cannot score (the multi-turn ones without bfcl-eval's
simulated APIs, Java/JavaScript prompting without tree-sitter) is refused
with the reason and the install that fixes it (:attr:`BfclFolder.refused`),
and the others are read; a category asked for by name that cannot be
scored is a ConfigError instead.

When the folder names no model of BFCL's list and the mode is ``auto``, each
file's decoding mode is decided from all of its results, not one at a time
(:func:`file_mode`): a model that writes any call as a structure is a
function-calling model, whose text replies are replies, not prompt-style
calls; only a file of text alone is read as prompting. The decisions are
kept in :attr:`BfclFolder.modes`, to be printed.

>>> file_mode([{"result": [[[{"f": "{}"}], "done"]]}, {"result": [["all set"]]}])
('fc', '1 of 3 steps are calls, 2 are text')
>>> file_mode([{"result": "[f(a=1)]"}])
('prompt', 'every result is text')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooleval.benchmarks.base import unreadable
from tooleval.benchmarks.bfcl.multi_turn_data import (
    MULTI_TURN_CATEGORIES,
    multi_turn_sample,
    package_data,
    version_mismatch,
)
from tooleval.benchmarks.bfcl.reader import (
    CATEGORIES,
    BfclSettings,
    category_from_filename,
    read_jsonl,
    resolve_settings,
    sample_from_entry,
)
from tooleval.errors import ConfigError, DatasetError, FormatError
from tooleval.model import Sample

__all__ = ["BfclFolder", "file_mode", "load_bfcl", "read_folder"]


@dataclass(slots=True)
class BfclFolder:
    """What :func:`read_folder` read: samples per category, and what it could not score."""

    settings: BfclSettings
    samples: dict[str, list[Sample]] = field(default_factory=dict)
    #: category -> why it was not scored, with the install that fixes it
    refused: dict[str, str] = field(default_factory=dict)
    #: category -> (mode, why) for each file whose mode was decided from its results
    modes: dict[str, tuple[str, str]] = field(default_factory=dict)

    def notes(self) -> list[str]:
        """One line per refused category and one for the decided modes (empty when none)."""
        lines = [f"BFCL category {c} not scored: {why}" for c, why in self.refused.items()]
        if self.modes:
            decided = "; ".join(f"{c}: {m} ({why})" for c, (m, why) in self.modes.items())
            lines.append(
                "BFCL decoding mode decided from each file's results (the folder names no "
                f"model in BFCL's list; `tooleval bfcl --mode` sets it): {decided}"
            )
        return lines


def file_mode(results: Iterable[Mapping[str, Any]]) -> tuple[str, str]:
    """``fc`` when any result (a multi-turn step) is a call structure, else ``prompt``; and why.

    Prompt-style models write every result as text; function-calling models
    write calls as structures and their plain replies as text, so one text
    reply never makes a file prompt-style.
    """
    calls = texts = 0
    multi_turn = False
    for row in results:
        result = row.get("result")
        if isinstance(result, list) and any(isinstance(turn, list) for turn in result):
            multi_turn = True
            for turn in result:
                for step in turn if isinstance(turn, list) else ():
                    calls += isinstance(step, dict | list)
                    texts += isinstance(step, str)
        else:
            calls += isinstance(result, dict | list)
            texts += isinstance(result, str)
    unit = "steps" if multi_turn else "results"
    if calls:
        return "fc", f"{calls} of {calls + texts} {unit} are calls, {texts} are text"
    return "prompt", f"every {unit[:-1]} is text"


def read_folder(
    results_dir: str | Path,
    data_dir: str | Path,
    *,
    categories: Iterable[str] | None = None,
    mode: str = "auto",
    names: str = "auto",
    result_file: Path | None = None,
) -> BfclFolder:
    """Samples per category for every ``BFCL_v*_<category>_result.json`` in ``results_dir``.

    With ``result_file`` (a file inside ``results_dir``), only that file is read.
    ``mode`` and ``names`` are resolved by
    :func:`~tooleval.benchmarks.bfcl.reader.resolve_settings` (BFCL's model
    list when the folder names a known model; else each file's mode by
    :func:`file_mode`).

    ``data_dir`` holds the question files (directly or in ``data/``) and a
    ``possible_answer/`` folder (inside it or next to the questions).
    Categories BFCL does not score call by call (memory, web search, ...)
    are skipped; ask for them by name to get an error instead.
    """
    results_dir, data_dir = Path(results_dir), Path(data_dir)
    if not results_dir.is_dir():
        raise DatasetError("results directory not found", path=str(results_dir))
    settings = resolve_settings(results_dir, mode=mode, names=names)
    wanted = None if categories is None else list(categories)
    known = (*CATEGORIES, *MULTI_TURN_CATEGORIES)
    for name in wanted or ():
        if name not in known:
            raise DatasetError(
                f"unsupported BFCL category {name!r}; expected one of {', '.join(known)}",
                field="category",
            )
    found: dict[str, Path] = {}
    paths = [result_file] if result_file is not None else results_dir.rglob("BFCL_v*_result.json")
    for path in sorted(paths):
        category = category_from_filename(path.name)
        if category in known and (wanted is None or category in wanted):
            if category in found:  # scoring one would silently drop the other
                raise DatasetError(
                    f"two result files for {category}: {found[category]} and {path}; "
                    "give the folder of one model's results",
                    path=str(results_dir),
                )
            found[category] = path
    missing = [c for c in wanted or () if c not in found]
    if missing:
        raise DatasetError(f"no result file for {', '.join(missing)}", path=str(results_dir))
    folder = BfclFolder(settings)
    for category in [c for c in known if c in found]:  # BFCL's table order
        result_path = found[category]
        results = read_jsonl(result_path)
        if not results:
            raise DatasetError("the result file has no rows", path=str(result_path))
        file_decoding = settings.mode
        if settings.mode == "auto" and settings.model is None:
            file_decoding, why = file_mode(results)
            folder.modes[category] = (file_decoding, why)
        try:
            folder.samples[category] = _category(
                data_dir, result_path, category, results, file_decoding, settings.names
            )
        except ConfigError as exc:  # this machine cannot score it: the others still are
            if wanted is not None:
                raise
            folder.refused[category] = f"{exc.message} ({len(results)} rows in {result_path.name})"
            folder.modes.pop(category, None)
    if folder.refused and not folder.samples:
        reasons = "; ".join(f"{c}: {why}" for c, why in folder.refused.items())
        raise ConfigError(f"no BFCL category can be scored on this machine: {reasons}")
    return folder


def load_bfcl(
    results_dir: str | Path,
    data_dir: str | Path,
    *,
    categories: Iterable[str] | None = None,
    mode: str = "auto",
    names: str = "auto",
    result_file: Path | None = None,
) -> dict[str, list[Sample]]:
    """The samples per category of :func:`read_folder` (refused categories left out)."""
    return read_folder(
        results_dir,
        data_dir,
        categories=categories,
        mode=mode,
        names=names,
        result_file=result_file,
    ).samples


def _category(
    data_dir: Path,
    result_path: Path,
    category: str,
    results: Sequence[dict[str, Any]],
    mode: str,
    names: str,
) -> list[Sample]:
    version = result_path.name.split("_", 2)[1]
    filename = f"BFCL_{version}_{category}.json"
    if category in MULTI_TURN_CATEGORIES:
        return _multi_turn(data_dir, filename, result_path, category, results, mode)
    questions = _by_id(_data_file(data_dir, filename, answers=False))
    answers = None
    if CATEGORIES[category].kind not in ("irrelevance", "relevance"):
        answers = _by_id(_data_file(data_dir, filename, answers=True))
    samples = []
    for number, result in enumerate(results, start=1):
        entry_id = result.get("id")
        if not isinstance(entry_id, str) or entry_id not in questions:
            raise DatasetError(
                f"result id {entry_id!r} has no question in {category}",
                path=str(result_path),
                row=number,
            )
        answer = None
        if answers is not None:
            if entry_id not in answers:
                raise DatasetError(
                    f"result id {entry_id!r} has no possible answer",
                    path=str(result_path),
                    row=number,
                )
            answer = answers[entry_id]
        try:
            samples.append(
                sample_from_entry(
                    questions[entry_id],
                    answer,
                    result,
                    category=category,
                    mode=mode,
                    names=names,
                )
            )
        except FormatError as exc:  # this record only: an unreadable row with the reason
            reason = str(exc.with_context(row=number))
            samples.append(unreadable(entry_id, reason, category=category))
    return samples


def _multi_turn(
    data_dir: Path,
    filename: str,
    result_path: Path,
    category: str,
    results: Sequence[dict[str, Any]],
    mode: str,
) -> list[Sample]:
    """A multi-turn result file's rows, checked against bfcl-eval's own data version."""
    from tooleval.benchmarks.bfcl.multi_turn_env import load_classes

    try:
        questions = _by_id(_data_file(data_dir, filename, answers=False))
        answers = _by_id(_data_file(data_dir, filename, answers=True))
    except DatasetError:  # the folder lacks this category: the simulated APIs' own data
        load_classes(())  # without bfcl-eval, say how to install it, not that a file is missing
        questions, answers = package_data(filename, False), package_data(filename, True)
        if not questions:
            raise
    # every class the rows replay on, loaded now: one that cannot load refuses the category
    load_classes(
        {
            str(name)
            for row in results
            for name in questions.get(str(row.get("id")), {}).get("involved_classes") or ()
        }
    )
    samples = []
    for number, result in enumerate(results, start=1):
        entry_id = str(result.get("id"))
        where = f"row {number} of {result_path.name}"
        if entry_id not in questions or entry_id not in answers:
            samples.append(
                unreadable(
                    entry_id, f"{where}: no question or answer for {entry_id!r}", category=category
                )
            )
            continue
        why = version_mismatch(filename, questions[entry_id], answers[entry_id])
        if why is not None:
            samples.append(unreadable(entry_id, f"{where}: {why}", category=category))
            continue
        samples.append(
            multi_turn_sample(
                questions[entry_id], answers[entry_id], result, category=category, mode=mode
            )
        )
    return samples


def _data_file(data_dir: Path, filename: str, *, answers: bool) -> Path:
    roots = [data_dir, data_dir / "data"]
    if answers:
        candidates = [r / "possible_answer" / filename for r in roots]
        candidates.append(data_dir.parent / "possible_answer" / filename)
    else:
        candidates = [r / filename for r in roots]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    kind = "possible-answer" if answers else "question"
    raise DatasetError(f"{kind} file {filename} not found", path=str(data_dir))


def _by_id(path: Path) -> dict[str, dict[str, Any]]:
    return {str(row.get("id")): row for row in read_jsonl(path)}
