"""Tables 2 and 3 of Poliak et al. (2018): hypothesis-only vs majority-class accuracy.

The majority baseline is the most frequent label of the TRAIN split, applied
to every evaluation split (as in the paper), so it can be below 1/|labels| on
a split with another distribution. Hypothesis-only accuracy comes from any
prediction file in the ``nlistress predict`` format (``uid``, ``prediction``,
optional ``prob_<label>``): the registry's hypothesis-only model, or the
bag-of-words proxy that ``nlistress hypothesis-bow`` writes.

Table 2: per dataset and split, Hyp-Only, MAJ, their difference in points
and the relative gain (difference / MAJ). Table 3: the same per gold label,
where Hyp-Only is the accuracy on the label's rows and MAJ is the label's
share of the split (the paper's convention: in its FN+ table the MAJ column
adds up to 100 across labels).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..atomic import sha256_file, write_json_atomic, write_text_atomic
from ..errors import DataError
from ..parquet_io import write_parquet
from ..predictions import read_predictions
from ..tables import latex_table, markdown_table, tex_escape
from .bow import NaiveBayes, presence_matrix
from .labelled import read_columns, read_labelled
from .words import hypothesis_words

_SHOW = 5  # missing uids named in an error


@dataclass(frozen=True)
class SplitInput:
    """One evaluation split: its canonical table and the hypothesis-only predictions on it."""

    name: str
    table: Path
    predictions: Path


def majority_of(train: str | Path) -> tuple[str, tuple[str, ...], dict[str, int]]:
    """The majority label of a training table, its label order and label counts.

    Ties go to the label that comes first in the dataset's label order.
    """
    data = read_labelled([train], ["uid"])
    counts = np.bincount(data.codes, minlength=len(data.labels))
    return data.labels[int(counts.argmax())], data.labels, {
        label: int(counts[j]) for j, label in enumerate(data.labels)
    }


def predicted_codes(
    predictions: Path, uids: Sequence[str], labels: Sequence[str], prob_tolerance: float,
    of: Path,
) -> np.ndarray:  # fmt: skip
    """The predicted label (index into ``labels``) of each uid; every uid must have one.

    ``of`` names the table the uids come from, for the error.
    """
    preds = read_predictions(predictions, labels, prob_tolerance)
    position = preds.uids.get_indexer(uids)
    if (position < 0).any():
        missing = [u for u, p in zip(uids, position, strict=True) if p < 0]
        raise DataError(
            predictions,
            f"no prediction for {len(missing)} of {len(uids)} rows of {of}, "
            f"e.g. {', '.join(missing[:_SHOW])}",
        )
    return preds.label_codes[position].astype(np.int64)


def _relative(delta: float, base: float) -> float | None:
    return round(100 * delta / base, 2) if base else None


def score_split(
    dataset: str, split: SplitInput, majority: str, labels: Sequence[str], prob_tolerance: float
) -> dict[str, Any]:
    """Accuracy of the predictions and of the train-majority label on one split, overall and per label."""
    data = read_labelled([split.table], ["uid"])
    unknown = [label for label in data.labels if label not in labels]
    if unknown:
        raise DataError(split.table, f"labels {unknown} are not in the training split's {list(labels)}")
    predicted = predicted_codes(split.predictions, data.table["uid"].to_pylist(), labels,
                                prob_tolerance, split.table)  # fmt: skip
    gold = np.asarray([labels.index(label) for label in data.labels])[data.codes]
    majority_code = list(labels).index(majority)
    hyp = float((predicted == gold).mean())
    maj = float((gold == majority_code).mean())
    per_label = []
    for j, label in enumerate(labels):
        mine = gold == j
        if not mine.any():
            continue
        h, share = float((predicted[mine] == j).mean()), float(mine.mean())
        per_label.append({
            "dataset": dataset, "split": split.name, "label": label, "rows": int(mine.sum()),
            "hyp_only": round(100 * h, 2), "majority": round(100 * share, 2),
            "delta": round(100 * (h - share), 2), "relative": _relative(h - share, share),
        })  # fmt: skip
    return {
        "dataset": dataset, "split": split.name, "rows": len(gold),
        "rows_read": data.counts.as_dict(), "majority_label": majority,
        "hyp_only": round(100 * hyp, 2), "majority": round(100 * maj, 2),
        "delta": round(100 * (hyp - maj), 2), "relative": _relative(hyp - maj, maj),
        "per_label": per_label,
        "sources": {"table": sha256_file(split.table), "predictions": sha256_file(split.predictions)},
    }  # fmt: skip


def _csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _signed(value: float | None) -> str | None:
    return None if value is None else f"{value:+.2f}"


def _figures(r: Mapping[str, Any] | None) -> list[Any]:
    """Hyp-Only, MAJ, Δ and % of one result as printed (None where there is no result)."""
    if r is None:
        return [None] * 4
    return [f"{r['hyp_only']:.2f}", f"{r['majority']:.2f}", _signed(r["delta"]), _signed(r["relative"])]


def table2_layout(results: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """Table 2's layout: one row per dataset, Hyp-Only / MAJ / Δ / % per split."""
    splits = list(dict.fromkeys(r["split"] for r in results))
    datasets = list(dict.fromkeys(r["dataset"] for r in results))
    by_key = {(r["dataset"], r["split"]): r for r in results}
    header = ["Dataset", *(f"{s} {c}" for s in splits for c in ("Hyp-Only", "MAJ", "Δ", "%"))]
    rows = [[d, *(v for s in splits for v in _figures(by_key.get((d, s))))] for d in datasets]
    return header, rows


def table3_layout(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """Table 3's layout: per dataset split and gold label, Hyp-Only / MAJ (class share) / Δ / %."""
    header = ["Dataset", "Split", "label", "rows", "Hyp-Only", "MAJ", "Δ", "%"]
    return header, [[r["dataset"], r["split"], r["label"], r["rows"], *_figures(r)] for r in rows]


def write_baselines(
    results: Sequence[Mapping[str, Any]], output: str | Path, predictor: str
) -> list[Path]:
    """Tables 2 and 3 as Markdown, CSV and LaTeX, plus every figure as JSON, into folder ``output``.

    ``predictor`` names what made the hypothesis-only predictions (the model,
    or the bag-of-words proxy); the Markdown tables say it under the table.
    """
    output = Path(output)
    per_label = [row for r in results for row in r["per_label"]]
    trained = "; ".join(dict.fromkeys(f"{r['dataset']} on `{r['train']}`" for r in results if r.get("train")))
    caption = (
        f"\nHyp-Only: {predictor}, trained per dataset ({trained or 'training split not recorded'}); "
        "MAJ: that split's majority label (Table 3: the label's share of the split); Δ: Hyp-Only "
        "minus MAJ in points; %: Δ relative to MAJ.\n"
    )
    files: dict[str, str] = {
        "table2.csv": _csv(results, ["dataset", "split", "rows", "majority_label", "hyp_only",
                                     "majority", "delta", "relative"]),
        "table3.csv": _csv(per_label, ["dataset", "split", "label", "rows", "hyp_only",
                                       "majority", "delta", "relative"]),
    }  # fmt: skip
    for stem, (header, rows), n_text in (
        ("table2", table2_layout(results), 1), ("table3", table3_layout(per_label), 3),
    ):  # fmt: skip
        files[f"{stem}.md"] = markdown_table(header, rows, 2).replace("| n/a ", "| - ") + caption
        files[f"{stem}.tex"] = latex_table([tex_escape(h) for h in header], rows, n_text, 2)
    for name, text in files.items():
        write_text_atomic(output / name, text)
    write_json_atomic(output / "baselines.json", {"predictor": predictor, "results": list(results)})
    return [output / name for name in [*files, "baselines.json"]]


def bow_predictions(
    train: Sequence[str | Path], table: str | Path, output: str | Path, tokenizer: str,
    lowercase: bool, alpha: float,
) -> int:  # fmt: skip
    """Fit the bag-of-words proxy on ``train`` and write predictions for ``table``.

    The file has the ``nlistress predict`` columns (``uid``, ``prediction``,
    ``prob_<label>``), so Table 2 reads it exactly as a model's predictions.
    Every row of ``table`` is predicted, labelled or not.
    """
    fit = read_labelled(train, ["hypothesis"])
    target = read_columns(table, ["uid", "hypothesis"])
    texts = pa.concat_arrays([
        fit.table["hypothesis"].combine_chunks().cast(pa.string()),
        target["hypothesis"].combine_chunks().cast(pa.string()),
    ])  # fmt: skip
    x = presence_matrix(hypothesis_words(texts, tokenizer, lowercase))
    n_fit = fit.table.num_rows
    model = NaiveBayes.fit(x[:n_fit], fit.codes, len(fit.labels), alpha)
    probs = model.predict_proba(x[n_fit:])
    columns: dict[str, pa.Array] = {
        "uid": target["uid"].combine_chunks().cast(pa.string()),
        "prediction": pa.array(np.asarray(fit.labels, dtype=object)[probs.argmax(axis=1)], pa.string()),
    }
    for j, label in enumerate(fit.labels):
        columns[f"prob_{label}"] = pa.array(np.round(probs[:, j], 6), pa.float64())
    write_parquet(pa.table(columns), output)
    return target.num_rows
