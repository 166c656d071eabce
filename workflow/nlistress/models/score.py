"""Scores of one model on many sets: accuracy, confusion matrix, false-neutral share.

Naik et al. (2018) report accuracy per set (matched and mismatched splits)
and, in Table 4, which label a model wrongly falls back on: of the errors, the
share predicted neutral. Predictions come from ``nlistress predict`` or from
anyone's own model (JSON lines with ``uid`` and ``prediction``), read with
``nlistress.predictions.read_predictions``, so both are validated the same way.

Every accuracy comes with a bootstrap confidence interval (``models.score``).
The bootstrap resamples source examples, not rows: the rows of a permuted set
that come from one example (its word orders) are not independent, and
resampling them one by one would make the interval too narrow. Accuracy is
also broken down by the columns a set has among ``models.score.breakdown``
(MultiNLI / OCNLI genre, a category column, the swap experiments).

A predictions file may miss uids of the set or hold uids of other sets (one
file of your own covering many sets): both are counted and reported, and
``strict`` (the pipeline's setting) makes either an error.

Scores are 3-way (the false-neutral share needs ``neutral``): a set with other
gold labels, or predictions of a model with another label set (a 2-way model's
``prob_not_entailment``), is an error naming the file, never a number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
#: bootstrap samples drawn at a time (bounds memory: chunk x resampled examples)
_BOOTSTRAP_CHUNK = 100


@dataclass(frozen=True)
class ScoreSettings:
    """``models.score``: the bootstrap behind every accuracy's confidence interval, and the
    columns accuracy is broken down by."""

    bootstrap_samples: int = 1000
    confidence: float = 0.95
    seed: int = 2018
    breakdown: tuple[str, ...] = ("genre", "category", "experiment")

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ScoreSettings:
        """``models.score`` of params the schema has checked (keys, types and ranges:
        schemas/params.schema.yaml), so nothing is checked twice here."""
        section = dict(((params.get("models") or {}).get("score")) or {})
        return cls(**{**section, "breakdown": tuple(section.get("breakdown", cls.breakdown))})


def bootstrap_interval(
    correct: np.ndarray, clusters: np.ndarray, settings: ScoreSettings
) -> list[float] | None:
    """Percentile bootstrap interval of the accuracy ``correct.mean()``, resampling whole
    clusters (source examples); None without samples or rows."""
    if settings.bootstrap_samples == 0 or correct.size == 0:
        return None
    _, codes = np.unique(clusters, return_inverse=True)
    hits = np.bincount(codes, weights=correct.astype(np.float64))
    sizes = np.bincount(codes).astype(np.float64)
    rng = np.random.default_rng(settings.seed)
    estimates = []
    for start in range(0, settings.bootstrap_samples, _BOOTSTRAP_CHUNK):
        draws = rng.integers(0, len(sizes), size=(min(_BOOTSTRAP_CHUNK, settings.bootstrap_samples - start),
                                                  len(sizes)))  # fmt: skip
        estimates.append(hits[draws].sum(axis=1) / sizes[draws].sum(axis=1))
    tail = (1 - settings.confidence) / 2
    low, high = np.quantile(np.concatenate(estimates), [tail, 1 - tail])
    return [float(low), float(high)]


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


def _read_set(set_path: Path, breakdown: Sequence[str]) -> pa.Table:
    names = open_parquet(set_path, ("uid", "label"), "set").schema_arrow.names
    wanted = ("uid", "label", "perturbation", "dataset", "split", "source_uid", *breakdown)
    try:
        table = pq.read_table(set_path, columns=[c for c in dict.fromkeys(wanted) if c in names])
    except (OSError, pa.ArrowException) as exc:
        raise DataError(set_path, f"not a readable Parquet file ({exc})") from None
    if not pa.types.is_string(table["label"].type):
        raise DataError(set_path, f"column 'label' must hold label names, got {table['label'].type}")
    return table


def _accuracy(correct: np.ndarray, clusters: np.ndarray, settings: ScoreSettings) -> dict[str, Any]:
    return {"rows": int(correct.size), "accuracy": float(correct.mean()) if correct.size else None,
            "interval": bootstrap_interval(correct, clusters, settings)}  # fmt: skip


def _breakdown(
    table: pa.Table, correct: np.ndarray, clusters: np.ndarray, settings: ScoreSettings
) -> dict[str, dict[str, dict[str, Any]]]:
    """Accuracy (with its interval) per value of each breakdown column the set has."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for column in settings.breakdown:
        if column not in table.column_names or table[column].null_count == table.num_rows:
            continue
        values = np.array([str(v) for v in table[column].to_pylist()], dtype=object)
        out[column] = {str(value): _accuracy(correct[values == value], clusters[values == value], settings)
                       for value in sorted(set(values))}  # fmt: skip
    return out


def score_set(
    set_path: Path,
    predictions_path: Path,
    prob_tolerance: float = 1e-3,
    settings: ScoreSettings | None = None,
    strict: bool = False,
) -> dict[str, Any]:
    """Score the predictions of the labelled rows of ``set_path``.

    ``prob_tolerance``: how far a row's probabilities may sum from 1
    (``permute.metrics.prob_tolerance``, shared with the permutation metrics).
    Labelled rows without a prediction are left out and counted (``rows.unscored``), and
    predictions for uids not in the set are counted (``rows.extra_predictions``); with
    ``strict`` either is an error.
    """
    settings = settings or ScoreSettings()
    table = _read_set(set_path, settings.breakdown)
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
    if absent.size == len(uids) or (strict and absent.size):
        raise DataError(
            predictions_path,
            f"no prediction for {absent.size} of the {len(uids)} labelled uids of {set_path} "
            f"(first: {uids[absent[0]]!r})",
        )
    extra = predictions.uids.difference(pd.Index(table["uid"].to_pylist()))
    if strict and len(extra):  # predictions for another set, or a set that changed since
        raise DataError(predictions_path, f"{len(extra)} predictions for uids not in {set_path} "
                        f"(first: {extra[0]!r}); predict the set again")  # fmt: skip
    kept = where >= 0
    scored = labelled.filter(pa.array(kept))
    gold_codes = gold.to_numpy(zero_copy_only=False).astype(np.int64)[kept]
    predicted = predictions.label_codes[where[kept]].astype(np.int64)
    confusion = np.zeros((len(LABELS), len(LABELS)), dtype=np.int64)
    np.add.at(confusion, (gold_codes, predicted), 1)
    correct = gold_codes == predicted
    errors = int((~correct).sum())
    false_neutral = int((~correct & (predicted == NEUTRAL)).sum())
    clusters_from = "source_uid" if "source_uid" in scored.column_names else "uid"
    clusters = np.asarray(scored[clusters_from].to_pylist(), dtype=object)
    n = len(gold_codes)
    unscored = {"no gold label": table.num_rows - labelled.num_rows, "no prediction": int(absent.size)}
    return {
        "set": set_name(set_path, table),
        "set_path": str(set_path),
        "set_sha256": sha256_file(set_path),
        "predictions": str(predictions_path),
        "predictions_sha256": sha256_file(predictions_path),
        "rows": {"input": table.num_rows, "scored": n, "unscored": unscored,
                 "extra_predictions": len(extra), "extra_uids_first": [str(u) for u in extra[:5]]},
        "accuracy": float(correct.mean()),
        "accuracy_interval": bootstrap_interval(correct, clusters, settings),
        "bootstrap": {"samples": settings.bootstrap_samples, "confidence": settings.confidence,
                      "seed": settings.seed, "resampled": str(clusters_from)},
        "errors": errors,
        "false_neutral_share": false_neutral / errors if errors else None,
        "confusion": {"labels": list(LABELS), "rows_gold_columns_predicted": confusion.tolist()},
        "breakdown": _breakdown(scored, correct, clusters, settings),
    }


def percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def interval_text(interval: Sequence[float] | None) -> str:
    return "—" if interval is None else f"{100 * interval[0]:.1f} to {100 * interval[1]:.1f}"


def rows_note(r: Mapping[str, Any]) -> str:
    """What was not scored, for the Markdown table ('' when every labelled row was)."""
    rows = r["rows"]
    parts = [f"{n:,} without a prediction" for n in [rows["unscored"].get("no prediction", 0)] if n]
    if rows.get("extra_predictions"):
        parts.append(f"{rows['extra_predictions']:,} predictions for uids not in the set, ignored "
                     f"(first: {', '.join(rows['extra_uids_first'])})")  # fmt: skip
    return "; ".join(parts)


def breakdown_sections(results: Sequence[Mapping[str, Any]]) -> str:
    sections = []
    for r in results:
        for column, values in (r.get("breakdown") or {}).items():
            rows = [[value, v["rows"], percent(v["accuracy"]), interval_text(v["interval"])] for value, v in values.items()]
            sections.append(f"\n## {r['set']} by {column}\n\n"
                            + markdown_table([column, "rows", "accuracy (%)", "interval (%)"], rows, align="lrrr"))  # fmt: skip
    return "".join(sections)


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
    writer.writerow(["model", "set", "rows", "accuracy", "accuracy_low", "accuracy_high", "errors",
                     "false_neutral_share", "no_prediction", "extra_predictions", *cells])  # fmt: skip
    for r in results:
        matrix = r["confusion"]["rows_gold_columns_predicted"]
        text = " ".join(f"{short[g]}→{short[p]} {matrix[g][p]}"
                        for g in range(len(LABELS)) for p in range(len(LABELS)))  # fmt: skip
        interval = r.get("accuracy_interval") or [None, None]
        table.append([r["set"], r["rows"]["scored"], percent(r["accuracy"]), interval_text(r.get("accuracy_interval")),
                      percent(r["false_neutral_share"]), text, rows_note(r)])  # fmt: skip
        writer.writerow([model, r["set"], r["rows"]["scored"], r["accuracy"], *interval, r["errors"],
                         r["false_neutral_share"], r["rows"]["unscored"].get("no prediction", 0),
                         r["rows"].get("extra_predictions", 0), *(v for row in matrix for v in row)])  # fmt: skip
    md, csv_path = output.with_suffix(".md"), output.with_suffix(".csv")
    header = ["set", "rows", "accuracy (%)", "interval (%)", "false neutral (% of errors)",
              "confusion (gold→predicted)", "not scored"]  # fmt: skip
    confidence = next((r["bootstrap"]["confidence"] for r in results if r.get("bootstrap")), 0.95)
    legend = (f"\nIntervals: {confidence:.0%} percentile bootstrap, resampling source examples "
              "(all rows made from one example together).\n")  # fmt: skip
    write_text_atomic(md, f"# {model}\n\n" + markdown_table(header, table, align="lrrrrll") + legend
                      + breakdown_sections(results))  # fmt: skip
    write_text_atomic(csv_path, buffer.getvalue())
    return [output, md, csv_path, *written_metrics]
