"""Scores of one model on many sets: accuracy, confusion matrix, false-neutral share.

Naik et al. (2018) report accuracy per set (matched and mismatched splits)
and, in Table 4, which label a model wrongly falls back on: of the errors, the
share predicted neutral. Predictions come from ``nlistress predict`` or from
anyone's own model (JSON lines with ``uid`` and ``prediction``), read with
``nlistress.permutations.metrics.read_predictions``, so both are validated the same way.

Scores are 3-way (the false-neutral share needs ``neutral``): a set with other
gold labels, or predictions of a model with another label set (a 2-way model's
``prob_not_entailment``), is an error naming the file, never a number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import sha256_file, write_json_atomic, write_text_atomic
from ..errors import DataError
from ..labels import LABELS
from ..parquet_io import open_parquet
from ..predictions import read_predictions
from ..tables import markdown_table

NEUTRAL = LABELS.index("neutral")


def set_name(path: Path, table: pa.Table) -> str:
    """``<test>/<dataset>_<split>`` from the set's own columns (``canonical`` when unperturbed)."""
    def single(column: str, default: str) -> str:
        if column not in table.column_names:
            return default
        values = pc.unique(table[column]).to_pylist()
        return str(values[0]) if len(values) == 1 and values[0] is not None else default

    test = single("perturbation", "canonical")
    dataset, split = single("dataset", ""), single("split", "")
    return f"{test}/{dataset}_{split}" if dataset and split else f"{test}/{path.stem}"


def _model_labels(predictions_path: Path) -> list[str] | None:
    """The label set of the model behind a ``nlistress predict`` file (its ``prob_<label>``
    columns); None where the file has none or is not Parquet (read_predictions then checks it)."""
    if predictions_path.suffix != ".parquet" or not predictions_path.is_file():
        return None
    try:
        names = pq.read_schema(predictions_path).names
    except (OSError, pa.ArrowInvalid):
        return None
    return [name.removeprefix("prob_") for name in names if name.startswith("prob_")] or None


def score_set(set_path: Path, predictions_path: Path, prob_tolerance: float = 1e-3) -> dict[str, Any]:
    """Score the predictions of every labelled row of ``set_path`` (every uid must be predicted).

    ``prob_tolerance``: how far a row's probabilities may sum from 1
    (``permute.metrics.prob_tolerance``, shared with the permutation metrics).
    """
    names = open_parquet(set_path, ("uid", "label"), "set").schema_arrow.names
    try:
        table = pq.read_table(set_path, columns=[c for c in ("uid", "label", "perturbation", "dataset",
                                                             "split") if c in names])  # fmt: skip
    except (OSError, pa.ArrowException) as exc:
        raise DataError(set_path, f"not a readable Parquet file ({exc})") from None
    if not pa.types.is_string(table["label"].type):
        raise DataError(set_path, f"column 'label' must hold label names, got {table['label'].type}")
    labelled = table.filter(table["label"].is_valid())
    if labelled.num_rows == 0:
        raise DataError(set_path, "no labelled rows to score")
    gold = pc.index_in(labelled["label"], value_set=pa.array(list(LABELS)))
    if gold.null_count:
        first = int(np.flatnonzero(gold.is_null().to_numpy(zero_copy_only=False))[0])
        raise DataError(set_path, f"gold label {labelled['label'][first].as_py()!r} is not one of the "
                                  f"3-way labels {list(LABELS)} that nlistress score scores")  # fmt: skip
    model_labels = _model_labels(predictions_path)
    if model_labels is not None and sorted(model_labels) != sorted(LABELS):
        raise DataError(predictions_path, f"the model's labels {model_labels} differ from the set's "
                                          f"{list(LABELS)} ({set_path}); nlistress score scores 3-way models")  # fmt: skip
    predictions = read_predictions(predictions_path, LABELS, prob_tolerance)
    uids = pd.Index(labelled["uid"].to_pylist())
    where = predictions.uids.get_indexer(uids)
    absent = np.flatnonzero(where < 0)
    if absent.size:
        raise DataError(
            predictions_path,
            f"no prediction for {absent.size} of the {len(uids)} labelled uids of {set_path} "
            f"(first: {uids[absent[0]]!r})",
        )
    extra = predictions.uids.difference(pd.Index(table["uid"].to_pylist()))
    if len(extra):  # predictions for another set, or a set that changed since
        raise DataError(predictions_path, f"{len(extra)} predictions for uids not in {set_path} "
                        f"(first: {extra[0]!r}); predict the set again")  # fmt: skip
    gold_codes = gold.to_numpy(zero_copy_only=False).astype(np.int64)
    predicted = predictions.label_codes[where].astype(np.int64)
    confusion = np.zeros((len(LABELS), len(LABELS)), dtype=np.int64)
    np.add.at(confusion, (gold_codes, predicted), 1)
    errors = int((gold_codes != predicted).sum())
    false_neutral = int(((gold_codes != predicted) & (predicted == NEUTRAL)).sum())
    n = len(gold_codes)
    return {
        "set": set_name(set_path, table),
        "set_path": str(set_path),
        "set_sha256": sha256_file(set_path),
        "predictions": str(predictions_path),
        "predictions_sha256": sha256_file(predictions_path),
        "rows": {"input": table.num_rows, "scored": n, "unscored": {"no gold label": table.num_rows - n}},
        "accuracy": float((gold_codes == predicted).mean()) if n else None,
        "errors": errors,
        "false_neutral_share": false_neutral / errors if errors else None,
        "confusion": {"labels": list(LABELS), "rows_gold_columns_predicted": confusion.tolist()},
    }


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def write_scores(
    model: str, results: Sequence[dict[str, Any]], output: Path, metrics_path: Path | None = None
) -> list[Path]:
    """``output`` (.json) plus a Markdown table (.md) and a CSV (.csv) next to it, and with
    ``metrics_path`` the scalar figures alone keyed by set (what `dvc metrics` reads)."""
    write_json_atomic(output, {"model": model, "sets": list(results)})
    written_metrics = []
    if metrics_path is not None:
        write_json_atomic(metrics_path, {r["set"]: {
            "accuracy": r["accuracy"], "false_neutral_share": r["false_neutral_share"], "rows": r["rows"]["scored"],
        } for r in results})  # fmt: skip
        written_metrics.append(metrics_path)
    short = [label[0].upper() for label in LABELS]
    table = []
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    cells = [f"{g}_{p}" for g in LABELS for p in LABELS]
    writer.writerow(["model", "set", "rows", "accuracy", "errors", "false_neutral_share", *cells])
    for r in results:
        matrix = r["confusion"]["rows_gold_columns_predicted"]
        text = " ".join(f"{short[g]}→{short[p]} {matrix[g][p]}"
                        for g in range(len(LABELS)) for p in range(len(LABELS)))  # fmt: skip
        table.append([r["set"], r["rows"]["scored"], _pct(r["accuracy"]), _pct(r["false_neutral_share"]), text])
        writer.writerow([model, r["set"], r["rows"]["scored"], r["accuracy"], r["errors"],
                         r["false_neutral_share"], *(v for row in matrix for v in row)])  # fmt: skip
    md, csv_path = output.with_suffix(".md"), output.with_suffix(".csv")
    header = ["set", "rows", "accuracy (%)", "false neutral (% of errors)", "confusion (gold→predicted)"]
    write_text_atomic(md, f"# {model}\n\n" + markdown_table(header, table, align="lrrrl"))
    write_text_atomic(csv_path, buffer.getvalue())
    return [output, md, csv_path, *written_metrics]
