"""Permutation-acceptance metrics (Sinha et al. 2021): known answers, bad input, real data.

Small hand-built sets pin each definition to a number that can be worked out
by hand (the hypothetical models of section 3: a bag-of-words model, a model
that always says "neutral", a model right on exactly k of q permutations).
The end-to-end test permutes real SNLI dev examples and scores a word-overlap
rule, which ignores word order, so the paper's BOW identities must hold.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nlistress.canonical import NLI_SCHEMA
from nlistress.errors import ConfigError, DataError
from nlistress.figures import FigureSize
from nlistress.permutations.metrics import (
    LABELS,
    MetricSettings,
    bin_index,
    compute_metrics,
    read_predictions,
    write_tables,
)

from .unli_support import SET_SCHEMA, canonical_snli_dev, permuted_set, word_overlap

SETTINGS = MetricSettings.from_mapping(
    {
        "omega_rand": 0.34,
        "omega_grid": {"start": 0.0, "stop": 1.0, "step": 0.05},
        "bleu_edges": [0.0, 0.15, 0.3, 0.45, 0.6, 0.75, 1.0],
        "length_edges": [0, 10, 20, 30, 40, 1000],
        "minitree_edges": [0.0, 0.5, 0.75, 1.0, 1.25, 10.0],
        "prob_tolerance": 1e-3,
    }
)


# ---------------------------------------------------------------------------
# Tiny sets with known answers
# ---------------------------------------------------------------------------


def toy_set(
    tmp: Path,
    golds: list[str | None],
    q: int | list[int],
    extra: list[str] = (),
    hypothesis_only: bool = False,
    bleu2: float = 0.1,
    tokens: list[tuple[int, int]] | None = None,
) -> tuple[Path, Path]:
    """A permuted set of len(golds) examples (q permutations each) and its canonical table.

    ``extra`` adds labelled canonical examples that are not in the set (not "used").
    """
    qs = q if isinstance(q, list) else [q] * len(golds)
    canon: dict[str, list] = {name: [] for name in NLI_SCHEMA.names}
    for i, gold in enumerate([*golds, *extra]):
        for key, value in (
            ("uid", f"toy:dev:{i}"), ("dataset", "toy"), ("split", "dev"),
            ("premise", f"premise {i}"), ("hypothesis", f"hypothesis {i}"), ("label", gold),
            ("label_id", None if gold is None else LABELS.index(gold)),
            ("source_id", str(i)), ("genre", None),
        ):  # fmt: skip
            canon[key].append(value)
    canonical = tmp / "canonical.parquet"
    pq.write_table(pa.Table.from_pydict(canon, schema=NLI_SCHEMA), canonical)

    rows: dict[str, list] = {name: [] for name in SET_SCHEMA.names}
    for i, (gold, n) in enumerate(zip(golds, qs, strict=True)):
        p_tok, h_tok = tokens[i] if tokens else (8, 6)
        for j in range(n):
            record = {
                "uid": f"permute:toy:toy:dev:{i}:{j}", "dataset": "toy", "split": "dev",
                "premise": "p", "hypothesis": "h", "label": gold,
                "label_id": None if gold is None else LABELS.index(gold), "genre": None,
                "source_uid": f"toy:dev:{i}", "perturbation": "toy",
                "perturbation_params": "{}", "perm_index": j,
                "premise_tokens": p_tok, "hypothesis_tokens": h_tok,
                "premise_order": None if hypothesis_only else list(range(p_tok))[::-1],
                "hypothesis_order": list(range(h_tok))[::-1],
            }  # fmt: skip
            for n_ in (2, 3, 4):
                record[f"bleu{n_}_premise"] = 1.0 if hypothesis_only else bleu2
                record[f"bleu{n_}_hypothesis"] = bleu2
            for name in SET_SCHEMA.names:
                rows[name].append(record[name])
    set_path = tmp / "toy_dev.parquet"
    pq.write_table(pa.Table.from_pydict(rows, schema=SET_SCHEMA), set_path)
    return set_path, canonical


def write_predictions(path: Path, predictions: dict[str, str], **extra: dict[str, float]) -> Path:
    """Predictions as JSON lines or Parquet (by suffix); ``extra`` adds columns per uid."""
    records = [
        {"uid": uid, "prediction": label, **{k: v[uid] for k, v in extra.items()}}
        for uid, label in predictions.items()
    ]
    if path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(records), path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def set_uids(set_path: Path) -> pd.DataFrame:
    return pq.read_table(set_path, columns=["uid", "source_uid", "perm_index"]).to_pandas()


GOLDS = ["entailment", "neutral", "contradiction", "neutral", "entailment", "neutral"]
# Original predictions: right on 0, 1, 4, 5 (A = 4/6), wrong on 2 and 4.
ORIGINAL = ["entailment", "neutral", "neutral", "contradiction", "entailment", "neutral"]


def run(tmp: Path, set_path: Path, canonical: Path, original: dict, permuted: dict, **kw):
    orig = write_predictions(tmp / "original.jsonl", original)
    perm = write_predictions(tmp / "permuted.parquet", permuted, **kw)
    return compute_metrics("toy-model", set_path, perm, orig, canonical, SETTINGS)


def test_bag_of_words_model(tmp_path):
    """Model C of section 3: a permutation gets the original's prediction, so P^c = 1, P^f = 0."""
    set_path, canonical = toy_set(tmp_path, GOLDS, q=4)
    original = {f"toy:dev:{i}": label for i, label in enumerate(ORIGINAL)}
    rows = set_uids(set_path)
    permuted = dict(zip(rows["uid"], rows["source_uid"].map(original), strict=True))
    result = run(tmp_path, set_path, canonical, original, permuted)
    s = result.summary
    assert s["A"] == pytest.approx(4 / 6)
    assert s["omega_max"] == pytest.approx(s["A"])
    assert s["omega_rand"] == pytest.approx(s["A"])
    assert s["P_c"] == 1.0 and s["P_f"] == 0.0
    assert (s["n_c"], s["n_f"], s["flips"], s["flip_share"]) == (4, 2, 0, 0.0)
    assert (s["used_examples"], s["permuted_rows"], s["q_min"], s["q_max"]) == (6, 24, 4, 4)
    # Ω_x is A for every x > 0 (Pr_cor is 0 or 1), and 1 at x = 0.
    curve = result.omega_curve.set_index("x")["omega"]
    assert curve[0.0] == 1.0
    assert np.allclose(curve[curve.index > 0], 4 / 6)


def test_always_neutral_model(tmp_path):
    """Model A of section 3: Ω_max = Ω_rand = the share of neutral gold labels."""
    set_path, canonical = toy_set(tmp_path, GOLDS, q=5)
    original = {f"toy:dev:{i}": "neutral" for i in range(len(GOLDS))}
    permuted = dict.fromkeys(set_uids(set_path)["uid"], "neutral")
    s = run(tmp_path, set_path, canonical, original, permuted).summary
    share = GOLDS.count("neutral") / len(GOLDS)
    assert s["omega_max"] == pytest.approx(share)
    assert s["omega_rand"] == pytest.approx(share)
    assert s["A"] == pytest.approx(share)
    assert s["P_c"] == 1.0 and s["P_f"] == 0.0


def test_k_of_q_correct(tmp_path):
    """Example i is right on exactly k_i of q = 5 permutations: Pr_cor = k/q, Ω_x steps at k/q."""
    q, ks = 5, [0, 1, 2, 3, 4, 5]
    set_path, canonical = toy_set(tmp_path, GOLDS, q=q)
    original = {f"toy:dev:{i}": label for i, label in enumerate(ORIGINAL)}
    wrong = {"entailment": "neutral", "neutral": "contradiction", "contradiction": "entailment"}
    permuted = {}
    for uid, source, j in set_uids(set_path).itertuples(index=False):
        i = int(source.rsplit(":", 1)[1])
        permuted[uid] = GOLDS[i] if j < ks[i] else wrong[GOLDS[i]]
    result = run(tmp_path, set_path, canonical, original, permuted)
    per = result.per_example
    assert per["pr_cor"].tolist() == [k / q for k in ks]
    assert per["n_correct"].tolist() == ks
    curve = result.omega_curve.set_index("x")["omega"]
    for x, omega in curve.items():
        expected = sum(k / q >= x - 1e-12 for k in ks) / len(ks)
        assert omega == pytest.approx(expected), x
    # The steps: at x = k/q the example with exactly k still counts (>=), just above it does not.
    assert curve[0.2] == pytest.approx(5 / 6) and curve[0.25] == pytest.approx(4 / 6)
    assert curve[1.0] == pytest.approx(1 / 6)  # Figure 8 plots x = 1.0: only >= makes it non-empty
    s = result.summary
    assert s["omega_max"] == pytest.approx(5 / 6)
    assert s["omega_rand"] == pytest.approx(4 / 6)  # 0.34 * 5 = 1.7 -> at least 2 of 5
    # D_c = {0, 1, 4, 5} (k = 0, 1, 4, 5); D_f = {2, 3} (k = 2, 3); both D_f examples flip.
    assert s["P_c"] == pytest.approx((0 + 1 + 4 + 5) / 20)
    assert s["P_f"] == pytest.approx((2 + 3) / 10)
    assert (s["flips"], s["flip_share"]) == (2, 1.0)
    assert s["mean_pr_cor"] == pytest.approx(sum(ks) / 30)


def test_variable_q_and_a_all(tmp_path):
    """Each example uses its own q; A_all covers unused labelled examples, A only used ones."""
    set_path, canonical = toy_set(
        tmp_path, ["neutral", "neutral"], q=[2, 4], extra=["entailment", "entailment"]
    )
    original = {"toy:dev:0": "neutral", "toy:dev:1": "neutral"}
    original |= {"toy:dev:2": "entailment", "toy:dev:3": "neutral"}
    rows = set_uids(set_path)
    permuted = {
        uid: "neutral" if j == 0 else "entailment"
        for uid, _, j in rows.itertuples(index=False)
    }  # fmt: skip
    s = run(tmp_path, set_path, canonical, original, permuted).summary
    assert s["A"] == 1.0 and s["A_all"] == pytest.approx(3 / 4)
    assert s["P_c"] == pytest.approx((1 / 2 + 1 / 4) / 2)
    assert (s["test_examples"], s["used_examples"], s["q_min"], s["q_max"]) == (4, 2, 2, 4)
    assert s["omega_rand"] == pytest.approx(0.5)  # 1/2 >= 0.34, 1/4 < 0.34
    assert s["P_f"] is None and any("D_f is empty" in n for n in s["notes"])


def test_a_all_needs_every_labelled_prediction(tmp_path):
    set_path, canonical = toy_set(tmp_path, ["neutral"], q=2, extra=["entailment"])
    permuted = dict.fromkeys(set_uids(set_path)["uid"], "neutral")
    s = run(tmp_path, set_path, canonical, {"toy:dev:0": "neutral"}, permuted).summary
    assert s["A_all"] is None
    assert any("cover 1 of 2 labelled" in n for n in s["notes"])


# ---------------------------------------------------------------------------
# Entropy (Figure 2)
# ---------------------------------------------------------------------------


def test_entropy_of_uniform_probabilities_is_ln3(tmp_path):
    set_path, canonical = toy_set(tmp_path, GOLDS, q=3)
    original = {f"toy:dev:{i}": g for i, g in enumerate(GOLDS)}
    uids = set_uids(set_path)["uid"].tolist()
    permuted = {uid: GOLDS[int(uid.split(":")[4])] for uid in uids}
    probs = {f"prob_{label}": dict.fromkeys(uids, 1 / 3) for label in LABELS}
    result = run(tmp_path, set_path, canonical, original, permuted, **probs)
    all_rows = result.entropy.set_index("subset").loc["all"]
    assert all_rows["n_accepted"] == 18
    assert all_rows["mean"] == pytest.approx(math.log(3))
    assert all_rows["q1"] == pytest.approx(math.log(3)) and all_rows["q3"] == pytest.approx(
        math.log(3)
    )
    assert result.summary["entropy_source"] == "probabilities"


def test_entropy_only_on_accepted_permutations_and_by_subset(tmp_path):
    set_path, canonical = toy_set(tmp_path, ["neutral", "neutral"], q=2)
    original = {"toy:dev:0": "neutral", "toy:dev:1": "entailment"}  # D_c = {0}, D_f = {1}
    rows = set_uids(set_path)
    permuted = {uid: "neutral" if j == 0 else "entailment" for uid, _, j in rows.itertuples(False)}
    sharp = {"prob_entailment": 0.0, "prob_neutral": 1.0, "prob_contradiction": 0.0}
    half = {"prob_entailment": 0.5, "prob_neutral": 0.5, "prob_contradiction": 0.0}
    probs: dict[str, dict[str, float]] = {k: {} for k in sharp}
    for uid, source, j in rows.itertuples(index=False):
        chosen = sharp if source.endswith(":0") else half
        for k in probs:
            probs[k][uid] = chosen[k] if j == 0 else 1 / 3
    entropy = run(tmp_path, set_path, canonical, original, permuted, **probs).entropy
    by = entropy.set_index("subset")
    assert by.loc["all", "n_accepted"] == 2
    assert by.loc["D_c", "mean"] == pytest.approx(0.0)
    assert by.loc["D_f", "mean"] == pytest.approx(math.log(2))
    assert by.loc["all", "mean"] == pytest.approx(math.log(2) / 2)


def test_entropy_column_and_no_entropy(tmp_path):
    set_path, canonical = toy_set(tmp_path, ["neutral"], q=2)
    original = {"toy:dev:0": "neutral"}
    uids = set_uids(set_path)["uid"].tolist()
    permuted = dict.fromkeys(uids, "neutral")
    result = run(
        tmp_path, set_path, canonical, original, permuted, entropy=dict.fromkeys(uids, 0.25)
    )
    assert result.summary["entropy_source"] == "entropy column"
    assert result.summary["mean_entropy_accepted"] == pytest.approx(0.25)
    bare = run(tmp_path, set_path, canonical, original, permuted)
    assert bare.entropy.empty and bare.summary["mean_entropy_accepted"] is None
    assert any("entropy omitted" in n for n in bare.notes)


def test_probabilities_not_summing_to_one(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"uid": "a", "prediction": "neutral", "prob_entailment": 0.2, "prob_neutral": 0.5, "prob_contradiction": 0.3}\n'
        "\n"
        '{"uid": "b", "prediction": "neutral", "prob_entailment": 0.2, "prob_neutral": 0.5, "prob_contradiction": 0.2}\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError, match=r"p\.jsonl, line 3: probabilities sum to 0\.9"):
        read_predictions(path, prob_tolerance=1e-3)
    # Within the tolerance they are renormalised.
    preds = read_predictions(path, prob_tolerance=0.2)
    assert preds.entropy is not None and np.isfinite(preds.entropy).all()


def test_some_probability_columns_only(tmp_path):
    path = write_predictions(tmp_path / "p.parquet", {"a": "neutral"}, prob_neutral={"a": 1.0})
    with pytest.raises(
        DataError, match="has prob_neutral but not prob_entailment, prob_contradiction"
    ):
        read_predictions(path)


# ---------------------------------------------------------------------------
# Bad input names the file and the row
# ---------------------------------------------------------------------------


def test_missing_permuted_prediction_names_file_and_uid(tmp_path):
    set_path, canonical = toy_set(tmp_path, GOLDS, q=3)
    original = {f"toy:dev:{i}": g for i, g in enumerate(GOLDS)}
    uids = set_uids(set_path)["uid"].tolist()
    permuted = dict.fromkeys(uids[1:], "neutral")
    with pytest.raises(DataError) as info:
        run(tmp_path, set_path, canonical, original, permuted)
    message = str(info.value)
    assert "permuted.parquet" in message and "no prediction for 1 of 18 permuted rows" in message
    assert repr(uids[0]) in message


def test_missing_original_prediction_names_file_and_uid(tmp_path):
    set_path, canonical = toy_set(tmp_path, GOLDS, q=3)
    original = {f"toy:dev:{i}": g for i, g in enumerate(GOLDS) if i != 2}
    permuted = dict.fromkeys(set_uids(set_path)["uid"], "neutral")
    with pytest.raises(
        DataError, match=r"original\.jsonl: no prediction for 1 of 6 original examples.*'toy:dev:2'"
    ):
        run(tmp_path, set_path, canonical, original, permuted)


def test_unknown_label_names_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"uid": "a", "prediction": "neutral"}\n\n{"uid": "b", "prediction": "Entailment"}\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError, match=r"p\.jsonl, line 3: unknown prediction 'Entailment'"):
        read_predictions(path)


def test_duplicate_uid_and_missing_column(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"uid": ["a", "b", "a"], "prediction": ["neutral"] * 3}), path)
    with pytest.raises(DataError, match=r"p\.parquet, row 2: duplicate uid 'a'"):
        read_predictions(path)
    pq.write_table(pa.table({"id": ["a"], "prediction": ["neutral"]}), path)
    with pytest.raises(DataError, match=r"p\.parquet: missing column\(s\) uid"):
        read_predictions(path)


def test_categorical_predictions_from_pandas(tmp_path):
    path = tmp_path / "p.parquet"
    frame = pd.DataFrame({"uid": ["a", "b"], "prediction": ["neutral", "contradiction"]})
    frame.astype({"prediction": "category"}).to_parquet(path)
    assert read_predictions(path).label_codes.tolist() == [1, 2]
    pd.DataFrame({"uid": ["a"], "prediction": [1]}).to_parquet(path)
    with pytest.raises(DataError, match="column 'prediction' must hold label names"):
        read_predictions(path)


def test_broken_json_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"uid": "a", "prediction": "neutral"}\n{"uid": "b", \n', encoding="utf-8")
    with pytest.raises(DataError, match=r"p\.jsonl, line 2: not valid JSON"):
        read_predictions(path)


def test_unlabelled_gold_is_an_error(tmp_path):
    set_path, canonical = toy_set(tmp_path, ["neutral", None], q=2)
    original = {"toy:dev:0": "neutral", "toy:dev:1": "neutral"}
    permuted = dict.fromkeys(set_uids(set_path)["uid"], "neutral")
    with pytest.raises(DataError, match=r"canonical\.parquet: 1 used examples have no gold label"):
        run(tmp_path, set_path, canonical, original, permuted)


def test_set_label_must_match_canonical(tmp_path):
    set_path, canonical = toy_set(tmp_path, ["neutral", "entailment"], q=2)
    table = pq.read_table(canonical).to_pydict()
    table["label"] = ["neutral", "contradiction"]
    pq.write_table(pa.Table.from_pydict(table, schema=NLI_SCHEMA), canonical)
    original = {"toy:dev:0": "neutral", "toy:dev:1": "neutral"}
    permuted = dict.fromkeys(set_uids(set_path)["uid"], "neutral")
    with pytest.raises(DataError, match="differs from the gold label of its original 'toy:dev:1'"):
        run(tmp_path, set_path, canonical, original, permuted)


# ---------------------------------------------------------------------------
# BLEU and length bins (Figures 3, 10, 6)
# ---------------------------------------------------------------------------


def test_bleu_bins_use_only_permuted_sides(tmp_path):
    """Hypothesis-only permutation: the premise's BLEU of 1.0 must not pull rows into the top bin."""
    set_path, canonical = toy_set(tmp_path, GOLDS, q=4, hypothesis_only=True, bleu2=0.1)
    original = {f"toy:dev:{i}": g for i, g in enumerate(GOLDS)}
    rows = set_uids(set_path)
    permuted = {
        uid: GOLDS[int(src.rsplit(":", 1)[1])] if j < 1 else "contradiction"
        for uid, src, j in rows.itertuples(index=False)
    }  # fmt: skip
    bins = run(tmp_path, set_path, canonical, original, permuted).bleu_bins
    two = bins[bins["bleu"] == 2].set_index("lo")
    assert two.loc[0.0, "n_rows"] == 24 and two["n_rows"].sum() == 24
    # Accepted: perm 0 of every example (6), plus the contradiction-gold example's other 3.
    assert two.loc[0.0, "n_accepted"] == 9
    assert two.loc[0.0, "acceptance"] == pytest.approx(9 / 24)
    assert two.loc[0.15, "acceptance"] is None or np.isnan(two.loc[0.15, "acceptance"])


def test_bleu_bins_average_both_permuted_sides(tmp_path):
    set_path, canonical = toy_set(tmp_path, ["neutral"], q=2, bleu2=0.5)
    table = pq.read_table(set_path).to_pydict()
    table["bleu2_premise"] = [0.1, 0.1]
    table["bleu2_hypothesis"] = [0.3, 0.9]  # means 0.2 and 0.5
    pq.write_table(pa.Table.from_pydict(table, schema=SET_SCHEMA), set_path)
    uids = set_uids(set_path)["uid"].tolist()
    result = run(
        tmp_path, set_path, canonical, {"toy:dev:0": "neutral"}, dict.fromkeys(uids, "neutral")
    )
    two = result.bleu_bins[result.bleu_bins["bleu"] == 2].set_index("lo")["n_rows"]
    assert two[0.15] == 1 and two[0.45] == 1


def test_length_bins_by_subset(tmp_path):
    set_path, canonical = toy_set(
        tmp_path, ["neutral"] * 4, q=2, tokens=[(5, 3), (12, 6), (15, 10), (6, 2)]
    )
    original = {"toy:dev:0": "neutral", "toy:dev:1": "neutral", "toy:dev:2": "neutral"}
    original["toy:dev:3"] = "entailment"  # D_f
    rows = set_uids(set_path)
    permuted = {uid: "neutral" if j == 0 else "entailment" for uid, _, j in rows.itertuples(False)}
    permuted[rows["uid"][0 * 2 + 1]] = "neutral"  # example 0 (length 8): 2 of 2
    bins = run(tmp_path, set_path, canonical, original, permuted).length_bins
    dc = bins[bins["subset"] == "D_c"].set_index("lo")
    assert dc.loc[0, "n_examples"] == 1 and dc.loc[0, "mean_pr_cor"] == 1.0  # length 8
    assert dc.loc[10, "n_examples"] == 1 and dc.loc[10, "mean_pr_cor"] == 0.5  # 18
    assert dc.loc[20, "n_examples"] == 1  # 25
    df = bins[bins["subset"] == "D_f"].set_index("lo")
    assert df.loc[0, "n_examples"] == 1 and df.loc[0, "mean_pr_cor"] == 0.5  # 8


def test_bin_index_edges():
    edges = [0.0, 0.5, 1.0]
    values = np.array([0.0, 0.49, 0.5, 1.0, 1.01, -0.1, np.nan])
    assert bin_index(values, edges).tolist() == [0, 0, 1, 1, -1, -1, -1]


# ---------------------------------------------------------------------------
# Settings and tables
# ---------------------------------------------------------------------------


def test_settings_validation():
    assert len(SETTINGS.omega_grid) == 21 and SETTINGS.omega_grid[-1] == 1.0
    good = {
        "omega_rand": 0.34, "omega_grid": [0.0, 0.5, 1.0], "bleu_edges": [0, 1],
        "length_edges": [0, 100], "minitree_edges": [0, 2], "prob_tolerance": 0.01,
    }  # fmt: skip
    MetricSettings.from_mapping(good)
    # The shape is the schema's (checked on the Python API too); the order of edges is the code's.
    with pytest.raises(ConfigError, match=r"^permute\.metrics: missing key 'prob_tolerance'$"):
        MetricSettings.from_mapping({k: v for k, v in good.items() if k != "prob_tolerance"})
    with pytest.raises(ConfigError, match=r"permute\.metrics\.bleu_edges: bin edges must increase"):
        MetricSettings.from_mapping(good | {"bleu_edges": [0, 0.5, 0.5]})
    with pytest.raises(ConfigError, match=r"^permute\.metrics\.omega_grid\[1\]: expected a value <= 1, got 2$"):
        MetricSettings.from_mapping(good | {"omega_grid": [0.5, 2]})
    with pytest.raises(ConfigError, match=r"^permute\.metrics\.omega_rand: expected a value <= 1, got 1\.5$"):
        MetricSettings.from_mapping(good | {"omega_rand": 1.5})


def test_write_tables_deterministic(tmp_path):
    set_path, canonical = toy_set(tmp_path, GOLDS, q=4)
    original = {f"toy:dev:{i}": label for i, label in enumerate(ORIGINAL)}
    rows = set_uids(set_path)
    permuted = dict(zip(rows["uid"], rows["source_uid"].map(original), strict=True))
    a = run(tmp_path, set_path, canonical, original, permuted)
    b = compute_metrics(
        "another", set_path, tmp_path / "permuted.parquet", tmp_path / "original.jsonl",
        canonical, SETTINGS,
    )  # fmt: skip
    figure = FigureSize(width=3.0, height=2.0, dpi=40)
    first = write_tables([a, b], tmp_path / "one", figure=figure)
    second = write_tables([b, a], tmp_path / "two", figure=figure)
    names = sorted(p.name for p in first)
    assert names == sorted(p.name for p in second)
    figures = ("omega_curve", "bleu_bins", "length_bins", "entropy")
    # A PNG for each figure with data (the toy predictions carry no probabilities: no entropy).
    assert names == sorted(
        [f"table2.{e}" for e in ("md", "csv", "tex")]
        + [f"table7.{e}" for e in ("md", "csv", "tex")]
        + [f"{name}.csv" for name in figures]
        + [f"{name}.png" for name in figures if len(pd.read_csv(tmp_path / "one" / f"{name}.csv"))]
        + ["summary.json"]
    )
    assert {"omega_curve.png", "bleu_bins.png"} <= set(names)
    for p in first:
        assert p.read_bytes() == (tmp_path / "two" / p.name).read_bytes(), p.name
    assert (tmp_path / "one" / "omega_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table2 = (tmp_path / "one" / "table2.csv").read_text(encoding="utf-8").splitlines()
    assert table2[0] == (
        "model,variant,dataset,split,n_used,A,omega_max,omega_rand,P_c,P_f,flips,flip_share,A_all"
    )
    assert (
        table2[1]
        == "another,toy,toy,dev,6,0.666667,0.666667,0.666667,1.000000,0.000000,0,0.000000,0.666667"
    )
    assert table2[2].startswith("toy-model,")
    table7 = (tmp_path / "one" / "table7.csv").read_text(encoding="utf-8").splitlines()
    assert table7 == ["variant,dataset,split,test_examples,used_examples", "toy,toy,dev,6,6"]
    tex = (tmp_path / "one" / "table2.tex").read_text(encoding="utf-8")
    assert r"\Omega_{\max}" in tex and "0.667" in tex
    summary = json.loads((tmp_path / "one" / "summary.json").read_text(encoding="utf-8"))
    assert [r["model"] for r in summary["results"]] == ["another", "toy-model"]
    with pytest.raises(ValueError, match="two results"):
        write_tables([a, a], tmp_path / "three")


# ---------------------------------------------------------------------------
# End to end on real SNLI dev examples
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def snli(tmp_path_factory) -> dict[str, Path]:
    """Real SNLI dev: canonical table, 400 examples permuted 5 times, word-overlap predictions."""
    tmp = tmp_path_factory.mktemp("snli_unli")
    canonical = canonical_snli_dev(tmp)
    set_path = permuted_set(canonical, tmp / "permute" / "snli_dev.parquet", slice(0, 400), 5, 2021)
    table = pq.read_table(canonical).to_pandas()
    original = {
        uid: word_overlap(p, h)
        for uid, p, h in zip(table["uid"], table["premise"], table["hypothesis"], strict=True)
    }
    write_predictions(tmp / "original.jsonl", original)
    rows = pq.read_table(set_path).to_pandas()
    predicted = [
        word_overlap(p, h) for p, h in zip(rows["premise"], rows["hypothesis"], strict=True)
    ]
    # Confident probabilities: 0.8 on the predicted label, 0.1 on the others.
    probs = {
        f"prob_{label}": dict(
            zip(rows["uid"], [0.8 if p == label else 0.1 for p in predicted], strict=True)
        )
        for label in LABELS
    }
    write_predictions(
        tmp / "permuted.parquet", dict(zip(rows["uid"], predicted, strict=True)), **probs
    )
    return {"tmp": tmp, "canonical": canonical, "set": set_path}


def test_real_snli_word_overlap_is_bag_of_words(snli):
    tmp = snli["tmp"]
    result = compute_metrics(
        "word-overlap", snli["set"], tmp / "permuted.parquet", tmp / "original.jsonl",
        snli["canonical"], SETTINGS,
    )  # fmt: skip
    s = result.summary
    assert (s["dataset"], s["split"], s["variant"]) == ("snli", "dev", "permute")
    assert s["test_examples"] == 9842 and s["labelled_examples"] == 9842
    assert 380 <= s["used_examples"] <= 400 and s["q_min"] == s["q_max"] == 5
    # The rule ignores word order: the paper's BOW identities.
    assert s["P_c"] == 1.0 and s["P_f"] == 0.0
    assert s["omega_max"] == pytest.approx(s["A"]) and s["omega_rand"] == pytest.approx(s["A"])
    assert s["flips"] == 0
    assert set(result.per_example["pr_cor"]) <= {0.0, 1.0}
    # A word-overlap rule beats chance on SNLI but is far from a trained model.
    assert 0.3 < s["A"] < 0.7 and 0.3 < s["A_all"] < 0.7
    # Entropy of (0.8, 0.1, 0.1) on every accepted permutation.
    h = -(0.8 * math.log(0.8) + 2 * 0.1 * math.log(0.1))
    assert s["mean_entropy_accepted"] == pytest.approx(h)
    # Derangements of real sentences have low BLEU-2; every row lands in some bin.
    bins = result.bleu_bins
    assert bins[bins["bleu"] == 2]["n_rows"].sum() == s["permuted_rows"]
    below_half = bins[(bins["bleu"] == 2) & (bins["hi"] <= 0.45)]["n_rows"].sum()
    assert below_half > 0.6 * s["permuted_rows"]
    # BOW: acceptance does not depend on BLEU beyond sampling noise; overall it is Ω_max.
    accepted = bins[bins["bleu"] == 2]["n_accepted"].sum()
    assert accepted == pytest.approx(s["A"] * s["permuted_rows"])
    lengths = result.length_bins
    assert lengths["n_examples"].sum() == s["used_examples"]
    assert (lengths[lengths["subset"] == "D_f"]["mean_pr_cor"].dropna() == 0).all()

    written = write_tables([result], tmp / "tables")
    assert all(p.stat().st_size > 0 for p in written)
    table7 = (tmp / "tables" / "table7.md").read_text(encoding="utf-8")
    assert f"| permute | snli | dev | 9842 | {s['used_examples']} |" in table7


def test_real_snli_predictions_for_other_sets_are_ignored(snli, tmp_path):
    """Extra predictions (e.g. a whole file for several sets) are counted, not an error."""
    tmp = snli["tmp"]
    table = pq.read_table(tmp / "permuted.parquet")
    extra = pa.table(
        {"uid": ["elsewhere:1", "elsewhere:2"], "prediction": ["neutral", "neutral"]}
        | {c: [1 / 3, 1 / 3] for c in table.column_names if c.startswith("prob_")}
    ).select(table.column_names)
    pq.write_table(pa.concat_tables([table, extra.cast(table.schema)]), tmp_path / "more.parquet")
    result = compute_metrics(
        "word-overlap", snli["set"], tmp_path / "more.parquet", tmp / "original.jsonl",
        snli["canonical"], SETTINGS,
    )  # fmt: skip
    assert result.summary["unmatched_permuted_predictions"] == 2
