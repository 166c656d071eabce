"""POS mini-tree overlap (Sinha et al. 2021, eq. 4): definitions, a plain reference, real SNLI.

The vectorised β^k is checked against a direct transcription of the
definition (loops over tokens) on random permutations; the train statistic
and the per-example ratios are built from real SNLI dev sentences tagged by
the real spaCy model (tests/shared.yaml).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nlistress.config import deep_merge
from nlistress.errors import ConfigError, DataError
from nlistress.permutations.metrics import MetricSettings, compute_metrics, write_tables
from nlistress.permutations.minitree import (
    UPOS,
    MinitreeSettings,
    build_train_statistic,
    example_betas,
    load_train_statistic,
    neighbour_counts,
    pos_tagger,
    sentence_beta,
    tag_ids,
    tag_token_lists,
    train_statistic,
    write_example_betas,
)

from .support import project_params, shared_override
from .unli_support import canonical_snli_dev, permuted_set, word_overlap

SENTENCE = [
    "The",
    "dog",
    "chased",
    "the",
    "cat",
    "and",
    "the",
    "cat",
    "ran",
    "up",
    "the",
    "tree",
    ".",
]
TAGS = [
    "DET",
    "NOUN",
    "VERB",
    "DET",
    "NOUN",
    "CCONJ",
    "DET",
    "NOUN",
    "VERB",
    "ADP",
    "DET",
    "NOUN",
    "PUNCT",
]


# ---------------------------------------------------------------------------
# A plain transcription of the definition, for comparison
# ---------------------------------------------------------------------------


def _dist(tags: list[str], position: int, radius: int) -> list[float]:
    lo, hi = max(0, position - radius), min(len(tags), position + radius + 1)
    neighbours = [tags[j] for j in range(lo, hi) if j != position]
    return [neighbours.count(t) / len(neighbours) for t in UPOS]


def _mean(rows: list[list[float]]) -> list[float]:
    return [sum(col) / len(rows) for col in zip(*rows, strict=True)]


def _top(psi: list[float], k: int) -> set[int]:
    return set(sorted(range(len(UPOS)), key=lambda t: (-round(psi[t], 9), t))[:k])


def reference_train(sentences: list[tuple[list[str], list[str]]], radius: int) -> dict:
    per_word = defaultdict(list)
    for tokens, tags in sentences:
        for i, word in enumerate(tokens):
            per_word[word.lower()].append(_dist(tags, i, radius))
    return {w: _mean(rows) for w, rows in per_word.items()}


def reference_beta(tokens, tags, train: dict, radius: int, k: int, order) -> float:
    tokens = [tokens[i] for i in order]
    tags = [tags[i] for i in order]
    per_word = defaultdict(list)
    for i, word in enumerate(tokens):
        per_word[word.lower()].append(_dist(tags, i, radius))
    scores = [
        len(_top(train[w.lower()], k) & _top(_mean(per_word[w.lower()]), k)) / k
        for w in tokens
        if w.lower() in train
    ]
    return sum(scores) / len(scores)


# ---------------------------------------------------------------------------
# Definitions
# ---------------------------------------------------------------------------


def test_neighbour_counts_and_padding():
    counts = neighbour_counts(np.array([0, 1, -1, 2, 3]), 1)
    assert counts.shape == (5, 17)
    assert counts[0].tolist() == np.eye(17)[1].tolist()  # only its right neighbour
    assert counts[1].tolist() == np.eye(17)[0].tolist()  # padding on the right is not counted
    assert counts[3].tolist() == np.eye(17)[3].tolist()
    counts2 = neighbour_counts(np.array([[0, 1, 2]]), 5)  # radius beyond the sentence
    assert counts2[0, 1].tolist() == (np.eye(17)[0] + np.eye(17)[2]).tolist()


def test_tags_outside_upos_count_as_x():
    x = UPOS.index("X")
    assert tag_ids(["NOUN", "SPACE", ""]).tolist() == [UPOS.index("NOUN"), x, x]


@pytest.mark.parametrize("radius", [1, 2, 3])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_beta_is_one_when_the_train_statistic_is_the_sentence(radius, k):
    stat, counts = train_statistic([(SENTENCE, tag_ids(TAGS))], radius)
    assert counts.as_dict()["kept"] == 1
    assert sentence_beta(SENTENCE, tag_ids(TAGS), stat, k).tolist() == [1.0]


def test_reversal_keeps_beta_and_scrambling_lowers_it():
    """The window is symmetric, so a reversed sentence has the same neighbourhoods (β = 1).

    A permutation that separates neighbours (even positions, then odd) lowers β.
    """
    stat, _ = train_statistic([(SENTENCE, tag_ids(TAGS))], 1)
    n = len(SENTENCE)
    orders = np.array([np.arange(n)[::-1], np.r_[np.arange(0, n, 2), np.arange(1, n, 2)]])
    reversed_, scrambled = sentence_beta(SENTENCE, tag_ids(TAGS), stat, 2, orders)
    assert reversed_ == 1.0
    assert scrambled < 1.0


def test_vectorised_beta_matches_the_definition():
    rng = np.random.default_rng(4)
    sentences = []
    vocabulary = [f"w{i}" for i in range(12)] + ["W0", "W1"]  # case folds onto w0, w1
    for _ in range(40):
        n = int(rng.integers(2, 14))
        words = [vocabulary[i] for i in rng.integers(0, len(vocabulary), n)]
        tags = [UPOS[i] for i in rng.integers(0, 6, n)]  # few tags: many ties
        sentences.append((words, tags))
    for radius in (1, 2):
        stat, _ = train_statistic([(w, tag_ids(t)) for w, t in sentences[:30]], radius)
        train = reference_train(sentences[:30], radius)
        assert set(stat.words) == set(train)
        for word, psi in train.items():
            assert np.allclose(stat.psi[stat.words.get_loc(word)], psi)
        for words, tags in sentences[30:]:
            if not any(w.lower() in train for w in words):
                continue
            orders = np.array([rng.permutation(len(words)) for _ in range(6)])
            for k in (1, 2, 3):
                got = sentence_beta(words, tag_ids(tags), stat, k, orders)
                want = [reference_beta(words, tags, train, radius, k, o) for o in orders]
                assert np.allclose(got, want), (words, tags, k)


def test_sentence_counts_weigh_as_copies():
    """A sentence given with count 3 weighs as three copies (distinct sentences are tagged once)."""
    other = (["a", "dog", "barked"], tag_ids(["DET", "NOUN", "VERB"]))
    weighted, counts = train_statistic([(SENTENCE, tag_ids(TAGS), 3), other], 2)
    copies, _ = train_statistic([(SENTENCE, tag_ids(TAGS))] * 3 + [other], 2)
    assert counts.as_dict() == {"unit": "sentence", "input": 4, "kept": 4, "dropped": {}}
    assert list(weighted.words) == list(copies.words)
    assert np.allclose(weighted.psi, copies.psi)
    assert weighted.occurrences.tolist() == copies.occurrences.tolist()


def test_beta_undefined_without_neighbours_or_known_words():
    stat, _ = train_statistic([(SENTENCE, tag_ids(TAGS))], 1)
    assert np.isnan(sentence_beta(["dog"], tag_ids(["NOUN"]), stat, 2)).all()
    assert np.isnan(sentence_beta(["xyzzy", "plugh"], tag_ids(["X", "X"]), stat, 2)).all()


def test_settings_validation():
    assert MinitreeSettings.from_mapping({"radius": 2, "k": 2, "batch_size": 64}).k == 2
    with pytest.raises(ConfigError, match=r"^permute\.minitree\.k: expected a value <= 17, got 18$"):
        MinitreeSettings.from_mapping({"radius": 2, "k": 18, "batch_size": 64})
    with pytest.raises(ConfigError, match=r"permute\.minitree\.radius"):
        MinitreeSettings.from_mapping({"radius": 0, "k": 2, "batch_size": 64})


# ---------------------------------------------------------------------------
# Real data: SNLI dev tagged by spaCy
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nlp():
    return pos_tagger(deep_merge(project_params(), shared_override()))


def test_tags_align_with_the_given_tokens(nlp):
    """spaCy would split "can't"; the Doc built from whitespace tokens keeps one tag per token."""
    tokens = ["I", "can't", "go", "home", "."]
    [(same, tags)] = list(tag_token_lists(nlp, [tokens], batch_size=8))
    assert same == tokens and len(tags) == 5
    assert UPOS[tags[-1]] == "PUNCT" and UPOS[tags[2]] == "VERB"


@pytest.fixture(scope="module")
def snli(tmp_path_factory, nlp) -> dict[str, Path]:
    """Train statistic from 300 real SNLI dev examples; a permuted set of the first 100."""
    tmp = tmp_path_factory.mktemp("minitree")
    canonical = canonical_snli_dev(tmp)
    train = tmp / "train.parquet"
    pq.write_table(pq.read_table(canonical).slice(0, 300), train)
    stat_path = tmp / "minitree" / "snli_train_r2.parquet"
    manifest = build_train_statistic([train], stat_path, nlp, radius=2, batch_size=64)
    set_path = permuted_set(canonical, tmp / "permute" / "snli_dev.parquet", slice(0, 100), 5, 7)
    hyp_path = permuted_set(
        canonical, tmp / "permute_h" / "snli_dev.parquet", slice(0, 100), 5, 7,
        sides=("hypothesis",), variant="permute_hypothesis",
    )  # fmt: skip
    return {
        "tmp": tmp, "canonical": canonical, "stat": stat_path, "manifest": manifest,
        "set": set_path, "hyp": hyp_path,
    }  # fmt: skip


def test_train_statistic_on_real_sentences(snli):
    manifest = snli["manifest"]
    assert manifest["rows"] == {"unit": "sentence", "input": 600, "kept": 600, "dropped": {}}
    assert manifest["distinct_sentences"] < 450  # SNLI premises come with ~3 hypotheses each
    stat = load_train_statistic(snli["stat"], radius=2)
    assert list(stat.words) == sorted(stat.words)  # stored sorted: deterministic bytes
    assert np.allclose(stat.psi.sum(axis=1), 1.0)
    assert stat.occurrences.sum() > 600 * 5
    # Determiners are followed by nouns and adjectives: "the" has NOUN among its top tags.
    the = stat.psi[stat.words.get_loc("the")]
    assert UPOS[int(np.argmax(the))] in ("NOUN", "ADJ", "VERB", "ADP")
    with pytest.raises(DataError, match="built with radius 2, asked for 1"):
        load_train_statistic(snli["stat"], radius=1)


def test_example_betas_on_real_permutations(snli, nlp):
    stat = load_train_statistic(snli["stat"], radius=2)
    betas = example_betas(snli["set"], snli["canonical"], stat, nlp, k=2, batch_size=64)
    assert len(betas) == len(
        pq.read_table(snli["set"], columns=["source_uid"])["source_uid"].unique()
    )
    assert (betas["q"] == 5).all()
    ratio = betas["ratio"].dropna()
    assert len(ratio) == len(betas)
    # These sentences are in the train split: originals match its mini-trees better than
    # their random permutations do.
    assert (betas["beta_original"] > betas["beta_permuted"]).mean() > 0.9
    assert ratio.mean() < 0.85 and (ratio < 1).mean() > 0.9

    hyp = example_betas(snli["hyp"], snli["canonical"], stat, nlp, k=2, batch_size=64)
    assert np.allclose(hyp["beta_permuted_premise"], hyp["beta_premise"])
    assert np.allclose(hyp["beta_hypothesis"], betas["beta_hypothesis"])
    assert (hyp["ratio"] > betas["ratio"]).mean() > 0.8  # only half the pair is scrambled

    out = snli["tmp"] / "betas" / "permute_snli_dev.parquet"
    manifest = write_example_betas(betas, out, {"set": str(snli["set"])}, {"k": 2, "radius": 2})
    assert manifest["rows"]["kept"] == len(betas) and manifest["undefined_ratio"] == 0
    again = pq.read_table(out).to_pandas()
    assert np.allclose(again["ratio"], betas["ratio"])


def test_figure4_bins_from_metrics(snli, nlp, tmp_path):
    stat = load_train_statistic(snli["stat"], radius=2)
    betas = example_betas(snli["set"], snli["canonical"], stat, nlp, k=2, batch_size=64)
    betas_path = tmp_path / "betas.parquet"
    write_example_betas(betas, betas_path, {}, {})
    canonical = pq.read_table(snli["canonical"]).to_pandas()
    original = tmp_path / "original.jsonl"
    canonical.assign(
        prediction=[
            word_overlap(p, h) for p, h in zip(canonical.premise, canonical.hypothesis, strict=True)
        ]
    )[["uid", "prediction"]].to_json(original, orient="records", lines=True)
    rows = pq.read_table(snli["set"]).to_pandas()
    permuted = tmp_path / "permuted.parquet"
    rows.assign(
        prediction=[word_overlap(p, h) for p, h in zip(rows.premise, rows.hypothesis, strict=True)]
    )[["uid", "prediction"]].to_parquet(permuted)
    settings = MetricSettings.from_mapping({
        "omega_rand": 0.34, "omega_grid": [0.0, 0.5, 1.0], "bleu_edges": [0.0, 0.5, 1.0],
        "length_edges": [0, 20, 1000], "minitree_edges": [0.0, 0.5, 0.75, 1.0, 1.5],
        "prob_tolerance": 1e-3,
    })  # fmt: skip
    result = compute_metrics(
        "word-overlap", snli["set"], permuted, original, snli["canonical"], settings,
        minitree_path=betas_path,
    )  # fmt: skip
    bins = result.minitree_bins
    assert bins[bins["subset"] == "all"]["n_examples"].sum() == len(betas)
    assert bins[bins["subset"] == "D_c"]["mean_pr_cor"].dropna().eq(1.0).all()
    written = {p.name for p in write_tables([result], tmp_path / "tables")}
    assert "minitree_bins.csv" in written


def test_tokenizer_mismatch_is_reported(snli, nlp):
    stat = load_train_statistic(snli["stat"], radius=2)
    with pytest.raises(
        DataError, match=r"premise_order of '.*' has \d+ positions but the original has"
    ):
        example_betas(
            snli["set"], snli["canonical"], stat, nlp, k=2, batch_size=64,
            tokenize=lambda text: text.replace(" .", ".").split(),
        )  # fmt: skip
    with pytest.raises(DataError, match="is not its original's tokens in premise_order"):
        example_betas(
            snli["set"], snli["canonical"], stat, nlp, k=2, batch_size=64,
            tokenize=lambda text: text.lower().split(),
        )  # fmt: skip


@pytest.mark.parametrize("row", [5, 7])  # a first permutation (text-checked), a later one
def test_broken_order_is_reported(snli, nlp, tmp_path, row):
    stat = load_train_statistic(snli["stat"], radius=2)
    table = pq.read_table(snli["set"]).to_pydict()
    order = table["hypothesis_order"][row]
    table["hypothesis_order"][row] = [order[0], *order[:-1]]  # a position twice, one missing
    broken = tmp_path / "broken.parquet"
    pq.write_table(pa.Table.from_pydict(table, schema=pq.read_schema(snli["set"])), broken)
    uid = table["uid"][row]
    for joiner in (" ", None):  # with and without the text check
        with pytest.raises(DataError, match=f"hypothesis_order of '{uid}' is not a permutation"):
            example_betas(broken, snli["canonical"], stat, nlp, k=2, batch_size=64, joiner=joiner)
