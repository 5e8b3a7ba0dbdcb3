"""load_dataset: formats, bindings, expected_tools shapes, bad rows and bad files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tooleval.datasets import load_dataset, parse_bind_options
from tooleval.errors import DatasetError
from tooleval.model import ExpectedTools

ROWS = [
    {
        "id": "r1",
        "input": "cancel 4471",
        "expected_tools": ["lookup_order", "cancel_order"],
        "category": "cancel",
    },
    {
        "id": "r2",
        "input": "where is 12",
        "expected_tools": "lookup_order, get_shipping_eta",
        "category": "shipping",
    },
    {
        "id": "r3",
        "input": "refund 12",
        "expected_tools": [{"name": "issue_refund", "args": {"order_id": "12"}}],
        "category": "refund",
    },
    {"id": "r4", "input": "cancel all my orders", "expected_tools": [], "category": "restraint"},
]


def check_shapes(rows) -> None:
    by_id = {r.row_id: r for r in rows}
    assert by_id["r1"].sample.expected_tools.names == ["lookup_order", "cancel_order"]
    assert by_id["r1"].sample.expected_tools.args_given is False
    assert by_id["r2"].sample.expected_tools.names == ["lookup_order", "get_shipping_eta"]
    call = by_id["r3"].sample.expected_tools.calls[0]
    assert (call.name, call.args) == ("issue_refund", {"order_id": "12"})
    assert by_id["r4"].sample.expected_tools == ExpectedTools(())
    assert all(r.error is None for r in rows)


def write_csv(path: Path, rows: list[dict], columns: list[str] | None = None) -> Path:
    columns = columns or list(rows[0])
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: v if isinstance(v, str) else json.dumps(v) for k, v in row.items()})
    return path


def test_csv_each_expected_shape(tmp_path: Path) -> None:
    ds = load_dataset(write_csv(tmp_path / "d.csv", ROWS))
    assert ds.format == "csv" and ds.columns == ["id", "input", "expected_tools", "category"]
    assert ds.bindings["expected_tools"] == "expected_tools"
    check_shapes(ds.rows)
    assert ds.rows[0].sample.category == "cancel" and ds.rows[0].index == 0


def test_jsonl_each_expected_shape(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n\n")
    check_shapes(load_dataset(path).rows)


def test_parquet_each_expected_shape(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Parquet columns are typed: a list<string> column, and JSON text for mixed shapes.
    names = pa.table(
        {
            "id": ["r1", "r4"],
            "input": ["cancel 4471", "cancel all my orders"],
            "expected_tools": [["lookup_order", "cancel_order"], []],
            "category": ["cancel", "restraint"],
        }
    )
    pq.write_table(names, tmp_path / "names.parquet")
    ds = load_dataset(tmp_path / "names.parquet")
    assert ds.format == "parquet"
    assert ds.rows[0].sample.expected_tools.names == ["lookup_order", "cancel_order"]
    assert ds.rows[1].sample.expected_tools == ExpectedTools(())
    text = pa.table(
        {
            "id": [r["id"] for r in ROWS],
            "input": [r["input"] for r in ROWS],
            "expected_tools": [
                r["expected_tools"]
                if isinstance(r["expected_tools"], str)
                else json.dumps(r["expected_tools"])
                for r in ROWS
            ],
            "category": [r["category"] for r in ROWS],
        }
    )
    pq.write_table(text, tmp_path / "text.parquet")
    check_shapes(load_dataset(tmp_path / "text.parquet").rows)


def test_json_array_file(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps(ROWS))
    check_shapes(load_dataset(path).rows)


def test_a_json_file_of_one_object_per_line_reads_as_json_lines(tmp_path: Path) -> None:
    # BFCL writes its data files this way (BFCL_v4_*.json)
    path = tmp_path / "d.json"
    path.write_text('{"id": "a", "input": "x"}\n{"id": "b", "input": "y"}\nnot json\n')
    dataset = load_dataset(path)
    assert dataset.format == "jsonl"
    assert [r.row_id for r in dataset.rows[:2]] == ["a", "b"]
    assert "line 3 is not valid JSON" in (dataset.rows[2].error or "")
    # a pretty-printed object, or an array on one line, is still JSON
    path.write_text('{\n  "rows": [{"id": "a", "input": "x"}]\n}\n')
    assert load_dataset(path).format == "json"
    path.write_text('[{"id": "a", "input": "x"}]\n')
    assert load_dataset(path).format == "json"
    path.write_text('{"id": "a", "input": "x"}\n')  # one object alone: not a list of rows
    with pytest.raises(DatasetError, match="expected a JSON array"):
        load_dataset(path)


def test_bind_other_column_and_cli_form(tmp_path: Path) -> None:
    rows = [
        {"question": r["input"], "gold_tools": r["expected_tools"], "intent": r["category"]}
        for r in ROWS
    ]
    path = write_csv(tmp_path / "d.csv", rows)
    bind = parse_bind_options(["expected_tools=gold_tools", "input=question", "category=intent"])
    ds = load_dataset(path, bind=bind)
    assert ds.bindings == {
        "expected_tools": "gold_tools",
        "input": "question",
        "category": "intent",
    }
    assert ds.rows[2].sample.expected_tools.calls[0].args == {"order_id": "12"}
    assert ds.rows[0].sample.input == "cancel 4471"
    assert ds.rows[0].sample.category == "cancel"
    assert ds.rows[0].row_id == "row-1" and ds.rows[0].sample.id == "row-1"


def test_unbound_columns_go_to_metadata_and_shadowed_field_columns_too(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "d.csv",
        [{"input": "x", "expected_tools": "a", "mine": "b, c", "priority": "high"}],
    )
    ds = load_dataset(path, bind={"expected_tools": "mine"})
    sample = ds.rows[0].sample
    assert sample.expected_tools.names == ["b", "c"]
    assert sample.metadata == {"priority": "high", "expected_tools": "a"}


def test_messages_and_metadata_cells_as_json_text(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "weather in Paris"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "assistant", "content": "Sunny."},
    ]
    path = write_csv(
        tmp_path / "d.csv",
        [{"messages": messages, "metadata": {"user": "u1"}, "expected_tools": "get_weather"}],
    )
    sample = load_dataset(path).rows[0].sample
    assert [c.name for c in sample.actual_calls()] == ["get_weather"]
    assert sample.actual_calls()[0].args == {"city": "Paris"}
    assert sample.input == "weather in Paris" and sample.metadata == {"user": "u1"}


def test_unparsable_cell_kept_as_error_row_with_number_and_column(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text(
        "id,input,expected,metadata\n"
        'a,ok row,"search, fetch",\n'
        'b,bad tools,"[""search"",",{"k": 1}\n'
        "c,bad meta,search,{oops\n"
        'd,"two bad","a b c",[1]\n'
    )
    ds = load_dataset(path, bind={"expected_tools": "expected"})
    assert [r.ok for r in ds.rows] == [True, False, False, False]
    bad = ds.rows[1]
    assert bad.error.startswith("row 2, column expected, field expected_tools: looks like JSON")
    # As complete as possible: everything but the bad cell.
    assert bad.sample.input == "bad tools" and bad.sample.id == "b"
    assert bad.sample.metadata == {"k": 1} and bad.sample.expected_tools is None
    meta = ds.rows[2]
    assert meta.errors[0].context == {"row": 3, "column": "metadata"}
    assert meta.sample.expected_tools.names == ["search"]
    two = ds.rows[3]
    assert {e.context["column"] for e in two.errors} == {"expected", "metadata"}
    assert two.sample.input == "two bad"


def test_csv_row_with_unquoted_commas(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("input,expected_tools\nhello,search, fetch\nfine,search\n")
    ds = load_dataset(path)
    assert "has 3 cells but the header has 2 columns" in ds.rows[0].error
    assert "must be quoted" in ds.rows[0].error
    assert ds.rows[0].error.startswith("row 1")
    assert ds.rows[1].ok


def test_jsonl_bad_line_kept_and_loading_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"input": "a"}\n{"input": \n[1, 2]\n{"input": "d"}\n')
    ds = load_dataset(path)
    assert [r.ok for r in ds.rows] == [True, False, False, True]
    assert ds.rows[1].error.startswith("row 2: line 2 is not valid JSON")
    assert "expected an object" in ds.rows[2].error
    assert ds.rows[3].sample.input == "d"


def test_duplicate_ids_warned(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "x", "input": "a"}\n{"id": "x", "input": "b"}\n')
    assert load_dataset(path).warnings == ["row 2: id 'x' is also used by row 1"]


@pytest.mark.parametrize(
    ("name", "content", "text"),
    [
        ("missing.csv", None, "file not found"),
        ("d.xlsx", b"x", "cannot tell the format from the extension '.xlsx'"),
        ("empty.csv", b"", "the file is empty"),
        ("blank.jsonl", b"\n\n  \n", "the file is empty"),
        ("header.csv", b"input,expected_tools\n", "no data rows"),
        ("latin.csv", "input\ncaf\xe9\n".encode("latin-1"), "not UTF-8 text (byte 0xe9 on line 2)"),
        ("dup.csv", b"input,input\na,b\n", "column 'input' appears twice"),
        ("bad.parquet", b"not parquet at all", "not a readable Parquet file"),
        ("arr.json", b'{"a": 1}', "expected a JSON array of row objects"),
    ],
)
def test_bad_files_name_the_file(
    tmp_path: Path, name: str, content: bytes | None, text: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    assert text in str(info.value)
    assert info.value.context["file"] == str(path)


def test_format_override(tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_text('{"input": "a"}\n')
    assert load_dataset(path, format="jsonl").rows[0].sample.input == "a"
    with pytest.raises(DatasetError, match="unknown dataset format 'xml'"):
        load_dataset(path, format="xml")


def test_bind_errors(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "d.csv", [{"input": "a", "tools": "x"}])
    with pytest.raises(DatasetError, match=r"no column 'tool'.*did you mean 'tools'"):
        load_dataset(path, bind={"expected_tools": "tool"})
    with pytest.raises(
        DatasetError, match=r"unknown field 'expected_tool'.*did you mean 'expected_tools'"
    ):
        load_dataset(path, bind={"expected_tool": "tools"})
    with pytest.raises(DatasetError, match="expected --bind FIELD=COLUMN"):
        parse_bind_options(["expected_tools"])
