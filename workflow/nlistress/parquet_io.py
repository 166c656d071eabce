"""Deterministic Parquet writing, whole tables or streamed batches; checked opening for reads.

DVC compares artifacts by hash, so the same rows must give the same bytes on
every machine with the same library versions: fixed schema, fixed row order
and row-group layout, no pandas index metadata, no timestamps, atomic rename.
Sets of a million rows are written batch by batch and never held in memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .atomic import atomic_path
from .errors import DataError

ROW_GROUP_SIZE = 100_000


def write_parquet_batches(
    batches: Iterable[pa.Table], target: str | Path, schema: pa.Schema, compression: str = "zstd"
) -> int:
    """Write ``batches`` (tables of ``schema``) to ``target`` atomically; return the row count."""
    schema = schema.with_metadata(None)
    rows = 0
    with (
        atomic_path(target) as tmp,
        pq.ParquetWriter(
            tmp,
            schema,
            compression=None if compression == "none" else compression,
            use_dictionary=True,
            write_statistics=True,
            store_schema=True,
        ) as writer,
    ):
        for batch in batches:
            writer.write_table(batch.replace_schema_metadata(None), row_group_size=ROW_GROUP_SIZE)
            rows += batch.num_rows
    return rows


def write_parquet(table: pa.Table, target: str | Path, compression: str = "zstd") -> None:
    """Write one in-memory table to ``target`` atomically (see ``write_parquet_batches``)."""
    write_parquet_batches([table], target, table.schema, compression)


def open_parquet(path: str | Path, columns: Sequence[str], what: str) -> pq.ParquetFile:
    """``path`` opened for batched reading, checked to exist and to have ``columns``.

    ``what`` names the file's role in the errors ("set", "canonical table"), so
    a bad input is reported by file and problem, never by a pyarrow traceback.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, f"{what} not found")
    try:
        parquet = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise DataError(path, f"not a readable Parquet file ({exc})") from None
    missing = [c for c in columns if c not in parquet.schema_arrow.names]
    if missing:
        raise DataError(path, f"{what}: missing column(s) {', '.join(missing)}")
    return parquet
