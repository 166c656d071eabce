"""Distraction and noise stress tests on the real MNLI dev-matched file (Naik et al. 2018).

Checks what the paper's construction guarantees: one output row per example,
labels unchanged, the exact strings of its Table 2 construction, and a
spelling error that is always a real one-character edit.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from nlistress.config import deep_merge
from nlistress.errors import ConfigError, DataError
from nlistress.manifest import manifest_path
from nlistress.perturb.runner import build_set
from nlistress.perturb.spelling import NEIGHBOURS
from nlistress.perturb.tautology import conjoin
from nlistress.resources import wordnet

from .support import ROOT, SHARED_DATA, canonical_table, project_params, shared_override

PER_EXAMPLE = ("word_overlap", "negation", "length_mismatch", "tautology", "spelling_error")


@pytest.fixture(scope="module")
def params():
    return deep_merge(project_params(), shared_override())


def canonical(params, tmp_path_factory, dataset: str, split: str, rel: str):
    return canonical_table(params, dataset, split, rel, tmp_path_factory.mktemp(dataset))


@pytest.fixture(scope="module")
def mnli(params, tmp_path_factory):
    return canonical(
        params, tmp_path_factory, "mnli", "dev_matched", "mnli/multinli_1.0_dev_matched.jsonl"
    )


@pytest.fixture(scope="module")
def built(params, mnli, tmp_path_factory):
    """Every per-example test built once from MNLI dev-matched: test -> (table, manifest)."""
    out = tmp_path_factory.mktemp("stress")
    sets = {}
    for test in PER_EXAMPLE:
        target = out / f"{test}.parquet"
        manifest = build_set(test, mnli, target, params)
        sets[test] = (pd.read_parquet(target), manifest)
    return sets


@pytest.mark.parametrize("test", PER_EXAMPLE)
def test_one_row_per_example_with_unchanged_labels(built, mnli, test):
    source = pd.read_parquet(mnli)
    table, manifest = built[test]
    # Only a spelling error may drop an example: when every draw gives an English word.
    dropped = manifest["rows"]["dropped"]
    assert set(dropped) <= ({"filter: real_word"} if test == "spelling_error" else set())
    kept = source[source["uid"].isin(table["source_uid"])]
    assert len(table) == len(kept) == 9815 - sum(dropped.values()) >= 9810
    assert table["source_uid"].tolist() == kept["uid"].tolist()
    assert table["label"].tolist() == kept["label"].tolist()
    assert (table["perturbation"] == test).all()
    assert manifest["rows"]["input"] == 9815 and manifest["output_rows"] == len(table)
    assert table["uid"].is_unique


def test_known_examples_match_the_papers_construction(built):
    """MNLI dev-matched line 2, and the paper's Table 2 pattern (inserted before the final stop)."""
    row = {test: built[test][0].iloc[1] for test in PER_EXAMPLE}
    hypothesis = (
        "The Government Executive articles housed on the website are not able to be searched"
    )
    premise = (
        "This site includes a list of all award winners and a searchable database of "
        "Government Executive articles"
    )
    assert row["word_overlap"]["hypothesis"] == hypothesis + " and true is true."
    assert row["negation"]["hypothesis"] == hypothesis + " and false is not true."
    assert row["tautology"]["hypothesis"] == hypothesis + " and green is not red."
    assert row["length_mismatch"]["premise"] == premise + " and true is true" * 5 + "."
    assert row["length_mismatch"]["hypothesis"] == hypothesis + "."
    params = json.loads(row["negation"]["perturbation_params"])
    assert params["inserted"] == " and false is not true"
    assert params["char_start"] == {"hypothesis": len(hypothesis)}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "The country's history has been turbulent.",
            "The country's history has been turbulent and true is true.",
        ),
        ("Two woman are holding packages .", "Two woman are holding packages and true is true ."),
        (
            "Everyone really likes the newest benefits ",
            "Everyone really likes the newest benefits and true is true ",
        ),
        ('He said "you are early."', 'He said "you are early and true is true."'),
        ("Really?!", "Really and true is true?!"),
        ("...", " and true is true..."),
    ],
)
def test_conjoin_keeps_final_punctuation_and_spacing(sentence, expected):
    assert conjoin(sentence, " and true is true", ".!?\"'")[0] == expected


def test_spelling_errors_are_real_one_character_edits(built, mnli, params):
    from spacy.lang.en.stop_words import STOP_WORDS

    wn = wordnet(params)
    source = pd.read_parquet(mnli).set_index("uid")
    table, _ = built["spelling_error"]
    kinds = []
    for row in table.itertuples():
        original = source.loc[row.source_uid, "hypothesis"]
        p = json.loads(row.perturbation_params)
        kinds.append(p["kind"])
        word, new, start, end = p["word"], p["misspelled"], p["char_start"], p["char_end"]
        assert original[start:end] == word and any(c.isalpha() for c in word)
        assert row.hypothesis == original[:start] + new + original[end:]
        assert new != word and len(new) == len(word)
        diff = [i for i, (a, b) in enumerate(zip(word, new, strict=True)) if a != b]
        if p["kind"] == "swap":
            assert diff == [p["position"], p["position"] + 1]
            assert new[diff[0]] == word[diff[1]] and new[diff[1]] == word[diff[0]]
        else:
            assert diff == [p["position"]]
            assert new[diff[0]].lower() in NEIGHBOURS[word[diff[0]].lower()]
        assert row.premise == source.loc[row.source_uid, "premise"]
        # Never a different English word: "form" must not become "from".
        assert wn.morphy(new.lower()) is None and new.lower() not in STOP_WORDS, (word, new)
    share = kinds.count("swap") / len(kinds)
    assert 0.45 < share < 0.55  # both kinds, chosen with equal probability


def test_qwerty_neighbours():
    assert set(NEIGHBOURS["s"]) == set("weadzx")
    assert set(NEIGHBOURS["q"]) == set("wa")
    assert all(key not in near for key, near in NEIGHBOURS.items())


def test_seeds(params, mnli, tmp_path):
    """Same seed, same bytes; another seed changes the random set only."""
    paths = {}
    for test in ("spelling_error", "word_overlap"):
        for seed in (1, 1, 2):
            target = tmp_path / f"{test}_{seed}_{len(paths)}.parquet"
            build_set(test, mnli, target, params, seed=seed)
            paths.setdefault(test, []).append(target.read_bytes())
    same, again, other = paths["spelling_error"]
    assert same == again and same != other
    same, again, other = paths["word_overlap"]
    assert same == again == other


def test_negation_augmented_training_data(params, tmp_path_factory, tmp_path):
    snli = canonical(params, tmp_path_factory, "snli", "dev", "snli/snli_1.0_dev.jsonl")
    target = tmp_path / "aug.parquet"
    manifest = build_set("negation_augmented", snli, target, params)
    table = pd.read_parquet(target)
    assert len(table) == 2 * 9842 == manifest["output_rows"]
    originals, twins = table.iloc[0::2], table.iloc[1::2]
    source = pd.read_parquet(snli)
    assert originals["hypothesis"].tolist() == source["hypothesis"].tolist()
    assert twins["hypothesis"].iloc[1] == "Two woman are holding packages and false is not true ."
    assert (twins["label"].to_numpy() == originals["label"].to_numpy()).all()


def test_chinese_tautologies_for_ocnli(params, tmp_path_factory, tmp_path):
    ocnli = canonical(params, tmp_path_factory, "ocnli", "dev", "ocnli/dev.json")
    target = tmp_path / "ocnli.parquet"
    manifest = build_set("word_overlap", ocnli, target, params)
    table = pd.read_parquet(target)
    assert manifest["params"]["language"] == "zh" and len(table) == 2950
    assert table["hypothesis"].iloc[0] == "身上至少一件衣服并且真是真"
    # Final punctuation (。, closing quotes) stays after the tautology.
    tails = table["hypothesis"].str.split("并且真是真").str[-1]
    assert tails.str.fullmatch(r"[。！？；：…”’）)\s]*").all()
    assert (tails == "。").sum() > 500


def test_cli_on_a_users_jsonl_with_overrides(tmp_path):
    """`nlistress perturb` on a file in the official SNLI format, settings overridden."""
    out = tmp_path / "mine.parquet"
    proc = subprocess.run(
        [sys.executable, "-m", "nlistress.cli", "perturb", "tautology",
         "-i", str(SHARED_DATA / "snli" / "snli_1.0_test.jsonl"), "-o", str(out),
         "--set", "tautology=the sky is the sky", "--set", "side=premise", "--set", "repeat=2",
         "--params", str(ROOT / "params.yaml")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    table = pd.read_parquet(out)
    assert len(table) == 9824
    assert table["premise"].iloc[0].endswith(" and the sky is the sky and the sky is the sky .")
    assert (table["dataset"] == "custom").all() and (table["split"] == "snli_1.0_test").all()
    manifest = json.loads(manifest_path(out).read_text())
    assert manifest["params"]["settings"]["repeat"] == 2


def test_bad_settings_are_named(params, mnli, tmp_path):
    with pytest.raises(ConfigError, match=r"stress.tests.word_overlap.side: expected one of"):
        build_set("word_overlap", mnli, tmp_path / "x.parquet", params, overrides={"side": "left"})
    with pytest.raises(ConfigError, match=r"unknown test 'nope' \(known: [a-z_, ]*antonymy, "):
        build_set("nope", mnli, tmp_path / "x.parquet", params)
    with pytest.raises(ConfigError, match="kinds"):
        build_set(
            "spelling_error", mnli, tmp_path / "x.parquet", params, overrides={"kinds": ["typo"]}
        )
    assert list(tmp_path.iterdir()) == []


def test_users_parquet_needs_only_premise_and_hypothesis(params, tmp_path):
    """A bare DataFrame export works: uids, dataset and split are filled in from the file."""
    rows = [json.loads(line) for line in (SHARED_DATA / "snli" / "snli_1.0_dev.jsonl").open()][:50]
    frame = pd.DataFrame(
        {"premise": [r["sentence1"] for r in rows], "hypothesis": [r["sentence2"] for r in rows],
         "label": [r["gold_label"] for r in rows]}
    )  # fmt: skip
    source = tmp_path / "mine.parquet"
    frame.to_parquet(source)
    out = tmp_path / "out.parquet"
    build_set("negation", source, out, params)
    table = pd.read_parquet(out)
    assert table["source_uid"].tolist()[:2] == ["mine:0", "mine:1"]
    assert (table["dataset"] == "custom").all() and (table["split"] == "mine").all()
    assert table["label"].tolist() == frame["label"].tolist()

    frame.drop(columns="hypothesis").to_parquet(source)
    with pytest.raises(DataError, match=r"mine.parquet: missing column\(s\) hypothesis"):
        build_set("negation", source, out, params)


def test_rows_dropped_while_reading_a_users_jsonl_reach_the_manifest(params, tmp_path):
    """OCNLI dev as a user's file: its 50 rows without a gold label are counted, not lost."""
    out = tmp_path / "ocnli.parquet"
    manifest = build_set("negation", SHARED_DATA / "ocnli" / "dev.json", out, params, language="zh")
    assert manifest["source"]["rows"] == {
        "unit": "row", "input": 3000, "kept": 2950, "dropped": {"no gold label": 50},
    }  # fmt: skip
    assert manifest["rows"]["input"] == 2950 == manifest["output_rows"]
