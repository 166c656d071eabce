"""Swap sets joined with a model's predictions: one ``Sample`` per experiment in a file.

The statistics read only the columns of the swap-set contract (``uid``,
``label``, ``experiment``, ``pair_id``, ``gold_label_changed``, ``polarity``,
``unseen``), never the texts. Rows without a gold label (``label_status``
needs_annotation) stay in the sample, so pairs and predictions can still be
checked, but every accuracy-based statistic leaves them out and counts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DataError
from ..labels import LABELS
from ..manifest import RowCounts
from ..predictions import read_predictions
from ..swap.schema import POLARITY_NONE

# The paper's samples (section 5.4; the codes of ``swap.schema.EXPERIMENTS``):
# experiment number and, for a transformed sample, the control it comes from.
EXPERIMENTS: dict[str, tuple[int, str | None]] = {
    "I_A": (1, None), "I_TA1": (1, "I_A"), "I_TA2": (1, "I_A"), "I_TA3": (1, "I_A"),
    "E_A": (2, None), "E_TA": (2, "E_A"),
    "I_H": (3, None), "I_TH": (3, "I_H"),
    "E_H": (4, None), "E_TH": (4, "E_H"),
}  # fmt: skip
CONTROLS = tuple(name for name, (_, control) in EXPERIMENTS.items() if control is None)
SET_COLUMNS = ("uid", "label", "experiment", "pair_id", "gold_label_changed", "polarity", "unseen")
NO_POLARITY = POLARITY_NONE  # the ordered word pair never occurs in training
NO_GOLD = "no gold label (needs annotation)"


@dataclass
class Sample:
    """One experiment's rows of a swap set with the model's prediction for each.

    ``frame`` columns: ``uid``, ``pair_id``, ``label`` (label code, -1 for
    none), ``prediction`` (label code), ``gold_label_changed``, ``polarity``,
    ``unseen`` (booleans with nulls as False) and ``labelled``.
    """

    experiment: str
    set_path: Path
    predictions_path: Path
    frame: pd.DataFrame
    counts: RowCounts

    @property
    def role(self) -> str:
        return "control" if EXPERIMENTS[self.experiment][1] is None else "transformed"

    @property
    def labelled(self) -> pd.DataFrame:
        return self.frame[self.frame["labelled"]]


def _read_set_table(path: Path) -> pa.Table:
    if not path.is_file():
        raise DataError(path, "swap set not found")
    try:
        names = pq.read_schema(path).names
    except (OSError, pa.ArrowInvalid) as exc:
        raise DataError(path, f"not a readable Parquet file ({exc})") from None
    missing = [c for c in SET_COLUMNS if c not in names]
    if missing:
        raise DataError(path, f"not a swap set: missing column(s) {', '.join(missing)}")
    table = pq.read_table(path, columns=list(SET_COLUMNS))
    if table.num_rows == 0:
        raise DataError(path, "swap set has no rows")
    return table


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _bool_column(table: pa.Table, name: str, path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Values (nulls as False) and the null mask of a boolean column."""
    column = table[name]
    if pa.types.is_null(column.type):  # all null, e.g. a set still waiting for annotation
        column = column.cast(pa.bool_())
    if not pa.types.is_boolean(column.type):
        raise DataError(path, f"column {name!r} must be boolean, found {column.type}")
    nulls = column.is_null().to_numpy(zero_copy_only=False)
    values = column.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
    return values, nulls


def _polarity_ok(polarity: str) -> bool:
    return polarity == NO_POLARITY or all(part in LABELS for part in polarity.split("-"))


def read_samples(set_path: str | Path, predictions_path: str | Path) -> dict[str, Sample]:
    """Every experiment of a swap set, joined with the predictions; bad rows named by 0-based row."""
    set_path, predictions_path = Path(set_path), Path(predictions_path)
    table = _read_set_table(set_path)
    uids = pd.Index(table["uid"].cast(pa.string()).to_pandas(), name="uid")
    for name in ("uid", "experiment", "pair_id"):
        nulls = table[name].is_null().to_numpy(zero_copy_only=False)
        if nulls.any():
            raise DataError(set_path, f"{name} is empty", _first(nulls), "row")
    if not uids.is_unique:
        row = _first(uids.duplicated())
        raise DataError(set_path, f"duplicate uid {uids[row]!r}", row, "row")
    experiment = table["experiment"].cast(pa.string()).to_numpy(zero_copy_only=False)
    unknown = ~np.isin(experiment, list(EXPERIMENTS))
    if unknown.any():
        row = _first(unknown)
        raise DataError(
            set_path, f"unknown experiment {experiment[row]!r} (expected one of "
            f"{', '.join(EXPERIMENTS)})", row, "row",
        )  # fmt: skip
    labels = table["label"].cast(pa.string()).to_numpy(zero_copy_only=False)
    labelled = pd.notna(labels)
    label_code = np.full(len(labels), -1, dtype=np.int8)
    for code, name in enumerate(LABELS):
        label_code[labels == name] = code
    bad_label = labelled & (label_code < 0)
    if bad_label.any():
        row = _first(bad_label)
        raise DataError(set_path, f"unknown label {labels[row]!r}", row, "row")
    changed, changed_null = _bool_column(table, "gold_label_changed", set_path)
    unseen, unseen_null = _bool_column(table, "unseen", set_path)
    polarity = table["polarity"].cast(pa.string()).to_numpy(zero_copy_only=False)
    transformed = np.array([EXPERIMENTS[e][1] is not None for e in experiment], dtype=bool)
    checks = (
        (labelled & pd.isna(polarity), "polarity is empty on a labelled row"),
        (labelled & transformed & changed_null, "gold_label_changed is empty on a labelled transformed row"),
        (labelled & transformed & unseen_null, "unseen is empty on a labelled transformed row"),
    )  # fmt: skip
    for mask, message in checks:
        if mask.any():
            raise DataError(set_path, message, _first(mask), "row")
    for row in np.flatnonzero(labelled):
        if not _polarity_ok(polarity[row]):
            raise DataError(
                set_path, f"polarity {polarity[row]!r} is neither a label, labels joined by '-', "
                f"nor {NO_POLARITY!r}", int(row), "row",
            )  # fmt: skip

    predictions = read_predictions(predictions_path, LABELS)
    position = predictions.uids.get_indexer(uids)
    missing = position < 0
    if missing.any():
        row = _first(missing)
        raise DataError(
            predictions_path,
            f"no prediction for uid {uids[row]!r} of {set_path} "
            f"({int(missing.sum())} of {len(uids)} set rows have none)",
        )
    frame = pd.DataFrame({
        "uid": uids.to_numpy(), "experiment": experiment,
        "pair_id": table["pair_id"].cast(pa.string()).to_numpy(zero_copy_only=False),
        "label": label_code, "prediction": predictions.label_codes[position],
        "gold_label_changed": changed, "polarity": polarity, "unseen": unseen,
        "labelled": labelled,
    })  # fmt: skip
    samples = {}
    for name in sorted(set(experiment), key=list(EXPERIMENTS).index):
        rows = frame[frame["experiment"] == name].drop(columns="experiment").reset_index(drop=True)
        counts = RowCounts(unit="row", input=len(rows), kept=int(rows["labelled"].sum()))
        if counts.kept < counts.input:
            counts.drop(NO_GOLD, counts.input - counts.kept)
        samples[name] = Sample(name, set_path, predictions_path, rows, counts)
    return samples
