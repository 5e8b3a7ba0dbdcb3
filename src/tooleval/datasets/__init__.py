"""Datasets: CSV, JSONL, JSON and Parquet files read into Samples.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "d.jsonl"
>>> _ = path.write_text('{"input": "cancel 4471", "expected_tools": ["lookup_order"]}\\n')
>>> load_dataset(path).rows[0].sample.expected_tools.names
['lookup_order']
"""

from tooleval.datasets.binding import BINDABLE, parse_bind_options, suggest_column
from tooleval.datasets.load import Dataset, DatasetRow, load_dataset

__all__ = [
    "BINDABLE",
    "Dataset",
    "DatasetRow",
    "load_dataset",
    "parse_bind_options",
    "suggest_column",
]
