"""Prediction files, read once and validated the same way for every consumer.

``nlistress predict`` writes them, and users bring their own (JSON lines or
Parquet with ``uid`` and ``prediction``, optionally ``prob_<label>`` or
``entropy``); the permutation metrics, scores, swap statistics, baselines and
audits all read them through ``read_predictions``, so a bad file gets the same
one-line error (file and line or row) wherever it is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
import pyarrow.parquet as pq

from .errors import DataError
from .labels import LABELS
from .readers import iter_json_lines


def prob_tolerance(params: Mapping[str, Any]) -> float:
    """``permute.metrics.prob_tolerance``: how far a prediction row's probabilities may sum from 1.

    Every reader of prediction files (metrics, scores, baselines, audits) uses this one value.
    """
    return float(((params.get("permute") or {}).get("metrics") or {}).get("prob_tolerance", 1e-3))


@dataclass(frozen=True)
class Predictions:
    """A prediction file, validated: unique uids, known labels, optional entropy per row."""

    path: Path
    unit: str  # "line" (JSON lines, 1-based) or "row" (Parquet, 0-based)
    uids: pd.Index
    label_codes: np.ndarray  # int8 index into the label list
    entropy: np.ndarray | None  # nats, one per row
    entropy_source: str  # "probabilities", "entropy column" or "none"


def _where(path: Path, unit: str, index: int) -> int:
    """The line (JSON lines: 1-based, blank lines counted) or row (Parquet: 0-based) of row ``index``."""
    if unit == "row":
        return index
    seen = -1
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if raw.strip():
                seen += 1
                if seen == index:
                    return lineno
    return index + 1


def _row_error(path: Path, unit: str, index: int, message: str) -> DataError:
    return DataError(path, message, _where(path, unit, int(index)), unit)


def read_prediction_table(path: Path, wanted: Sequence[str]) -> tuple[pa.Table, str]:
    """The ``wanted`` columns a prediction file has, and its row unit ("row" or "line")."""
    if not path.is_file():
        raise DataError(path, "file not found")
    if path.suffix == ".parquet":
        try:
            names = pq.read_schema(path).names
            table = pq.read_table(path, columns=[c for c in wanted if c in names])
        except (OSError, pa.ArrowInvalid) as exc:
            raise DataError(path, f"not a readable Parquet file ({exc})") from None
        return table, "row"
    if path.suffix in (".jsonl", ".json"):
        try:
            table = pj.read_json(path)
        except (pa.ArrowInvalid, OSError) as exc:
            # Find the bad line with the strict reader, which names it.
            for _ in iter_json_lines(path):
                pass
            raise DataError(path, f"cannot read as JSON lines ({exc})") from None
        return table.select([c for c in wanted if c in table.column_names]), "line"
    raise DataError(path, "expected a .parquet or .jsonl prediction file")


def _float_column(table: pa.Table, name: str, path: Path, unit: str) -> np.ndarray:
    column = table[name]
    if column.null_count:
        first = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise _row_error(path, unit, first, f"{name} is empty")
    try:
        values = column.cast(pa.float64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise DataError(path, f"column {name!r} must hold numbers") from None
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise _row_error(
            path, unit, first, f"{name} must be a finite number >= 0, got {values[first]}"
        )
    return values


def read_predictions(
    path: str | Path, labels: Sequence[str] = LABELS, prob_tolerance: float = 1e-3
) -> Predictions:
    """Read and validate a prediction file (Parquet or JSON lines).

    Required: ``uid`` and ``prediction`` (a label name). Optional: one
    ``prob_<label>`` column per label (all or none; each row must sum to 1
    within ``prob_tolerance`` and is renormalised), else ``entropy`` (nats).
    Errors name the file and the line (JSON lines) or 0-based row (Parquet).
    """
    path = Path(path)
    prob_columns = [f"prob_{label}" for label in labels]
    table, unit = read_prediction_table(path, ["uid", "prediction", *prob_columns, "entropy"])
    missing = [c for c in ("uid", "prediction") if c not in table.column_names]
    if missing:
        raise DataError(path, f"missing column(s) {', '.join(missing)}")
    if table.num_rows == 0:
        raise DataError(path, "no rows")
    for name in ("uid", "prediction"):
        if table[name].null_count:
            first = int(np.flatnonzero(table[name].is_null().to_numpy(zero_copy_only=False))[0])
            raise _row_error(path, unit, first, f"{name} is empty")
    prediction = table["prediction"]
    if pa.types.is_dictionary(prediction.type) or pa.types.is_large_string(prediction.type):
        prediction = prediction.cast(pa.string())  # e.g. a pandas categorical
    if not pa.types.is_string(prediction.type):
        raise DataError(path, f"column 'prediction' must hold label names ({', '.join(labels)})")
    table = table.set_column(table.column_names.index("prediction"), "prediction", prediction)
    codes = pc.index_in(table["prediction"], value_set=pa.array(list(labels)))
    if codes.null_count:
        first = int(np.flatnonzero(codes.is_null().to_numpy(zero_copy_only=False))[0])
        value = table["prediction"][first].as_py()
        raise _row_error(
            path, unit, first, f"unknown prediction {value!r} (expected one of {', '.join(labels)})"
        )
    uids = pd.Index(table["uid"].cast(pa.string()).to_pandas(), name="uid")
    if not uids.is_unique:
        first = int(np.flatnonzero(uids.duplicated())[0])
        raise _row_error(path, unit, first, f"duplicate uid {uids[first]!r}")

    present = [c for c in prob_columns if c in table.column_names]
    entropy: np.ndarray | None = None
    source = "none"
    if present:
        if len(present) != len(prob_columns):
            absent = [c for c in prob_columns if c not in present]
            raise DataError(
                path, f"has {', '.join(present)} but not {', '.join(absent)}; give all or none"
            )
        probs = np.column_stack([_float_column(table, c, path, unit) for c in prob_columns])
        sums = probs.sum(axis=1)
        off = np.abs(sums - 1.0) > prob_tolerance
        if off.any():
            first = int(np.flatnonzero(off)[0])
            raise _row_error(
                path, unit, first,
                f"probabilities sum to {sums[first]:.6g}, not 1 (tolerance {prob_tolerance})",
            )  # fmt: skip
        probs = probs / sums[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = -np.where(probs > 0, probs * np.log(probs), 0.0).sum(axis=1)
        source = "probabilities"
    elif "entropy" in table.column_names:
        entropy = _float_column(table, "entropy", path, unit)
        source = "entropy column"
    return Predictions(
        path, unit, uids, codes.to_numpy(zero_copy_only=False).astype(np.int8), entropy, source
    )
