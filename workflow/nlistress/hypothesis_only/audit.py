"""Artifact audit of one generated set: how far its labels can be guessed from the hypothesis.

For each set: the majority-class accuracy within the set, a hypothesis-only
accuracy from the cross-validated bag-of-words proxy (``bow.py``), the
accuracy of the registry's hypothesis-only model trained on the dataset's
training split where one is configured (``model_audit.py``), and the
strongest give-away words per label within the set's hypotheses.

What is audited: labelled rows only (rows awaiting annotation are counted
and left out), and one row per example and hypothesis *bag of characters*.
A permuted set holds ~100 word orders of each hypothesis; to a bag-of-words
view they are one hypothesis, and counting them 100 times would inflate every
word frequency and leak copies across folds. Rows of the same source example
and label whose hypotheses have the same multiset of characters are word
reorderings of each other (in any language and tokenisation) and are
collapsed into the first one in set order; distinct hypotheses (the three of a
numerical premise, the two sentences of an antonymy example) are all kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..atomic import sha256_file, write_json_atomic
from ..manifest import RowCounts
from ..perturb.runner import dataset_language
from .bow import cross_validated_predictions, presence_matrix
from .giveaway import row_scores, top_words, word_stats
from .labelled import read_labelled
from .settings import ArtifactSettings
from .words import hypothesis_words

DROP_REORDERING = "word reordering of an audited row (same example and label)"
METHOD = (
    "multinomial naive Bayes over hypothesis word presence, {k}-fold cross-validated within "
    "the set, folds grouped by source example (seed {seed}); a cheap proxy for a "
    "hypothesis-only model, not the registry's trained model"
)


_CHUNK = 50_000  # hypotheses per vectorised signature batch
_SPACES = np.array([9, 10, 13, 32, 0xA0, 0x3000], dtype=np.uint64)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 of each value (uint64, wrapping): a well-spread hash per code point."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def character_signatures(texts: list[str]) -> np.ndarray:
    """An order-free signature of each text's non-space characters (sum of hashed code points).

    Two texts get the same signature when they have the same multiset of
    characters, i.e. when one is a word reordering of the other in any
    language; other collisions need a 64-bit hash coincidence.
    """
    out = np.zeros(len(texts), dtype=np.uint64)
    for begin in range(0, len(texts), _CHUNK):
        chunk = texts[begin : begin + _CHUNK]
        points = np.frombuffer("".join(chunk).encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
        hashed = np.where(np.isin(points, _SPACES), np.uint64(0), _mix(points))
        lengths = np.fromiter(map(len, chunk), dtype=np.int64, count=len(chunk))
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        filled = lengths > 0
        sums = np.zeros(len(chunk), dtype=np.uint64)
        if filled.any():
            sums[filled] = np.add.reduceat(hashed, starts[filled])
        out[begin : begin + len(chunk)] = sums
    return out


def _collapse_reorderings(table: pa.Table) -> np.ndarray:
    """Indices of the rows kept: the first of each (source example, label, character multiset)."""
    keys = pd.DataFrame({
        "source": table["source_uid"].to_numpy(),
        "label": table["label"].to_numpy(),
        "signature": character_signatures(table["hypothesis"].to_pylist()),
    })  # fmt: skip
    return np.flatnonzero(~keys.duplicated(keep="first").to_numpy())


def audit_set(set_path: str | Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """The audit record of one set (see the module docstring for what is counted)."""
    settings = ArtifactSettings.from_params(params)
    set_path = Path(set_path)
    data = read_labelled(
        [set_path], ["hypothesis", "dataset"], optional=["source_uid", "uid"], allow_empty=True
    )
    if data.table.num_rows == 0:
        return _unlabelled_record(set_path, data.counts, settings)
    table = data.table
    if "source_uid" not in table.column_names:
        table = table.append_column("source_uid", table["uid"] if "uid" in table.column_names
                                    else pa.array([str(i) for i in range(table.num_rows)]))  # fmt: skip
    keep = _collapse_reorderings(table)
    counts = data.counts
    counts.kept = len(keep)
    if table.num_rows > len(keep):
        counts.drop(DROP_REORDERING, table.num_rows - len(keep))
    counts.check()
    table, codes = table.take(keep), data.codes[keep]
    labels = data.labels
    dataset = str(pc.min(table["dataset"]).as_py())
    tokenizer = settings.tokenizer_for(dataset_language(params, dataset))

    occ = hypothesis_words(table["hypothesis"], tokenizer, settings.lowercase)
    stats = word_stats(occ, codes, labels)
    per_label = np.bincount(codes, minlength=len(labels))
    majority = int(per_label.argmax())
    groups = np.asarray(table["source_uid"].to_pylist(), dtype=object).astype(str)
    hyp_only: dict[str, Any] = {
        "method": METHOD.format(k=settings.folds, seed=settings.seed),
        "folds": settings.folds, "seed": settings.seed, "alpha": settings.alpha,
    }  # fmt: skip
    if len(np.unique(groups)) >= 2 and (per_label > 0).sum() >= 2:
        predicted = cross_validated_predictions(
            presence_matrix(occ), codes, groups, len(labels), settings.folds, settings.seed,
            settings.alpha,
        )  # fmt: skip
        correct = predicted == codes
        accuracy = float(correct.mean())
        hyp_only |= {
            "accuracy": round(accuracy, 6),
            "gain_over_majority_pp": round(100 * (accuracy - per_label[majority] / len(codes)), 4),
            "per_label": {
                label: round(float(correct[codes == j].mean()), 6)
                for j, label in enumerate(labels) if per_label[j]
            },
        }  # fmt: skip
    else:
        hyp_only |= {"accuracy": None, "why_not": "fewer than two labels or examples in the set"}
    _, own = row_scores(occ, codes, stats, settings.min_frequency)
    covered = own >= settings.top_min_p - 1e-12
    return {
        "set": set_path.name,
        "dataset": dataset,
        "sha256": sha256_file(set_path),
        "rows": counts.as_dict(),
        "labels": {label: int(per_label[j]) for j, label in enumerate(labels) if per_label[j]},
        "majority": {
            "label": labels[majority],
            "accuracy": round(float(per_label[majority] / len(codes)), 6),
        },
        "hypothesis_only": hyp_only,
        "giveaway": {
            **settings.describe(tokenizer),
            "top_k": settings.audit_top_k,
            "top": {
                label: words
                for label, words in top_words(
                    stats, settings.min_frequency, settings.top_min_p, settings.audit_top_k
                ).items()
                if per_label[labels.index(label)]
            },
            # Share of each label's hypotheses containing a word with p(own label|w) >= top_min_p.
            "covered_share": {
                label: round(float(covered[codes == j].mean()), 6)
                for j, label in enumerate(labels)
                if per_label[j]
            },
        },
        "warn_margin_pp": settings.warn_margin,
    }


def _unlabelled_record(
    set_path: Path, counts: RowCounts, settings: ArtifactSettings
) -> dict[str, Any]:
    """The audit of a set none of whose rows has a label yet: counts only, and why."""
    return {
        "set": set_path.name,
        "sha256": sha256_file(set_path),
        "rows": counts.as_dict(),
        "labels": {},
        "majority": None,
        "hypothesis_only": {
            "method": METHOD.format(k=settings.folds, seed=settings.seed),
            "accuracy": None,
            "why_not": "no row has a label yet (every row awaits annotation)",
        },
        "giveaway": None,
        "warn_margin_pp": settings.warn_margin,
    }


def write_audit(
    set_path: str | Path, output: str | Path, params: Mapping[str, Any],
    model: tuple[Path, Path] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Audit ``set_path`` and write the record to ``output`` (JSON).

    ``model`` is the registry's hypothesis-only model folder and its
    predictions on the set; without it the record says no model was given.
    """
    record = audit_set(set_path, params)
    record["hypothesis_only_model"] = None
    if model is not None:
        from ..predictions import prob_tolerance
        from .model_audit import model_audit

        record["hypothesis_only_model"] = model_audit(set_path, *model, prob_tolerance(params))
    write_json_atomic(output, record)
    return record
