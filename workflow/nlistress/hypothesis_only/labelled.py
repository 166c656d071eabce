"""Read the labelled hypotheses of canonical tables or generated sets.

Every analysis here needs the same thing: hypotheses, their labels in the
dataset's own label order (``label_id``), and an account of the rows left
out. Rows without a label (unlabelled splits, generated rows awaiting
annotation) are excluded and counted, never silently skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import DataError
from ..manifest import RowCounts

DROP_NO_LABEL = "no label (unlabelled or awaiting annotation)"


@dataclass(frozen=True)
class Labelled:
    """The labelled rows of one or more tables, with label codes into ``labels``."""

    table: pa.Table  # the requested columns, labelled rows only, in input order
    labels: tuple[str, ...]
    codes: np.ndarray  # int64 index into ``labels`` per row
    counts: RowCounts


def read_columns(path: str | Path, columns: Sequence[str], optional: Sequence[str] = ()) -> pa.Table:
    """``columns`` (required) and whichever of ``optional`` exist, from a Parquet file."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    try:
        names = pq.read_schema(path).names
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataError(path, f"missing column(s) {', '.join(missing)}")
        return pq.read_table(path, columns=[*columns, *(c for c in optional if c in names)])
    except (OSError, pa.ArrowInvalid) as exc:
        raise DataError(path, f"not a readable Parquet file ({exc})") from None


def label_order(tables: Sequence[tuple[Path, pa.Table]]) -> tuple[str, ...]:
    """The label names in ``label_id`` order, checked to agree across ``tables``."""
    by_id: dict[int, str] = {}
    for path, table in tables:
        pairs = table.select(["label_id", "label"]).drop_null().group_by(["label_id", "label"])
        for row in pairs.aggregate([]).to_pylist():
            seen = by_id.setdefault(int(row["label_id"]), row["label"])
            if seen != row["label"]:
                raise DataError(
                    path, f"label_id {row['label_id']} is {row['label']!r} here but {seen!r} elsewhere"
                )
    names = [by_id[i] for i in sorted(by_id)]
    if len(set(names)) != len(names):
        raise DataError(tables[0][0], f"one label has several label_ids: {by_id}")
    return tuple(names)


def read_labelled(
    paths: Sequence[str | Path],
    columns: Sequence[str],
    optional: Sequence[str] = (),
    allow_empty: bool = False,
) -> Labelled:
    """Concatenate ``paths`` (same label set), keeping labelled rows; count the others.

    With ``allow_empty`` a file whose rows all await a label (a swap set before
    annotation) gives an empty table instead of an error.
    """
    wanted = list(dict.fromkeys([*columns, "label", "label_id"]))
    tables = [(Path(p), read_columns(p, wanted, optional)) for p in paths]
    labels = label_order(tables)
    counts = RowCounts()
    kept = []
    for _, table in tables:
        counts.input += table.num_rows
        has_label = pc.is_valid(table["label"])
        counts.drop(DROP_NO_LABEL, table.num_rows - int(pc.sum(has_label).as_py() or 0))
        kept.append(table.filter(has_label))
    merged = pa.concat_tables(kept, promote_options="permissive") if kept else None
    if merged is None or (merged.num_rows == 0 and not allow_empty):
        raise DataError(Path(paths[0]), "no labelled rows to analyse")
    counts.kept = merged.num_rows
    counts.dropped = +counts.dropped  # forget zero counts
    counts.check()
    merged = merged.set_column(
        merged.column_names.index("label"), "label", merged["label"].cast(pa.string())
    )
    codes = pc.index_in(merged["label"], value_set=pa.array(list(labels), pa.string()))
    return Labelled(merged, labels, codes.to_numpy(zero_copy_only=False).astype(np.int64), counts)
