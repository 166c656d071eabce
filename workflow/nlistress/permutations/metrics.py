"""Permutation-acceptance metrics of Sinha et al. (2021), sections 3-6 and appendices A-E.

One result per (model, permuted set): the model's predictions on the original
examples and on every permutation are joined to the permuted set and to the
canonical table, and everything is computed with numpy group sums over the
set's rows, so a set of a million permutations costs seconds, not a Python
loop per row. Only examples that are in the permuted set ("used examples",
the paper's Table 7) count, except for ``A_all``.

Definitions (paper wording in quotes where the text is ambiguous):

- ``Pr_cor`` of an example: the share of its permutations predicted as the
  gold label (eq. 1), with each example's own q.
- ``Ω_x``: the share of used examples with ``Pr_cor >= x``. The text of eq. 2
  says "exceeds" (``>``), but Figure 8 plots x = 1.0, which is empty under
  ``>``, and Figure 1 counts an example at exactly 1/3 for Ω_rand; ``>=`` is
  the reading under which both figures make sense.
- ``Ω_max``: at least one permutation correct (``Pr_cor > 0``). The text says
  "x = 1/|D_test|", evidently meaning one permutation out of q (its own
  footnote: Ω_max -> 1 as q grows).
- ``Ω_rand``: ``Ω_x`` at ``x = omega_rand`` (the paper uses 0.34 in
  appendix E; "1/m" in section 4).
- ``D_c`` / ``D_f``: used examples whose original prediction is / is not the
  gold label; ``P^c`` / ``P^f``: mean ``Pr_cor`` over each (eq. 3). The text
  also calls the flipped examples "D_f"; here they are reported separately as
  ``flips``: examples of ``D_f`` with at least one permutation correct.
- Entropy: natural log (nats; uniform over 3 labels is ln 3 = 1.0986), of the
  predicted distribution on accepted permutations (predicted == gold), as in
  Figure 2.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import write_json_atomic, write_text_atomic
from ..errors import ConfigError, DataError
from ..figures import FigureSize
from ..labels import LABELS
from ..predictions import Predictions, read_predictions
from ..schema import checked
from ..tables import csv_table, latex_table, markdown_table, tex_escape

BLEU_ORDERS = (2, 3, 4)
SIDES = ("premise", "hypothesis")
# Permuted-set columns the metrics read (texts are never read).
SET_COLUMNS = (
    "uid",
    "source_uid",
    "dataset",
    "split",
    "label",
    "perturbation",
    "premise_tokens",
    "hypothesis_tokens",
    *(f"bleu{n}_{side}" for side in SIDES for n in BLEU_ORDERS),
)
ORDER_COLUMNS = tuple(f"{side}_order" for side in SIDES)
# Integer counts are compared with x * q; this absorbs float error in x (0.15000000000000002).
_EPS = 1e-9
# How many missing uids an error message names.
_SHOW = 5


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------


def _edges(value: list[float], where: str) -> tuple[float, ...]:
    edges = tuple(float(v) for v in value)
    if any(b <= a for a, b in itertools.pairwise(edges)):
        raise ConfigError(f"{where}: bin edges must increase strictly, got {value!r}")
    return edges


def _grid(value: Any, where: str) -> tuple[float, ...]:
    """A list of thresholds, or {start, stop, step} (stop included)."""
    if isinstance(value, Mapping):
        start, stop, step = (float(value[k]) for k in ("start", "stop", "step"))
        if stop < start:
            raise ConfigError(f"{where}: expected stop >= start")
        n = math.floor((stop - start) / step + _EPS) + 1
        value = [round(start + i * step, 10) for i in range(n)]
    return tuple(sorted({float(v) for v in value}))


@dataclass(frozen=True)
class MetricSettings:
    """The knobs of the metrics (params.yaml ``permute.metrics``); no defaults live in code."""

    #: x of Ω_rand (paper: 0.34)
    omega_rand: float
    #: thresholds x of the Ω_x curve (Figure 8)
    omega_grid: tuple[float, ...]
    #: BLEU bin edges for acceptance by BLEU (Figures 3 and 10)
    bleu_edges: tuple[float, ...]
    #: original length bin edges, premise + hypothesis tokens (Figure 6)
    length_edges: tuple[float, ...]
    #: POS mini-tree ratio bin edges (Figure 4)
    minitree_edges: tuple[float, ...]
    #: largest |sum of probabilities - 1| accepted before renormalising
    prob_tolerance: float

    @classmethod
    def from_mapping(cls, section: Any, where: str = "permute.metrics") -> MetricSettings:
        """``permute.metrics`` as typed settings; the schema checks its shape and bounds."""
        section = checked(section, "permute", "metrics")
        return cls(
            omega_rand=float(section["omega_rand"]),
            omega_grid=_grid(section["omega_grid"], f"{where}.omega_grid"),
            bleu_edges=_edges(section["bleu_edges"], f"{where}.bleu_edges"),
            length_edges=_edges(section["length_edges"], f"{where}.length_edges"),
            minitree_edges=_edges(section["minitree_edges"], f"{where}.minitree_edges"),
            prob_tolerance=float(section["prob_tolerance"]),
        )


# ---------------------------------------------------------------------------
# Inputs: the permuted set and the canonical table
# ---------------------------------------------------------------------------


def _single(table: pa.Table, column: str, path: Path) -> str:
    values = pc.unique(table[column]).to_pylist()
    if len(values) != 1 or values[0] is None:
        raise DataError(
            path, f"expected one {column} per file, found {sorted(map(str, values))[:5]}"
        )
    return str(values[0])


def _required_columns(path: Path, names: Iterable[str], what: str) -> list[str]:
    if not path.is_file():
        raise DataError(path, f"{what} not found")
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise DataError(path, f"not a readable Parquet file ({exc})") from None
    missing = [c for c in names if c not in schema.names]
    if missing:
        raise DataError(path, f"{what}: missing column(s) {', '.join(missing)}")
    return list(names)


@dataclass
class _Set:
    """The permuted set reduced to arrays: one entry per row, or per example."""

    path: Path
    dataset: str
    split: str
    variant: str
    uids: pd.Index  # row uids
    example: np.ndarray  # row -> example code
    example_uids: np.ndarray  # example code -> source_uid
    row_label: np.ndarray  # row -> label code (-1: null)
    tokens: np.ndarray  # example -> premise + hypothesis tokens
    bleu: dict[int, np.ndarray]  # n -> row -> mean BLEU-n of the permuted sides (NaN: none)


def _read_set(path: Path, labels: Sequence[str]) -> _Set:
    _required_columns(path, (*SET_COLUMNS, *ORDER_COLUMNS), "permuted set")
    table = pq.read_table(
        path,
        columns=list(SET_COLUMNS),
        read_dictionary=["dataset", "split", "label", "perturbation"],
    )
    if table.num_rows == 0:
        raise DataError(path, "permuted set has no rows")
    dataset, split, variant = (
        _single(table, c, path) for c in ("dataset", "split", "perturbation")
    )
    uids = pd.Index(table["uid"].to_pandas(), name="uid")
    if not uids.is_unique:
        raise DataError(path, f"duplicate uid {uids[uids.duplicated()][0]!r} in the permuted set")
    example, example_uids = pd.factorize(table["source_uid"].to_pandas(), sort=False)
    row_label = pc.fill_null(pc.index_in(table["label"], value_set=pa.array(list(labels))), -1)
    row_label = row_label.to_numpy(zero_copy_only=False).astype(np.int8)

    length = table["premise_tokens"].to_numpy().astype(np.int64) + table[
        "hypothesis_tokens"
    ].to_numpy().astype(np.int64)
    first = np.full(len(example_uids), -1, dtype=np.int64)
    first[example[::-1]] = np.arange(len(example))[::-1]
    tokens = length[first]
    differs = tokens[example] != length
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        raise DataError(
            path, f"token counts of {uids[row]!r} differ from those of its other permutations"
        )

    permuted = {}
    for side in SIDES:
        orders = pq.read_table(path, columns=[f"{side}_order"])[f"{side}_order"]
        permuted[side] = orders.is_valid().to_numpy(zero_copy_only=False)
        del orders
    n_sides = permuted["premise"].astype(np.int64) + permuted["hypothesis"]
    bleu = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for n in BLEU_ORDERS:
            total = np.zeros(table.num_rows)
            for side in SIDES:
                values = table[f"bleu{n}_{side}"].cast(pa.float64()).to_numpy(zero_copy_only=False)
                total += np.where(permuted[side], values, 0.0)  # null BLEU -> NaN
            bleu[n] = np.where(n_sides > 0, total / np.maximum(n_sides, 1), np.nan)
    return _Set(
        path, dataset, split, variant, uids, example.astype(np.int64),
        np.asarray(example_uids, dtype=object), row_label, tokens, bleu,
    )  # fmt: skip


def _missing_error(path: Path, what: str, missing: np.ndarray, total: int, of: str) -> DataError:
    shown = ", ".join(repr(str(u)) for u in missing[:_SHOW])
    more = f" and {len(missing) - _SHOW} more" if len(missing) > _SHOW else ""
    return DataError(path, f"no {what} for {len(missing)} of {total} {of}: {shown}{more}")


# ---------------------------------------------------------------------------
# The result of one (model, set)
# ---------------------------------------------------------------------------


@dataclass
class UnliResult:
    """Everything computed for one model on one permuted set."""

    model: str
    variant: str
    dataset: str
    split: str
    set_path: str
    summary: dict[str, Any]
    per_example: pd.DataFrame
    omega_curve: pd.DataFrame
    bleu_bins: pd.DataFrame
    length_bins: pd.DataFrame
    entropy: pd.DataFrame
    minitree_bins: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.model, self.variant, self.dataset, self.split)


def _mean_or_none(values: np.ndarray) -> float | None:
    return float(values.mean()) if len(values) else None


def bin_index(values: np.ndarray, edges: Sequence[float]) -> np.ndarray:
    """Bin of each value: [e_i, e_i+1), the last bin closed; -1 outside the edges or NaN."""
    edges_arr = np.asarray(edges, dtype=np.float64)
    index = np.searchsorted(edges_arr, values, side="right") - 1
    index = np.where(values == edges_arr[-1], len(edges_arr) - 2, index)
    outside = ~np.isfinite(values) | (values < edges_arr[0]) | (values > edges_arr[-1])
    return np.where(outside, -1, index)


def binned_means(
    values: np.ndarray, target: np.ndarray, edges: Sequence[float]
) -> tuple[np.ndarray, np.ndarray, int]:
    """Per bin of ``values``: count and mean of ``target`` (NaN where empty); values outside."""
    index = bin_index(values, edges)
    inside = index >= 0
    nbins = len(edges) - 1
    counts = np.bincount(index[inside], minlength=nbins)
    sums = np.bincount(index[inside], weights=target[inside], minlength=nbins)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return counts, means, int((~inside).sum())


def _quantiles(values: np.ndarray) -> dict[str, float | None]:
    if not len(values):
        return dict.fromkeys(("mean", "q1", "median", "q3", "min", "max"))
    q1, median, q3 = np.percentile(values, [25, 50, 75])  # linear interpolation
    return {
        "mean": float(values.mean()), "q1": float(q1), "median": float(median),
        "q3": float(q3), "min": float(values.min()), "max": float(values.max()),
    }  # fmt: skip


def minitree_bins(
    per_example: pd.DataFrame, betas_path: str | Path, edges: Sequence[float]
) -> pd.DataFrame:
    """Figure 4: mean Pr_cor per bin of the POS mini-tree ratio β(ŝ)/β(s), for all, D_c, D_f.

    ``betas_path`` is a table written by :func:`nlistress.permutations.minitree.write_example_betas`
    for the same permuted set (columns ``source_uid`` and ``ratio``).
    """
    path = Path(betas_path)
    _required_columns(path, ("source_uid", "ratio"), "mini-tree table")
    betas = pq.read_table(path, columns=["source_uid", "ratio"]).to_pandas()
    index = pd.Index(betas["source_uid"])
    at = index.get_indexer(per_example["source_uid"])
    if (at < 0).any():
        missing = per_example["source_uid"].to_numpy()[at < 0]
        raise _missing_error(path, "mini-tree score", missing, len(per_example), "used examples")
    ratio = betas["ratio"].to_numpy(dtype=np.float64, na_value=np.nan)[at]
    pr_cor = per_example["pr_cor"].to_numpy(dtype=np.float64)
    correct = per_example["original_correct"].to_numpy(dtype=bool)
    rows = []
    for subset, mask in (("all", np.ones_like(correct)), ("D_c", correct), ("D_f", ~correct)):
        counts, means, _ = binned_means(ratio[mask], pr_cor[mask], edges)
        _, mean_ratio, _ = binned_means(ratio[mask], ratio[mask], edges)
        for i in range(len(edges) - 1):
            rows.append({
                "subset": subset, "lo": edges[i], "hi": edges[i + 1],
                "n_examples": int(counts[i]),
                "mean_pr_cor": None if counts[i] == 0 else float(means[i]),
                "mean_ratio": None if counts[i] == 0 else float(mean_ratio[i]),
            })  # fmt: skip
    frame = pd.DataFrame(rows)
    frame.attrs["undefined"] = int((~np.isfinite(ratio)).sum())
    return frame


def _gold_labels(
    canonical_path: Path, data: _Set, labels: Sequence[str], set_path: Path
) -> tuple[pd.Index, np.ndarray, np.ndarray]:
    """The canonical table's uids and label codes (-1: unlabelled), and the gold label of
    every used example; the set's own labels must agree with them."""
    _required_columns(canonical_path, ("uid", "label"), "canonical table")
    canonical = pq.read_table(canonical_path, columns=["uid", "label"])
    canon_uids = pd.Index(canonical["uid"].to_pandas())
    canon_label = (
        pc.fill_null(pc.index_in(canonical["label"], value_set=pa.array(list(labels))), -1)
        .to_numpy(zero_copy_only=False)
        .astype(np.int8)
    )
    unknown = canonical["label"].is_valid().to_numpy(zero_copy_only=False) & (canon_label < 0)
    if unknown.any():
        first = int(np.flatnonzero(unknown)[0])
        raise DataError(
            canonical_path, f"label {canonical['label'][first].as_py()!r} is not one of {list(labels)}",
            first, "row",
        )  # fmt: skip
    n_ex = len(data.example_uids)
    at = canon_uids.get_indexer(data.example_uids)
    if (at < 0).any():
        raise _missing_error(
            canonical_path, "row", data.example_uids[at < 0], n_ex, f"source_uids of {set_path.name}"
        )
    gold = canon_label[at]
    if (gold < 0).any():
        shown = ", ".join(repr(str(u)) for u in data.example_uids[gold < 0][:_SHOW])
        raise DataError(
            canonical_path,
            f"{int((gold < 0).sum())} used examples have no gold label ({shown}); "
            "permutation metrics need gold labels (is this an unlabelled split?)",
        )
    mismatch = data.row_label != gold[data.example]
    if mismatch.any():
        row = int(np.flatnonzero(mismatch)[0])
        raise DataError(
            set_path,
            f"label of {data.uids[row]!r} differs from the gold label of its original "
            f"{data.example_uids[data.example[row]]!r} in {canonical_path.name}",
        )
    return canon_uids, canon_label, gold


def _join_predictions(
    data: _Set, orig: Predictions, perm: Predictions, set_path: Path
) -> tuple[np.ndarray, np.ndarray]:
    """Positions of every used example in the original predictions and of every permuted
    row in the permuted ones; a missing one is an error naming the file and the uids."""
    at_orig = orig.uids.get_indexer(data.example_uids)
    if (at_orig < 0).any():
        raise _missing_error(
            orig.path, "prediction", data.example_uids[at_orig < 0], len(data.example_uids),
            f"original examples used by {set_path.name}",
        )  # fmt: skip
    at_perm = perm.uids.get_indexer(data.uids)
    if (at_perm < 0).any():
        raise _missing_error(
            perm.path, "prediction", data.uids.to_numpy()[at_perm < 0], len(data.uids),
            f"permuted rows of {set_path.name}",
        )  # fmt: skip
    return at_orig, at_perm


def _accuracy_on_all(
    orig: Predictions, canon_uids: pd.Index, canon_label: np.ndarray, canonical_path: Path, notes: list[str]
) -> float | None:
    """A_all: accuracy on every labelled example of the canonical table (null, with a note,
    where the original predictions do not cover them all)."""
    labelled = canon_label >= 0
    at_all = orig.uids.get_indexer(canon_uids[labelled])
    if (at_all >= 0).all():
        return float((orig.label_codes[at_all] == canon_label[labelled]).mean())
    notes.append(
        f"A_all undefined: original predictions cover {int((at_all >= 0).sum())} of "
        f"{int(labelled.sum())} labelled examples of {canonical_path.name}"
    )
    return None


def _entropy_table(
    perm: Predictions, at_perm: np.ndarray, accepted: np.ndarray, row_correct: np.ndarray, notes: list[str]
) -> pd.DataFrame:
    """Entropy of the accepted permutations, all and split by D_c / D_f (Figure 2)."""
    columns = ["subset", "n_accepted", "mean", "q1", "median", "q3", "min", "max", "source"]
    if perm.entropy is None:
        notes.append("entropy omitted: the permuted predictions have neither prob_<label> columns nor entropy")
        return pd.DataFrame([], columns=columns)
    row_entropy = perm.entropy[at_perm]
    rows = []
    for subset, mask in (
        ("all", accepted), ("D_c", accepted & row_correct), ("D_f", accepted & ~row_correct),
    ):  # fmt: skip
        rows.append({"subset": subset, "n_accepted": int(mask.sum()), **_quantiles(row_entropy[mask]),
                     "source": perm.entropy_source})  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _bleu_table(data: _Set, accepted: np.ndarray, edges: Sequence[float], notes: list[str]) -> pd.DataFrame:
    """Acceptance of the permuted rows by their BLEU-n against the original (Figures 3 and 10)."""
    rows = []
    accepted_f = accepted.astype(np.float64)
    for n in BLEU_ORDERS:
        counts, rates, outside = binned_means(data.bleu[n], accepted_f, edges)
        if outside:
            notes.append(f"{outside} permuted rows have a BLEU-{n} outside the bin edges")
        index = bin_index(data.bleu[n], edges)
        hits = np.bincount(index[index >= 0], weights=accepted_f[index >= 0], minlength=len(counts))
        for i in range(len(counts)):
            rows.append({
                "bleu": n, "lo": edges[i], "hi": edges[i + 1],
                "n_rows": int(counts[i]), "n_accepted": int(hits[i]),
                "acceptance": None if counts[i] == 0 else float(rates[i]),
            })  # fmt: skip
    return pd.DataFrame(rows)


def _length_table(
    data: _Set, pr_cor: np.ndarray, correct: np.ndarray, edges: Sequence[float], notes: list[str]
) -> pd.DataFrame:
    """Mean share of accepted permutations by the original's length, D_c and D_f (Figure 6)."""
    rows = []
    tokens = data.tokens.astype(np.float64)
    for subset, mask in (("D_c", correct), ("D_f", ~correct)):
        counts, means, outside = binned_means(tokens[mask], pr_cor[mask], edges)
        if outside:
            notes.append(f"{outside} examples of {subset} have a length outside the bin edges")
        for i in range(len(counts)):
            rows.append({
                "subset": subset, "lo": edges[i], "hi": edges[i + 1], "n_examples": int(counts[i]),
                "mean_pr_cor": None if counts[i] == 0 else float(means[i]),
            })  # fmt: skip
    return pd.DataFrame(rows)


def compute_metrics(
    model: str,
    set_path: str | Path,
    permuted_predictions: str | Path,
    original_predictions: str | Path,
    canonical_path: str | Path,
    settings: MetricSettings,
    labels: Sequence[str] = LABELS,
    minitree_path: str | Path | None = None,
) -> UnliResult:
    """All permutation-acceptance metrics of ``model`` on one permuted set.

    Every permuted row needs a prediction in ``permuted_predictions`` and every
    used example one in ``original_predictions`` (else :class:`DataError`
    naming the file and the first missing uids); extra predictions are
    ignored and counted in the summary. Gold labels come from the canonical
    table; the set's own labels must agree with them.
    """
    set_path, canonical_path = Path(set_path), Path(canonical_path)
    data = _read_set(set_path, labels)
    perm = read_predictions(permuted_predictions, labels, settings.prob_tolerance)
    orig = read_predictions(original_predictions, labels, settings.prob_tolerance)
    notes: list[str] = []
    canon_uids, canon_label, gold = _gold_labels(canonical_path, data, labels, set_path)
    at_orig, at_perm = _join_predictions(data, orig, perm, set_path)

    n_ex = len(data.example_uids)
    correct = orig.label_codes[at_orig] == gold
    accepted = perm.label_codes[at_perm] == gold[data.example]
    q = np.bincount(data.example, minlength=n_ex)
    n_correct = np.bincount(data.example, weights=accepted, minlength=n_ex).astype(np.int64)
    pr_cor = n_correct / q

    def omega(x: float) -> float:
        return float((n_correct >= x * q - _EPS).mean())

    d_c, d_f = pr_cor[correct], pr_cor[~correct]
    for name, values in (("D_c", d_c), ("D_f", d_f)):
        if not len(values):
            notes.append(f"{name} is empty: P^{name[-1]} is undefined (null)")
    flips = int((n_correct[~correct] >= 1).sum())
    a_all = _accuracy_on_all(orig, canon_uids, canon_label, canonical_path, notes)
    entropy = _entropy_table(perm, at_perm, accepted, correct[data.example], notes)
    bleu_bins = _bleu_table(data, accepted, settings.bleu_edges, notes)
    length_bins = _length_table(data, pr_cor, correct, settings.length_edges, notes)
    omega_curve = pd.DataFrame(
        {"x": list(settings.omega_grid), "omega": [omega(x) for x in settings.omega_grid]}
    )
    per_example = pd.DataFrame({
        "source_uid": data.example_uids.astype(str),
        "label": np.asarray(labels, dtype=object)[gold],
        "original_prediction": np.asarray(labels, dtype=object)[orig.label_codes[at_orig]],
        "original_correct": correct,
        "q": q.astype(np.int32),
        "n_correct": n_correct.astype(np.int32),
        "pr_cor": pr_cor,
        "tokens": data.tokens.astype(np.int32),
    })  # fmt: skip

    mini = None
    if minitree_path is not None:
        mini = minitree_bins(per_example, minitree_path, settings.minitree_edges)
        if mini.attrs.get("undefined"):
            notes.append(
                f"{mini.attrs['undefined']} examples have no mini-tree ratio "
                "(no word with a train statistic, or β of the original is 0)"
            )

    summary = {
        "model": model, "variant": data.variant, "dataset": data.dataset, "split": data.split,
        "test_examples": len(canon_uids), "labelled_examples": int((canon_label >= 0).sum()),
        "used_examples": n_ex, "permuted_rows": len(data.uids),
        "q_min": int(q.min()), "q_max": int(q.max()),
        "A": float(correct.mean()), "A_all": a_all,
        "omega_max": float((n_correct >= 1).mean()),
        "omega_rand": omega(settings.omega_rand), "omega_rand_x": settings.omega_rand,
        "P_c": _mean_or_none(d_c), "P_f": _mean_or_none(d_f),
        "n_c": len(d_c), "n_f": len(d_f),
        "flips": flips, "flip_share": flips / len(d_f) if len(d_f) else None,
        "mean_pr_cor": float(pr_cor.mean()),
        "mean_entropy_accepted": float(entropy["mean"].iloc[0]) if len(entropy) else None,
        "entropy_source": perm.entropy_source,
        "unmatched_permuted_predictions": int(len(perm.uids) - len(data.uids)),
        "unmatched_original_predictions": int(
            len(orig.uids) - (orig.uids.get_indexer(canon_uids) >= 0).sum()
        ),
        "notes": notes,
    }  # fmt: skip
    return UnliResult(
        model, data.variant, data.dataset, data.split, str(set_path), summary, per_example,
        omega_curve, bleu_bins, length_bins, entropy, mini, notes,
    )  # fmt: skip


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

KEYS = ("model", "variant", "dataset", "split")
# (csv name, Markdown header, LaTeX header, summary key)
TABLE2 = (
    ("n_used", "n", "$n$", "used_examples"),
    ("A", "A", "$A$", "A"),
    ("omega_max", "Ω_max", r"$\Omega_{\max}$", "omega_max"),
    ("omega_rand", "Ω_rand", r"$\Omega_{\mathrm{rand}}$", "omega_rand"),
    ("P_c", "P^c", r"$\mathcal{P}^c$", "P_c"),
    ("P_f", "P^f", r"$\mathcal{P}^f$", "P_f"),
    ("flips", "flips", "flips", "flips"),
    ("flip_share", "flips / |D_f|", r"flips$/|D_f|$", "flip_share"),
    ("A_all", "A (all)", r"$A_{\mathrm{all}}$", "A_all"),
)
TABLE7 = (
    ("test_examples", "test examples", "test examples", "test_examples"),
    ("used_examples", "used examples", "used examples", "used_examples"),
)


def _write_three(
    out_dir: Path, stem: str, columns: Sequence[tuple[str, str, str, str]],
    keys: Sequence[str], rows: list[tuple[Any, ...]], csv_digits: int, display_digits: int,
) -> list[Path]:  # fmt: skip
    csv_header = [*keys, *(c[0] for c in columns)]
    md_header = [*keys, *(c[1] for c in columns)]
    tex_header = [*(tex_escape(k) for k in keys), *(c[2] for c in columns)]
    paths = [out_dir / f"{stem}.{ext}" for ext in ("md", "csv", "tex")]
    write_text_atomic(paths[0], markdown_table(md_header, rows, display_digits))
    write_text_atomic(paths[1], csv_table(csv_header, rows, csv_digits))
    write_text_atomic(paths[2], latex_table(tex_header, rows, len(keys), display_digits))
    return paths


def _long(results: Sequence[UnliResult], attr: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """One frame per result stacked, key columns first, rows sorted by keys then the frame's order."""
    columns: list[str] = []
    rows = []
    for result in sorted(results, key=lambda r: r.key):
        frame = getattr(result, attr)
        if frame is None:
            continue
        columns = list(frame.columns)
        for position, record in enumerate(frame.itertuples(index=False, name=None)):
            rows.append((result.key, position, record))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [*KEYS, *columns], [(*key, *record) for key, _, record in rows]


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    return value


def write_tables(
    results: Sequence[UnliResult], out_dir: str | Path, csv_digits: int = 6,
    display_digits: int = 3, figure: FigureSize | None = None,
) -> list[Path]:  # fmt: skip
    """Write the paper's tables and figure data for ``results``; return the paths written.

    ``table2.{md,csv,tex}`` (Tables 2/3: one row per model x variant x eval
    split), ``table7.{md,csv,tex}`` (test and used examples per set),
    ``omega_curve.csv`` (Figure 8), ``bleu_bins.csv`` (Figures 3/10),
    ``length_bins.csv`` (Figure 6), ``entropy.csv`` (Figure 2),
    ``minitree_bins.csv`` (Figure 4, when any result has it) and
    ``summary.json`` (every summary); with ``figure``, each figure's data
    also as a PNG (``unli.figures``). Rows are sorted and floats printed with
    fixed digits, so equal results give equal bytes.
    """
    out_dir = Path(out_dir)
    if not results:
        raise ValueError("write_tables: no results")
    keys = [r.key for r in results]
    if len(set(keys)) != len(keys):
        raise ValueError("write_tables: two results for the same model, variant, dataset and split")
    ordered = sorted(results, key=lambda r: r.key)
    written: list[Path] = []

    table2 = [(*r.key, *(r.summary[c[3]] for c in TABLE2)) for r in ordered]
    written += _write_three(out_dir, "table2", TABLE2, KEYS, table2, csv_digits, display_digits)

    sets: dict[tuple[str, str, str], tuple[int, int, str]] = {}
    for r in ordered:
        counts = (r.summary["test_examples"], r.summary["used_examples"], r.set_path)
        seen = sets.setdefault((r.variant, r.dataset, r.split), counts)
        if seen[:2] != counts[:2]:
            raise DataError(
                r.set_path,
                f"{r.variant} {r.dataset}/{r.split}: counts {counts[:2]} differ from {seen[:2]} "
                f"of {seen[2]} (results from different builds of one set)",
            )
    table7 = [(*key, *counts[:2]) for key, counts in sorted(sets.items())]
    written += _write_three(out_dir, "table7", TABLE7, KEYS[1:], table7, csv_digits, display_digits)

    frames: dict[str, pd.DataFrame] = {}
    for attr in ("omega_curve", "bleu_bins", "length_bins", "entropy", "minitree_bins"):
        if attr == "minitree_bins" and all(r.minitree_bins is None for r in results):
            continue
        header, rows = _long(results, attr)
        path = out_dir / f"{attr}.csv"
        write_text_atomic(path, csv_table(header, rows, csv_digits))
        written.append(path)
        frames[attr] = pd.DataFrame(rows, columns=header)
    if figure is not None:
        from .figures import write_figures

        written += write_figures(frames, out_dir, figure)

    summary = {"results": [_json_safe(r.summary) for r in ordered]}
    path = out_dir / "summary.json"
    write_json_atomic(path, summary)
    written.append(path)
    return written
