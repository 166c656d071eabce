"""Paper mode (profiles/paper/params.yaml) on the real shared files: the authors' constructions.

Each target of the issue is checked here: the published counts within their
tolerances (antonymy pairs, Sinha et al.'s Table 7 used examples), exact
strings for known rows, and the behaviour the authors' scripts had (first
sentence mark cut, keyboard typos anywhere, the numerical label rules, the
permutation orders of Python's seeded ``random``).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from nlistress.authors.distraction import distract
from nlistress.authors.permute import _tokenizer, authors_order
from nlistress.authors.spelling import KEYBOARD
from nlistress.authors.tokens import lesk_2018
from nlistress.config import deep_merge, load_params
from nlistress.errors import ConfigError
from nlistress.perturb import make_generator
from nlistress.perturb.base import Context
from nlistress.perturb.runner import build_set
from nlistress.resources import wordnet

from .support import ROOT, canonical_table, read_csv, reimport, shared_override

PAPER = ROOT / "profiles" / "paper" / "params.yaml"
TAUT = " and true is true"


@pytest.fixture(scope="module")
def params() -> dict:
    return deep_merge(load_params([PAPER]), shared_override())


@pytest.fixture(scope="module")
def tables(params, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("paper_canonical")
    files = {
        "mnli_dev_matched": ("mnli", "dev_matched", "mnli/multinli_1.0_dev_matched.jsonl"),
        "snli_dev": ("snli", "dev", "snli/snli_1.0_dev.jsonl"),
        "snli_test": ("snli", "test", "snli/snli_1.0_test.jsonl"),
        "anli_r1_dev": ("anli", "r1_dev", "anli/R1_dev.jsonl"),
        "anli_r2_dev": ("anli", "r2_dev", "anli/R2_dev.jsonl"),
        "anli_r3_dev": ("anli", "r3_dev", "anli/R3_dev.jsonl"),
        "aqua_rat_dev": ("aqua_rat", "dev", "aqua_rat/dev.json"),
        "aqua_rat_test": ("aqua_rat", "test", "aqua_rat/test.json"),
    }
    return {key: canonical_table(params, *spec, folder) for key, spec in files.items()}


def build(params, tables, tmp_path_factory, test: str, table: str) -> tuple[pd.DataFrame, dict]:
    out = tmp_path_factory.mktemp(test) / f"{table}.parquet"
    manifest = build_set(test, tables[table], out, params)
    return pd.read_parquet(out), manifest


def test_profile_switches_every_authored_test_and_keeps_the_default(params) -> None:
    default = load_params([ROOT / "params.yaml"])
    authored = ("word_overlap", "negation", "length_mismatch", "tautology", "spelling_error",
                "antonymy", "numerical", "permute", "permute_hypothesis")  # fmt: skip
    for test in authored:
        assert make_generator(test, params).mode == "paper", test
        assert make_generator(test, default).mode == "precise", test
    # the paper generator records only the settings it reads, not the default generator's
    assert set(make_generator("antonymy", params).settings) == set()
    assert "extends" not in params


def test_extends_errors_name_the_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("extends: b.yaml\n", encoding="utf-8")
    b.write_text("extends: a.yaml\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="loops back"):
        load_params([a])
    b.write_text("extends: [1]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"b\.yaml: extends: expected the path"):
        load_params([a])
    b.write_text("extends: missing.yaml\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="missing.yaml: params file not found"):
        load_params([a])


# -- distraction (make_distraction_adv_samples_jsonl.py) ----------------------------------


def test_distraction_cuts_at_the_first_sentence_mark() -> None:
    assert distract("Are you from the U.S.?", TAUT) == ("Are you from the U and true is true.", "text")
    assert distract("Really? No kidding! ", TAUT) == ("Really and true is true? ", "text")
    assert distract("no mark at all", TAUT) == ("no mark at all" + TAUT, "text")
    # the binary parse decides when the text alone does not: a mark ending a token
    quoted = 'The Journal asked "Is this a good political move?"'
    assert distract(quoted, TAUT, '( ( The Journal ) ( asked ( `` ( ( Is this ) ?'
                    ' ) ) ) '"''"' )') == ('The Journal asked "Is this a good political move'
                                           ' and true is true?', "parse")  # fmt: skip
    assert distract("It costs 5.5 dollars", TAUT, "( It ( costs ( 5.5 dollars ) ) )") == (
        "It costs 5.5 dollars" + TAUT, "parse")  # no token ends in a mark: appended


@pytest.fixture(scope="module")
def distraction(params, tables, tmp_path_factory) -> dict[str, pd.DataFrame]:
    return {test: build(params, tables, tmp_path_factory, test, "mnli_dev_matched")[0]
            for test in ("word_overlap", "length_mismatch")}  # fmt: skip


def test_distraction_known_rows_of_mnli(distraction, tables) -> None:
    overlap = distraction["word_overlap"].set_index("source_uid")
    assert len(overlap) == 9815  # every example, label unchanged
    expected = {
        "mnli:dev_matched:94": "Really and true is true? ",
        "mnli:dev_matched:266": "In 2000 B and true is true.",
        "mnli:dev_matched:278": '"Are you sure we can\'t do anything to keep him here and true is true?',
        "mnli:dev_matched:589": 'The Journal asked "Is this a good political move and true is true?',
    }
    for uid, hypothesis in expected.items():
        assert overlap.loc[uid, "hypothesis"] == hypothesis
    source = pd.read_parquet(tables["mnli_dev_matched"]).set_index("uid")
    assert (overlap["label"] == source.loc[overlap.index, "label"]).all()
    decided = overlap["perturbation_params"].map(lambda p: json.loads(p)["decided_by"]["hypothesis"])
    assert (decided == "text").sum() == 9769  # the rest rely on the Treebank stand-in for the parse
    # length mismatch goes on the premise, five times, as the paper says
    length = distraction["length_mismatch"].set_index("source_uid")
    assert length.loc["mnli:dev_matched:49", "premise"] == "'Publicity" + TAUT * 5 + "."
    assert (length["hypothesis"] == source.loc[length.index, "hypothesis"]).all()


# -- antonymy (make_antonym_adv_samples.py) ------------------------------------------------


def test_lesk_2018_breaks_ties_by_the_last_synset_name() -> None:
    wn = wordnet({"resources": shared_override()["resources"]})
    context = ["qqq"]  # no definition overlap: every sense ties at 0
    assert lesk_2018(context, "bank", wn).name() == max(s.name() for s in wn.synsets("bank"))
    assert lesk_2018(context, "qwzx", wn) is None


def test_antonymy_count_and_pairs_on_mnli(params, tables, tmp_path_factory) -> None:
    built = tmp_path_factory.mktemp("antonymy") / "mnli_dev_matched.parquet"
    manifest = build_set("antonymy", tables["mnli_dev_matched"], built, params)
    rows = pd.read_parquet(built)
    assert abs(len(rows) - 1561) <= 0.02 * 1561, len(rows)  # the paper's 1,561 pairs
    assert len(rows) == 1573
    assert manifest["rows"]["input"] == manifest["rows"]["kept"] + sum(manifest["rows"]["dropped"].values())
    assert (rows["label"] == "contradiction").all()
    assert not rows.duplicated(["premise", "hypothesis"]).any()
    assert (rows["premise"] != rows["hypothesis"]).all()
    params_of = rows["perturbation_params"].map(json.loads)
    premise_side = params_of.map(lambda p: p["side"] == "premise")
    # premise pairs are (original, edited); hypothesis pairs (edited, original)
    pairs = set(zip(rows["premise"], rows["hypothesis"], strict=True))
    assert ("This site includes a list of all award winners and a searchable database of "
            "Government Executive articles.", "This site includes a list of all award loser and a "
            "searchable database of Government Executive articles.") in pairs  # fmt: skip
    assert ("Would you rise up and defeaat all good lords in the town?",
            "Would you rise up and defeaat all evil lords in the town?") in pairs  # fmt: skip
    assert premise_side.any() and (~premise_side).any()
    assert not params_of.map(lambda p: "_" in p["antonym"]).any()
    # The judged sample of this build (reviews/stress/antonymy/mnli_dev_matched.paper.*): its
    # rows are rows of today's build, its summary is its CSV imported today, and it names this
    # build's sha256 and mode, so the paper-mode card shows it and the default card does not.
    summary_path = ROOT / "reviews/stress/antonymy/mnli_dev_matched.paper.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    assert summary["sets"] == [{"mode": "paper", "rows": 1573, "set": "mnli_dev_matched.parquet",
                                "sha256": manifest["sha256"]}]  # fmt: skip
    judged = {(r["uid"], r["premise"], r["hypothesis"]) for r in read_csv(summary_path.with_suffix(".csv"))}
    assert len(judged) == 100 and judged <= set(zip(rows["uid"], rows["premise"], rows["hypothesis"], strict=True))
    again = reimport(summary_path, built, tmp_path_factory.mktemp("again") / "s.json")
    assert again == summary


# -- spelling (make_grammar_adv_samples_jsonl.py) ------------------------------------------


def test_spelling_is_one_keyboard_typo_anywhere(params, tables, tmp_path_factory) -> None:
    rows, _ = build(params, tables, tmp_path_factory, "spelling_error", "mnli_dev_matched")
    assert len(rows) == 9815
    source = pd.read_parquet(tables["mnli_dev_matched"]).set_index("uid")
    function_words = unchanged = 0
    for row in rows.itertuples():
        p = json.loads(row.perturbation_params)
        word, typo, at = p["word"], p["misspelled"], p["position"]
        assert len(word) == len(typo) > 1 and typo[:at] == word[:at] and word[at + 1:] == typo[at + 1:]
        assert typo[at] in KEYBOARD[word[at]]
        original = source.loc[row.source_uid, "hypothesis"]
        if p["replaced"] is None:  # lower-cased "omb" is not in "OMB ...": the original left it
            unchanged += 1
            assert row.hypothesis == original
        else:
            assert row.hypothesis != original and len(row.hypothesis) == len(original)
        function_words += word in ("to", "for", "the", "a", "of", "and")
    assert function_words > 1000  # function words change too, as in the original
    assert unchanged == 84
    again, _ = build(params, tables, tmp_path_factory, "spelling_error", "mnli_dev_matched")
    assert again.equals(rows)  # seeded


# -- numerical (gen_num_test.py, quant_ner.py, quant_example_gen.py) -------------------------


def test_numerical_counts_and_label_rules_on_aqua(params, tables, tmp_path_factory) -> None:
    counts, built, shas = {}, [], []
    folder = tmp_path_factory.mktemp("numerical")
    for split in ("aqua_rat_dev", "aqua_rat_test"):
        built.append(folder / f"{split}.parquet")
        manifest = build_set("numerical", tables[split], built[-1], params)
        rows = pd.read_parquet(built[-1])
        counts[split], shas = manifest["rows"]["kept"], [*shas, manifest["sha256"]]
        assert len(rows) == 3 * manifest["rows"]["kept"]
        for _, group in rows.groupby(rows["uid"].str.rsplit(":", n=1).str[0]):
            by_label = group.set_index("label")
            p = json.loads(by_label.loc["entailment", "perturbation_params"])
            original = by_label.loc["entailment", "premise"]
            phrase, new = p["entailed"].rsplit(" ", 1)
            old = p["number"]
            assert new[0] != old[0] and new[1:] == old[1:] and new[0] in "12345678"
            assert phrase == ("less than" if int(old[0]) < int(new[0]) else "more than")
            entailed = by_label.loc["entailment", "hypothesis"]
            assert f" {phrase} {new}" in f" {entailed}"
            # neutral is the entailed pair flipped
            assert (by_label.loc["neutral", "premise"], by_label.loc["neutral", "hypothesis"]) == (
                entailed, original)
            contradicted = by_label.loc["contradiction", "hypothesis"]
            c = json.loads(by_label.loc["contradiction", "perturbation_params"])["contradicted"]
            phrased = bool(re.fullmatch(r"(more|less) than \d+", c)) and c.endswith(f" {old}")
            assert c in contradicted and (phrased or (c[0] != old[0] and c[1:] == old[1:]))
    assert counts == {"aqua_rat_dev": 20, "aqua_rat_test": 16}
    # Every row of both builds judged (reviews/stress/numerical/aqua_rat_dev+test.paper.*): the
    # summary is its CSV imported today and names these builds' sha256 and mode.
    summary_path = ROOT / "reviews/stress/numerical/aqua_rat_dev+test.paper.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    assert [(s["set"], s["sha256"], s["mode"]) for s in summary["sets"]] == [
        (path.name, sha, "paper") for path, sha in zip(built, shas, strict=True)]  # fmt: skip
    assert summary["census"] and summary["reviewed"] == 108
    again = reimport(summary_path, built, folder / "again.json")
    assert again == summary


# -- permutations (codes/word_randomization.py, random_eval.py) ------------------------------


def _oracle_order(punct: list[bool], seed: int) -> list[int]:
    """The original's procedure as its code reads: numpy index array, module-level ``random``."""
    random.seed(seed)
    index = np.arange(len(punct))
    free = [i for i, fixed in enumerate(punct) if not fixed]
    values = index[free]
    before = values.copy()
    if len(values) > 1:
        while True:
            random.shuffle(values)
            if not any(values[i] == before[i] for i in range(len(values))):
                break
    index[free] = values
    return index.tolist()


def test_permutation_orders_equal_the_originals_procedure(tables) -> None:
    tokenize = _tokenizer("en")
    source = pq.read_table(tables["snli_dev"]).slice(0, 40).to_pylist()
    for row in source:
        for side in ("premise", "hypothesis"):
            punct = [t.is_punct for t in tokenize(row[side])]
            for seed in (0, 1, 57, 99):
                assert authors_order(punct, seed) == _oracle_order(punct, seed)


# Table 7 of Sinha et al. (2021): used examples, and our tolerance for each split.
TABLE7 = {"mnli_dev_matched": (6655, 0.01, 6655), "snli_dev": (3697, 0.02, 3695),
          "snli_test": (3671, 0.02, 3669), "anli_r1_dev": (756, 0.02, 753),
          "anli_r2_dev": (709, 0.02, 705), "anli_r3_dev": (754, 0.02, 742)}  # fmt: skip


@pytest.mark.parametrize("table", sorted(TABLE7))
def test_permutation_used_examples_match_table7(params, tables, table: str) -> None:
    paper, tolerance, ours = TABLE7[table]
    dataset, _, split = table.partition("_")
    generator = make_generator("permute", params)
    counts = generator.count_used(pq.read_table(tables[table]), Context(dataset, split, "en", 2021))
    assert counts.kept == ours
    assert abs(counts.kept - paper) <= tolerance * paper
    assert counts.input == counts.kept + sum(counts.dropped.values())


def test_permuted_rows_record_their_orders(params, tables, tmp_path_factory) -> None:
    small = tmp_path_factory.mktemp("perm") / "anli_r1_dev.parquet"
    pq.write_table(pq.read_table(tables["anli_r1_dev"]).slice(0, 30), small)
    out = small.with_name("set.parquet")
    manifest = build_set("permute", small, out, params)
    rows = pd.read_parquet(out)
    assert manifest["params"]["mode"] == "paper" and len(rows) == 100 * manifest["rows"]["kept"]
    tokenize = _tokenizer("en")
    source = pq.read_table(small).to_pandas().set_index("uid")
    for row in rows.head(300).itertuples():
        words = [t.text for t in tokenize(source.loc[row.source_uid, "premise"])]
        assert list(row.premise_order) == authors_order(
            [t.is_punct for t in tokenize(source.loc[row.source_uid, "premise"])], row.perm_index)
        assert row.premise == " ".join(" ".join(words[i] for i in row.premise_order).split())


# -- hypothesis-only model (Poliak et al.: InferSent's training setup) ------------------------


def test_infersent_learning_rate_schedule() -> None:
    """lr x 0.99 per epoch, / 5 after an epoch without a better dev accuracy, stop below min_lr."""
    import torch

    from nlistress.models.fitting import LearningRatePolicy

    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    policy = LearningRatePolicy(optimizer, {"kind": "infersent", "decay": 0.99, "shrink": 5,
                                            "min_lr": 0.001})  # fmt: skip
    seen = []
    for score in (0.5, 0.6, 0.6, 0.55, 0.7, 0.6):
        policy.step(score)
        seen.append((optimizer.param_groups[0]["lr"], policy.finished))
        if policy.finished:
            break
    lrs = [0.1 * 0.99, 0.1 * 0.99**2, 0.1 * 0.99**3 / 5, 0.1 * 0.99**4 / 25, 0.1 * 0.99**5 / 25,
           0.1 * 0.99**5 / 125]  # fmt: skip
    assert [lr for lr, _ in seen] == pytest.approx(lrs)
    assert [done for _, done in seen] == [False] * 5 + [True]


def test_nltk_tokens_as_word_tokenize() -> None:
    from nlistress.models.text import tokenize

    assert tokenize('Mr. Smith didn\'t go to the U.S. He said "no."', False, "nltk") == [
        "Mr.", "Smith", "did", "n't", "go", "to", "the", "U.S.", "He", "said", "``", "no", ".", "''"]


def test_hypothesis_only_model_trains_with_the_paper_setup(params, tables, tmp_path: Path) -> None:
    """The paper profile's InferSent (small LSTM here) on SNLI dev with a GloVe file of real words."""
    import yaml
    from safetensors.torch import load_file

    from nlistress.cli import main
    from nlistress.models.text import Vocabulary, tokenize

    train = pq.read_table(tables["snli_dev"]).to_pandas()
    words = sorted({w for text in train["hypothesis"][:3000] for w in tokenize(text, False, "nltk")})
    kept = words[::2]  # half the real words have a vector; the others are dropped from sentences
    rng = np.random.default_rng(0)
    glove = tmp_path / "glove.txt"
    vectors = {w: np.round(rng.uniform(-1, 1, 300), 4) for w in kept}
    glove.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in vectors.items()), encoding="utf-8")
    paper = load_params([PAPER])["models"]["zoo"]["infersent_hyp"]
    assert (paper["hidden_dim"], paper["mlp_dim"], paper["embedding_dim"], paper["batch_size"]) == (2048, 512, 300, 64)
    assert (paper["optimizer"], paper["lr"], paper["tokenizer"], paper["classifier"]) == ("sgd", 0.1, "nltk", "linear")
    small = {"hidden_dim": 32, "epochs": 3, "train_rows": 3000, "glove": str(glove)}
    run = deep_merge(params, {"models": {"threads": 1, "zoo": {"infersent_hyp": small}}})
    params_file = tmp_path / "params.yaml"
    params_file.write_text(yaml.safe_dump(run), encoding="utf-8")
    dev = tmp_path / "dev.parquet"
    pq.write_table(pq.read_table(tables["snli_test"]).slice(0, 1000), dev)
    model = tmp_path / "model"
    assert main(["train", "infersent_hyp", "--train", str(tables["snli_dev"]), "--dev", str(dev),
                 "-o", str(model), "--params", str(params_file)]) == 0  # fmt: skip
    vocab = Vocabulary.load(model / "vocab.json")
    assert (vocab.tokenizer, vocab.unknown, vocab.lowercase) == ("nltk", "drop", False)
    assert set(vocab.tokens[2:]) <= set(kept)  # only words with a vector exist
    weights = load_file(model / "model.safetensors")
    for word in vocab.tokens[2:50]:  # frozen GloVe rows reach the saved model unchanged
        assert np.allclose(weights["embedding.weight"][vocab.index[word]].numpy(), vectors[word], atol=1e-6)
    linear = sorted(k for k in weights if k.startswith("classifier") and k.endswith("weight"))
    assert [tuple(weights[k].shape) for k in linear] == [(512, 64), (512, 512), (3, 512)]
    metrics = json.loads((model / "metrics.json").read_text())
    assert metrics[0]["lr"] == pytest.approx(0.1) and metrics[1]["lr"] in (
        pytest.approx(0.099), pytest.approx(0.0198))  # fmt: skip
    assert metrics[-1]["dev_accuracy"] > 0.34
