"""Contingency tables of the three factors and the accuracy subsets of Table 1.

Each table is laid out as in the paper:

- ``mcnemar``: control correct / incorrect x transformed correct / incorrect,
  one count per transformed row paired (``pair_id``) with its labelled
  control row;
- ``insensitivity`` (Table 2): on transformed rows whose gold label changed,
  prediction changed / not changed against the control row's prediction x
  correct / incorrect;
- ``unseen`` (Table 3): correct / incorrect x seen / unseen word pair;
- ``polarity`` (Table 4): word-pair polarity x predicted label.

Table 1's subsets: the whole sample; subset 1, transformed rows whose gold
label changed; subset 2, transformed rows with a pair unseen in training;
subset 3, rows whose pair's polarity does not contain the gold label (pairs
with polarity ``none`` included, which is how the paper's DAM figures of
Tables 1 and 4 agree: 44 of 69 = 0.637 on I_TA1).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DataError
from ..labels import LABELS
from .samples import NO_GOLD, NO_POLARITY, Sample

SUBSETS = ("whole", "subset1", "subset2", "subset3")
SUBSET_TITLES = {
    "whole": "Whole sample",
    "subset1": "Subset 1: gold label changes",
    "subset2": "Subset 2: unseen word pairs",
    "subset3": "Subset 3: polarity ≠ gold label",
}
CORRECT = ("correct", "incorrect")


@dataclass(frozen=True)
class Contingency:
    """Counts with row and column labels, and the rows left out of the table by reason."""

    factor: str
    row_title: str
    column_title: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    counts: np.ndarray
    excluded: dict[str, int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def as_dict(self) -> dict:
        return {
            "rows": list(self.rows), "columns": list(self.columns),
            "row_title": self.row_title, "column_title": self.column_title,
            "counts": self.counts.astype(int).tolist(), "n": self.n,
            "excluded": dict(sorted(self.excluded.items())),
        }  # fmt: skip


def _correct(frame: pd.DataFrame) -> np.ndarray:
    return (frame["prediction"] == frame["label"]).to_numpy()


def _two_by_two(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Counts of (first, second) with True in position 0: [[TT, TF], [FT, FF]]."""
    return np.array(
        [[int((first & second).sum()), int((first & ~second).sum())],
         [int((~first & second).sum()), int((~first & ~second).sum())]]
    )  # fmt: skip


def _pairs(control: Sample, transformed: Sample) -> tuple[pd.DataFrame, Counter[str]]:
    """Transformed rows with their control row's label and prediction; unpaired ones counted."""
    ids = control.frame["pair_id"]
    if not ids.is_unique:
        pair = ids[ids.duplicated()].iloc[0]
        raise DataError(
            control.set_path,
            f"pair_id {pair!r} is on more than one {control.experiment} control row",
        )
    controls = control.frame[["pair_id", "label", "prediction"]].rename(
        columns={"label": "label_control", "prediction": "prediction_control"}
    )
    joined = transformed.frame.merge(controls, on="pair_id", how="left", sort=False)
    excluded: Counter[str] = Counter()
    no_control = joined["prediction_control"].isna().to_numpy()
    if no_control.any():
        excluded[f"no {control.experiment} control row with its pair_id"] = int(no_control.sum())
    joined = joined[~no_control]
    joined = joined.astype({"label_control": np.int8, "prediction_control": np.int8})
    return joined, excluded


def mcnemar_table(control: Sample, transformed: Sample) -> Contingency:
    joined, excluded = _pairs(control, transformed)
    excluded[NO_GOLD] = int((~joined["labelled"]).sum())
    joined = joined[joined["labelled"]]
    unlabelled_control = (joined["label_control"] < 0).to_numpy()
    if unlabelled_control.any():
        excluded["control row has no gold label"] = int(unlabelled_control.sum())
    joined = joined[~unlabelled_control]
    control_correct = (joined["prediction_control"] == joined["label_control"]).to_numpy()
    counts = _two_by_two(control_correct, _correct(joined))
    return Contingency(
        "mcnemar", f"{control.experiment} (control)", f"{transformed.experiment} (transformed)",
        CORRECT, CORRECT, counts, {k: v for k, v in excluded.items() if v},
    )  # fmt: skip


def insensitivity_table(control: Sample, transformed: Sample) -> Contingency:
    joined, excluded = _pairs(control, transformed)
    excluded[NO_GOLD] = int((~joined["labelled"]).sum())
    joined = joined[joined["labelled"]]
    excluded["gold label unchanged"] = int((~joined["gold_label_changed"]).sum())
    joined = joined[joined["gold_label_changed"]]
    changed = (joined["prediction"] != joined["prediction_control"]).to_numpy()
    counts = _two_by_two(changed, _correct(joined))
    return Contingency(
        "insensitivity", "labels predicted", "predictions", ("change", "no change"), CORRECT,
        counts, {k: v for k, v in excluded.items() if v},
    )  # fmt: skip


def _no_gold(sample: Sample) -> dict[str, int]:
    return dict(sample.counts.dropped)


def unseen_table(transformed: Sample) -> Contingency:
    rows = transformed.labelled
    counts = _two_by_two(_correct(rows), ~rows["unseen"].to_numpy())  # columns: seen, unseen
    return Contingency(
        "unseen", "predictions", "word pairs", CORRECT, ("seen", "unseen"), counts,
        _no_gold(transformed),
    )  # fmt: skip


def polarity_order(values: set[str]) -> list[str]:
    """Single labels in label order, then joint polarities (sorted), then ``none``."""
    singles = [label for label in LABELS if label in values]
    joint = sorted(v for v in values if v not in LABELS and v != NO_POLARITY)
    return singles + joint + ([NO_POLARITY] if NO_POLARITY in values else [])


def polarity_table(sample: Sample) -> Contingency:
    rows = sample.labelled
    order = polarity_order(set(rows["polarity"]))
    codes = pd.Categorical(rows["polarity"], categories=order).codes
    counts = np.zeros((len(order), len(LABELS)), dtype=np.int64)
    np.add.at(counts, (codes, rows["prediction"].to_numpy().astype(np.int64)), 1)
    return Contingency(
        "polarity", "polarity", "prediction", tuple(order), LABELS, counts, _no_gold(sample)
    )


def subset_masks(sample: Sample) -> dict[str, np.ndarray]:
    """Row masks of Table 1's subsets over the labelled rows (subsets 1-2: transformed only)."""
    rows = sample.labelled
    transformed = sample.role == "transformed"
    gold = rows["label"].to_numpy()
    disagree = np.array(
        [LABELS[g] not in str(p).split("-") for g, p in zip(gold, rows["polarity"], strict=True)],
        dtype=bool,
    )
    none = np.zeros(len(rows), dtype=bool)
    return {
        "whole": np.ones(len(rows), dtype=bool),
        "subset1": rows["gold_label_changed"].to_numpy() if transformed else none,
        "subset2": rows["unseen"].to_numpy() if transformed else none,
        "subset3": disagree,
    }


def subset_accuracy(sample: Sample) -> dict[str, tuple[int, int]]:
    """(rows, correct) in each subset of Table 1."""
    correct = _correct(sample.labelled)
    return {
        name: (int(mask.sum()), int(correct[mask].sum()))
        for name, mask in subset_masks(sample).items()
    }
