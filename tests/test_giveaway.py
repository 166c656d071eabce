"""Give-away words, coverage and Tables 2-3 on the real SNLI dev and test files.

The paper (Poliak et al. 2018, Figure 13) lists SNLI train's contradiction
give-aways; SNLI dev+test come from the same elicitation protocol, so most of
them must reappear. Counts are re-derived with a plain Python Counter.
"""

from __future__ import annotations

import csv
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from nlistress.cli import main
from nlistress.errors import DataError
from nlistress.predictions import read_predictions

from .support import ROOT, canonical_table, project_params

PARAMS = ["--params", str(ROOT / "params.yaml")]
# Figure 13 (c): SNLI contradiction, lower-cased.
PAPER_CONTRADICTION = {"sleeping", "driving", "nobody", "alone", "cat", "asleep", "no", "empty", "eats", "sleeps"}
PAPER_NEUTRAL = {"tall", "competition", "because", "birthday", "mom", "win", "got", "trip", "tries", "owner"}
FILES = ("top_words.csv", "top_words.md", "coverage.csv", "coverage.png", "words.json")


@pytest.fixture(scope="module")
def snli(tmp_path_factory):
    folder = tmp_path_factory.mktemp("snli")
    params = project_params()
    return {
        "dev": canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", folder),
        "test": canonical_table(params, "snli", "test", "snli/snli_1.0_test.jsonl", folder),
    }


@pytest.fixture(scope="module")
def analysis(snli, tmp_path_factory):
    out = tmp_path_factory.mktemp("giveaway")
    assert main(["giveaway", "--table", str(snli["dev"]), "--table", str(snli["test"]),
                 "-o", str(out), "--title", "SNLI dev+test", *PARAMS]) == 0  # fmt: skip
    return out


def test_contradiction_giveaways_match_the_paper(analysis):
    with open(analysis / "top_words.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    top = {label: [r["word"].lower() for r in rows if r["label"] == label]
           for label in ("entailment", "neutral", "contradiction")}  # fmt: skip
    assert all(len(words) == 10 for words in top.values())
    assert len(set(top["contradiction"]) & PAPER_CONTRADICTION) >= 6, top["contradiction"]
    assert len(set(top["neutral"]) & PAPER_NEUTRAL) >= 3, top["neutral"]
    for r in rows:  # every listed word passes the thresholds, ranked by frequency
        assert float(r["p"]) >= 0.8 and int(r["freq"]) >= 5
    freqs = [int(r["freq"]) for r in rows if r["label"] == "contradiction"]
    assert freqs == sorted(freqs, reverse=True)
    markdown = (analysis / "top_words.md").read_text(encoding="utf-8")
    assert "## contradiction" in markdown and "| Word | Score | Freq |" in markdown


def test_counts_match_a_plain_counter(analysis, snli):
    table = pd.concat([pd.read_parquet(snli[s]) for s in ("dev", "test")])
    counts: Counter[tuple[str, str]] = Counter()
    for hypothesis, label in zip(table["hypothesis"], table["label"], strict=True):
        for word in set(hypothesis.split()):
            counts[word, label] += 1
    words = json.loads((analysis / "words.json").read_text(encoding="utf-8"))
    assert words["rows"] == {"unit": "row", "input": 19666, "kept": 19666, "dropped": {}}
    assert len(words["words"]) == len({w for w, _ in counts})
    for word, entry in words["words"].items():
        for label, n in entry["counts"].items():
            assert counts[word, label] == n
        assert entry["p"]["contradiction"] == pytest.approx(entry["counts"]["contradiction"] / entry["freq"], abs=1e-6)


def test_coverage_curve(analysis, snli):
    cov = pd.read_csv(analysis / "coverage.csv")
    words = json.loads((analysis / "words.json").read_text(encoding="utf-8"))["words"]
    eligible = {w for w, e in words.items() if e["freq"] >= 5}
    table = pd.concat([pd.read_parquet(snli[s]) for s in ("dev", "test")])
    for label, group in cov.groupby("label"):
        assert (np.diff(group["covered"].to_numpy()) <= 0).all()  # non-increasing in t
        assert (group["covered_own_label"] <= group["covered"]).all()
        mine = table[table["label"] == label]
        with_word = sum(bool(set(h.split()) & eligible) for h in mine["hypothesis"])
        # With three labels some p(l|w) >= 1/3 always holds: below 1/3 every such hypothesis is covered.
        low = group[group["threshold"] <= 0.33]
        assert (low["covered"] == with_word).all()
        assert group["hypotheses"].iloc[0] == len(mine)
        assert group[group["threshold"] == 0.5]["covered"].iloc[0] < with_word


def test_outputs_are_byte_identical_on_rerun(analysis, snli, tmp_path):
    assert main(["giveaway", "--table", str(snli["dev"]), "--table", str(snli["test"]),
                 "-o", str(tmp_path), "--title", "SNLI dev+test", *PARAMS]) == 0  # fmt: skip
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (analysis / name).read_bytes(), name
    assert (tmp_path / "coverage.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def bow_predictions(snli, tmp_path_factory):
    out = tmp_path_factory.mktemp("bow") / "snli_test.parquet"
    assert main(["hypothesis-bow", "--train", str(snli["dev"]), "--table", str(snli["test"]),
                 "-o", str(out), *PARAMS]) == 0  # fmt: skip
    return out


def test_bow_trained_on_dev_beats_majority_on_test(snli, bow_predictions, tmp_path):
    preds = read_predictions(bow_predictions)
    assert len(preds.uids) == 9824 and preds.entropy_source == "probabilities"
    assert main(["baselines", "--dataset", "snli", "--train", str(snli["dev"]),
                 "--split", "test", str(snli["test"]), str(bow_predictions),
                 "-o", str(tmp_path), *PARAMS]) == 0  # fmt: skip
    result = json.loads((tmp_path / "baselines.json").read_text(encoding="utf-8"))["results"][0]
    dev, test = pd.read_parquet(snli["dev"]), pd.read_parquet(snli["test"])
    majority = dev["label"].value_counts().idxmax()
    assert result["majority_label"] == majority
    assert result["majority"] == round(100 * (test["label"] == majority).mean(), 2)
    assert result["hyp_only"] > result["majority"] + 10
    assert result["delta"] == pytest.approx(result["hyp_only"] - result["majority"], abs=0.011)
    assert result["relative"] == pytest.approx(100 * result["delta"] / result["majority"], abs=0.05)
    per_label = pd.read_csv(tmp_path / "table3.csv")
    assert per_label["majority"].sum() == pytest.approx(100, abs=0.02)  # MAJ = class shares
    assert (per_label["rows"].sum()) == len(test)
    assert "| snli | " in (tmp_path / "table2.md").read_text(encoding="utf-8")


def test_missing_predictions_are_named(snli, bow_predictions, tmp_path):
    partial = tmp_path / "partial.parquet"
    pd.read_parquet(bow_predictions).iloc[:100].to_parquet(partial)
    with pytest.raises(DataError, match=r"partial\.parquet: no prediction for 9724 of 9824 rows"):
        from nlistress.hypothesis_only.baselines import SplitInput, score_split

        score_split("snli", SplitInput("test", snli["test"], partial), "entailment",
                    ("entailment", "neutral", "contradiction"), 1e-3)  # fmt: skip
