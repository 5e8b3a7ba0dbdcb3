"""An option given twice combines or is refused with one line; it is never silently replaced.

Every single-value option of ``score``, ``rescore`` and ``run`` is passed
twice (found from the parsers, so a new option is covered too); the repeatable
ones combine (``--metric``) or refuse a repeated key (``--option``,
``--threshold``). ``rescore`` keeps the source run's thresholds.
"""

from __future__ import annotations

import argparse
import json

import pytest

from tooleval.cli._options import finite_float
from tooleval.cli.main import build_parser, main

ROW = {"id": "r1", "tools_called": ["lookup", "cancel"], "expected_tools": ["lookup", "cancel"]}
POSITIONAL = {"score": ["d.jsonl"], "rescore": ["RUN"], "run": ["plan.yaml"]}


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    raise AssertionError(command)


def _single_value_options(command: str) -> list[tuple[str, str, str]]:
    found = []
    for action in _subparser(command)._actions:
        if not action.option_strings or action.nargs == 0:
            continue  # positionals and flags (a flag twice says the same thing)
        if isinstance(action, argparse._AppendAction):
            continue  # repeatable: checked below
        if action.type in (int, float, finite_float):
            values = ("1", "2")
        elif action.choices:
            values = tuple(str(c) for c in list(action.choices)[:2] * 2)[:2]
        else:
            values = ("a", "b")
        found.append((action.option_strings[-1], *values))
    return found


@pytest.mark.parametrize("command", sorted(POSITIONAL))
def test_every_single_value_option_twice_is_refused_in_one_line(command, capsys):
    options = _single_value_options(command)
    assert options, command
    for option, first, second in options:
        argv = [command, *POSITIONAL[command], option, first, option, second]
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err  # one line, no usage block
        assert f"tooleval {command}: error: {option} given twice" in err, err


def test_score_metric_twice_scores_both_in_one_read(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n" + json.dumps({**ROW, "id": "r2"}) + "\n")
    out = tmp_path / "out.jsonl"
    argv = ["score", str(data), "--metric", "tool_correctness", "--metric", "tool_call_f1"]
    assert main([*argv, "-o", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["metric"]) for r in lines] == [
        ("r1", "tool_correctness"),
        ("r1", "tool_call_f1"),
        ("r2", "tool_correctness"),
        ("r2", "tool_call_f1"),
    ]
    # each line is what scoring with that metric alone writes
    alone = tmp_path / "alone.jsonl"
    assert main(["score", str(data), "--metric", "tool_call_f1", "-o", str(alone)]) == 0
    assert [line for line in out.read_text().splitlines() if "tool_call_f1" in line] == (
        alone.read_text().splitlines()
    )


def test_score_options_by_metric_and_repeated_keys(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    out = tmp_path / "out.jsonl"
    two = ["score", str(data), "--metric", "tool_correctness", "--metric", "tool_call_f1"]
    assert main([*two, "--option", "tool_correctness.order=strict", "-o", str(out)]) == 0
    first = json.loads(out.read_text().splitlines()[0])
    assert first["metric"] == "tool_correctness" and first["params"]["order"] == "strict"
    assert main([*two, "--option", "order=strict"]) == 2
    assert "with several metrics write METRIC.order=strict" in capsys.readouterr().err
    one = ["score", str(data), "--metric", "tool_correctness"]
    assert main([*one, "--option", "order=strict", "--option", "order=any"]) == 2
    err = capsys.readouterr().err
    assert "--option order given twice ('strict', then 'any'); give it once" in err
    # the same metric twice is refused, never collapsed silently
    assert main([*one, "--metric", "tool_correctness", "-o", str(out)]) == 2
    assert "--metric tool_correctness given twice" in capsys.readouterr().err


def test_rescore_repeated_keys_and_thresholds_are_refused():
    from tooleval.errors import ConfigError
    from tooleval.runs.rescore import parse_metric_specs

    with pytest.raises(ConfigError, match="--option tool_call_f1.args given twice"):
        parse_metric_specs(["tool_call_f1"], ["args=ignore", "args=exact"])
    with pytest.raises(ConfigError, match="--threshold for tool_call_f1 given twice"):
        parse_metric_specs(["tool_call_f1"], [], ["0.5", "tool_call_f1=0.7"])
    specs = parse_metric_specs(["tool_call_f1", "tool_call_f1"], [], [])
    assert [s.name for s in specs] == ["tool_call_f1"]


def test_rescore_keeps_the_source_runs_thresholds(tmp_path):
    from tooleval.formats import sample_from_row
    from tooleval.runs.rescore import parse_metric_specs, rescore_run
    from tooleval.store import open_store
    from tooleval.store.records import MetricSpec, RowRecord

    with open_store(tmp_path / "runs.db", create=True) as store:
        run = store.create_run(
            "src",
            dataset={},
            connector={},
            metrics=[MetricSpec("tool_call_f1", {}, 0.8), MetricSpec("tool_correctness", {})],
            tags=[],
            config={},
        )
        sample = sample_from_row({**ROW, "tools_called": ["lookup"]})
        store.add_rows(run, [RowRecord(run_id=run, index=0, row_id="r1", sample=sample)])
        store.finish_run(run, "finished")
        kept = rescore_run(store, run, parse_metric_specs(["tool_call_f1"], ["args=ignore"]))
        (spec,) = store.get_run(kept).metrics
        assert spec.threshold == 0.8
        (row,) = store.iter_rows(kept)
        assert row.results[0].threshold == 0.8 and row.results[0].passed is False  # F1 0.67
        new = rescore_run(store, run, parse_metric_specs(["tool_call_f1"], [], ["0.5"]))
        assert store.get_run(new).metrics[0].threshold == 0.5


def _every_parser(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from _every_parser(sub, (*path, name))


def _value(action) -> str:
    """A value the option's type takes (so the second occurrence is what fails)."""
    if action.choices:
        return str(next(iter(action.choices)))
    for candidate in ("x.jsonl", "1", "0.9", "a=b"):
        try:
            if action.type is not None:
                action.type(candidate)
        except (ValueError, TypeError, argparse.ArgumentTypeError):
            continue
        return candidate
    raise AssertionError(f"no test value for {action.option_strings}")


def _all_single_value_options():
    from tooleval.cli.main import _parser_for

    found = []
    for path, sub in [*_every_parser(build_parser()), (("monitor", "serve"), None)]:
        if sub is None:  # the two-word command has its own parser
            sub = (
                _parser_for(["monitor", "serve"])
                ._subparsers._group_actions[0]
                .choices["monitor"]
                ._subparsers._group_actions[0]
                .choices["serve"]
            )
        for action in sub._actions:
            single = action.option_strings and action.nargs is None
            store = type(action).__name__ == "_StoreOnce" or type(action) is argparse._StoreAction
            if single and store:
                found.append((path, action.option_strings[-1], _value(action)))
    return found


@pytest.mark.parametrize(
    "path,option,value",
    _all_single_value_options(),
    ids=lambda x: " ".join(x) if isinstance(x, tuple) else str(x),
)
def test_every_commands_single_value_option_given_twice_is_refused(capsys, path, option, value):
    with pytest.raises(SystemExit) as exit_:
        main([*path, option, value, option, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"{option} given twice" in err and len(err.strip().splitlines()) == 1, err


def _float_options(parser: argparse.ArgumentParser, prefix: list[str]):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, verb in action.choices.items():
                yield from _float_options(verb, [*prefix, name])
        elif action.option_strings and action.type is finite_float:
            yield prefix, action.option_strings[-1]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_no_number_option_of_any_command_takes_a_non_finite_value(value, capsys):
    found = sorted({(tuple(p), o) for p, o in _float_options(build_parser(), [])})
    # every float option is covered (gates, rates, timeouts, thresholds of the receiver)
    assert {"--min-pass-rate", "--max-error-rate", "--max-rps"} <= {o for _, o in found}
    for prefix, option in found:
        with pytest.raises(SystemExit) as stopped:
            main([*prefix, f"{option}={value}"])
        assert stopped.value.code == 2, (prefix, option)
        err = capsys.readouterr().err
        assert f"expected a finite number, got {value!r}" in err, (prefix, option, err)
