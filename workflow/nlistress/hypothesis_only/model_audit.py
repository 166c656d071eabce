"""The registry's hypothesis-only model on one generated set: the second figure of its audit.

The cross-validated bag-of-words proxy (``audit.py``) asks whether a set's own
hypotheses give its labels away. This asks whether a trained hypothesis-only
model (``artifacts.hypothesis_only_model``, trained on the training split of
the set's dataset as Poliak et al. train theirs; rule ``baseline_train``) can
guess them: a stress test a model passes without reading the premise measures
an artifact. A model that saw the set's source examples in training would
score what it memorised, so a set built from its training split (the offline
profile's stand-ins) gets that overlap reported instead of an accuracy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.compute as pc

from ..atomic import sha256_file
from ..errors import DataError
from .baselines import predicted_codes
from .labelled import read_columns, read_labelled


def _model_config(model_dir: Path) -> dict[str, Any]:
    path = model_dir / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
        train = Path(config["train"]["inputs"]["train"]["path"])
        labels, name = list(config["labels"]), str(config["name"])
    except FileNotFoundError:
        raise DataError(path, "not found: train the model first (`nlistress train`)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(path, f"not a model config ({exc})") from None
    if not config.get("hypothesis_only"):
        raise DataError(path, f"model {name!r} reads the premise: the audit needs a hypothesis-only model")
    return {"name": name, "train": train, "labels": labels}


def model_audit(
    set_path: str | Path, model_dir: str | Path, predictions: str | Path, prob_tolerance: float
) -> dict[str, Any]:
    """Accuracy of the model's ``predictions`` on the labelled rows of ``set_path``, or why not."""
    set_path, model_dir, predictions = Path(set_path), Path(model_dir), Path(predictions)
    config = _model_config(model_dir)
    record: dict[str, Any] = {
        "model": config["name"],
        "train": str(config["train"]),
        "predictions_sha256": sha256_file(predictions),
    }
    data = read_labelled([set_path], ["uid"], optional=["source_uid"], allow_empty=True)
    if data.table.num_rows == 0:
        return record | {"accuracy": None, "why_not": "no row has a label yet"}
    table = data.table
    sources = pc.unique(table["source_uid" if "source_uid" in table.column_names else "uid"])
    trained_on = read_columns(config["train"], ["uid"])["uid"]
    seen = int(pc.sum(pc.is_in(sources, value_set=trained_on.combine_chunks())).as_py() or 0)
    if seen:
        return record | {
            "accuracy": None,
            "why_not": f"{seen:,} of the set's {len(sources):,} source examples are in the model's "
            f"training split ({config['train']}), so its accuracy here would measure memory",
        }
    labels = config["labels"]
    unknown = sorted(set(data.labels) - set(labels))
    if unknown:
        raise DataError(set_path, f"labels {unknown} are not among the model's {labels}")
    predicted = predicted_codes(predictions, table["uid"].to_pylist(), labels, prob_tolerance, set_path)
    gold = np.asarray([labels.index(label) for label in data.labels])[data.codes]
    correct = predicted == gold
    per_label = np.bincount(gold, minlength=len(labels))
    majority = int(per_label.argmax())
    accuracy, majority_share = float(correct.mean()), float(per_label[majority] / len(gold))
    return record | {
        "rows": len(gold),
        "accuracy": round(accuracy, 6),
        "majority": {"label": labels[majority], "accuracy": round(majority_share, 6)},
        "gain_over_majority_pp": round(100 * (accuracy - majority_share), 4),
        "per_label": {
            label: round(float(correct[gold == j].mean()), 6)
            for j, label in enumerate(labels) if per_label[j]
        },
    }  # fmt: skip
