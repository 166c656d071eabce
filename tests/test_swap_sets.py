"""Word-pair swap sets (Sanchez, Mitchell & Riedel 2018) on the real SNLI dev and test files.

All four sets are built once per module from SNLI dev (standing in for SNLI
train, which is not available here) with the real WordNet and Baroni et al.
(2012) lexicon; the checks re-derive what the generator claims: the token-level
diff between each transformed row and its control, ex-situ sentences that
differ only at the pair, and polarity/unseen recounted by a plain scan of the
training table (no index). Hand-written inputs only for lexicon-file edge cases.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from nlistress.atomic import sha256_file
from nlistress.config import deep_merge
from nlistress.errors import ConfigError, DataError
from nlistress.labels import LABELS
from nlistress.perturb.runner import build_set
from nlistress.swap.factors import polarity
from nlistress.swap.generators import LABEL_RULES, SwapPairs
from nlistress.swap.index import PairIndex
from nlistress.swap.lexicons import (
    read_antonym_file,
    read_baroni,
    wordnet_antonyms,
    write_antonym_file,
)
from nlistress.swap.schema import EXPERIMENTS, SWAP_SCHEMA
from nlistress.swap.tokens import replace_word, words

from .support import (
    ROOT,
    SHARED_DATA,
    canonical_table,
    project_params,
    read_csv,
    reimport,
    shared_override,
)

TESTS = ("antonym_in_situ", "antonym_ex_situ", "hypernym_in_situ", "hypernym_ex_situ")
CONTROL = {"I_TA1": "I_A", "I_TA2": "I_A", "I_TA3": "I_A", "I_TH": "I_H", "E_TA": "E_A",
           "E_TH": "E_H"}  # fmt: skip


def swap_params(train: Path) -> dict[str, Any]:
    shared = shared_override()
    shared["swap"]["lexicons"]["hypernyms"]["path"] = str(SHARED_DATA / "lexicons/baroni2012.tsv")
    return deep_merge(deep_merge(project_params(), shared), {"swap": {"train_table": str(train)}})


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("swap")
    dev = canonical_table(swap_params(folder), "snli", "dev", "snli/snli_1.0_dev.jsonl", folder)
    params = swap_params(dev)
    # The WordNet antonym list, written once as the pipeline's rule antonym_lexicon does.
    lexicon = folder / "antonyms_wordnet.tsv"
    write_antonym_file(wordnet_antonyms(params), lexicon)
    params["swap"]["lexicons"]["antonyms"]["path"] = str(lexicon)
    sets = {}
    for test in TESTS:
        out = folder / f"{test}.parquet"
        manifest = build_set(test, dev, out, params)
        sets[test] = (out, manifest, pq.read_table(out).to_pylist())
    return {"params": params, "dev": dev, "sets": sets, "folder": folder, "lexicon": lexicon}


ARTICLES = {("a", "an"), ("an", "a")}  # the article in front of a swapped word follows it


def rows_of(built: dict[str, Any]) -> list[dict[str, Any]]:
    return [row for _, _, rows in built["sets"].values() for row in rows]


def test_every_set_and_experiment_is_non_empty_with_the_contract_schema(built):
    experiments = Counter(row["experiment"] for row in rows_of(built))
    assert set(experiments) == set(EXPERIMENTS), experiments
    for path, manifest, rows in built["sets"].values():
        assert rows and pq.read_schema(path).remove_metadata().equals(SWAP_SCHEMA)
        counts = manifest["rows"]
        assert counts["input"] == counts["kept"] + sum(counts["dropped"].values()) == 9842
        assert manifest["stats"]["rows_by_experiment"] == dict(
            sorted(Counter(r["experiment"] for r in rows).items())
        )
    print("rows per experiment:", dict(sorted(experiments.items())))


def test_transformed_rows_differ_from_their_control_exactly_by_the_pair(built):
    rows = rows_of(built)
    controls = {(r["pair_id"], r["experiment"]): r for r in rows if r["experiment"] not in CONTROL}
    for row in rows:
        if row["experiment"] not in CONTROL or row["experiment"].startswith("E_"):
            continue
        control = controls[(row["pair_id"], CONTROL[row["experiment"]])]
        params = json.loads(row["perturbation_params"])
        new_p, new_h = params["premise_word"], params["hypothesis_word"]
        for side, old, new in (("premise", row["w1"], new_p), ("hypothesis", row["w2"], new_h)):
            before, after = words(control[side]), words(row[side])
            assert len(before) == len(after)
            diff = {(b, a) for b, a in zip(before, after, strict=True) if b != a} - ARTICLES
            assert diff == (set() if old == new else {(old, new)}), (row["uid"], side, diff)
        if row["experiment"] in ("I_TA1", "I_TH"):  # T: w1 leaves the premise, w2 the hypothesis
            assert row["w1"] not in words(row["premise"]) and row["w2"] not in words(row["hypothesis"])
            assert row["w2"] in words(row["premise"]) and row["w1"] in words(row["hypothesis"])


def test_ex_situ_premise_and_hypothesis_differ_only_at_the_pair(built):
    for row in rows_of(built):
        if not row["experiment"].startswith("E_"):
            continue
        p, h = words(row["premise"]), words(row["hypothesis"])
        diff = {(a, b) for a, b in zip(p, h, strict=True) if a != b} - ARTICLES
        pair = (row["w2"], row["w1"]) if row["experiment"] in ("E_TA", "E_TH") else (row["w1"], row["w2"])
        assert diff == {pair}, row["uid"]


def test_polarity_and_unseen_match_a_plain_scan_of_the_training_split(built):
    train = pq.read_table(built["dev"]).to_pylist()
    sides = [(set(words(t["premise"])), set(words(t["hypothesis"])), t["label"]) for t in train]
    checked = 0
    for row in rows_of(built)[::5]:  # every 5th row: a scan per pair is slow by design
        params = json.loads(row["perturbation_params"])
        a, b = params["premise_word"], params["hypothesis_word"]
        counts = Counter(label for p, h, label in sides if a in p and b in h)
        assert row["polarity"] == polarity([counts[label] for label in LABELS])
        assert row["unseen"] == (not counts)
        checked += 1
    controls = [r for r in rows_of(built) if r["experiment"] in ("I_A", "I_H", "E_A", "E_H")]
    assert checked > 80 and not any(r["unseen"] for r in controls)  # source = training split (448 rows, 90 checked)
    assert any(r["unseen"] for r in rows_of(built) if r["experiment"] == "I_TA1")


def test_labels_are_derived_only_by_named_rules_and_never_guessed(built):
    rows = rows_of(built)
    for row in rows:
        params = json.loads(row["perturbation_params"])
        status = row["label_status"]
        if status == "needs_annotation":
            assert row["label"] is None and row["gold_label_changed"] is None
        else:
            assert row["label"] in LABELS
            assert row["gold_label_changed"] == (row["label"] != params["control_label"])
        if status == "rule":
            assert params["label_rule"] in LABEL_RULES
        if status == "gold":
            assert row["experiment"] in ("I_A", "I_H") and not row["gold_label_changed"]
    labelled = ("I_A", "I_TA1", "E_A", "E_TA")
    assert {r["label"] for r in rows if r["experiment"] in labelled and r["label_status"] != "needs_annotation"} == {
        "contradiction"
    }
    # an I_TA1 row is left to annotators only where its scenes share no content word
    withheld = [json.loads(r["perturbation_params"]) for r in rows
                if r["experiment"] in labelled and r["label_status"] == "needs_annotation"]
    assert withheld and all(p["experiment"] == "I_TA1" and p["shared_context"] is False for p in withheld)
    by_rule = [r for r in rows if r["experiment"] == "I_TH" and r["label_status"] == "rule"]
    assert by_rule and all(
        r["label"] == "neutral" and r["relation"] == "hyponym" and r["gold_label_changed"]
        for r in by_rule
    )
    assert {r["label_status"] for r in rows if r["experiment"] in ("I_TA2", "I_TA3", "E_H", "E_TH")} == {
        "needs_annotation"
    }


def test_i_ta1_between_unrelated_scenes_is_left_to_annotators(built, tmp_path):
    """Real SNLI dev contradictions: "A man is roller-skating down the wall" / "A woman is
    paying for lunch" share no content word besides the pair, so SNLI's contradiction rests on
    reading both captions as one photo (a strict judge called the swapped row neutral), and
    no rule labels it; "The man ... has a condom on his head" / "... on his foot" shares
    "man" and "condom", and keeps the rule's contradiction. Switched off, every I_TA1 row is
    the rule's again (the paper)."""
    _, manifest, rows = built["sets"]["antonym_in_situ"]
    ta1 = {r["source_uid"]: r for r in rows if r["experiment"] == "I_TA1"}
    unrelated, related = ta1["snli:dev:5682"], ta1["snli:dev:1096"]
    assert unrelated["hypothesis"] == "A man is paying for lunch ."
    assert (unrelated["label"], unrelated["label_status"]) == (None, "needs_annotation")
    assert json.loads(unrelated["perturbation_params"])["shared_context"] is False
    assert (related["label"], related["label_status"]) == ("contradiction", "rule")
    withheld = sum(r["experiment"] == "I_TA1" and r["label_status"] == "needs_annotation" for r in rows)
    assert manifest["stats"]["I_TA1_without_shared_context"] == withheld == 22
    assert "I_TA1 rows between unrelated scenes" in card_notes_of("antonym_in_situ", built, manifest)
    paper = deep_merge(built["params"], {"swap": {"rule_needs_shared_context": False}})
    out = tmp_path / "paper.parquet"
    again = build_set("antonym_in_situ", built["dev"], out, paper)
    assert "I_TA1_without_shared_context" not in again["stats"]
    rows = {r["uid"]: r for r in pq.read_table(out).to_pylist()}
    assert rows[unrelated["uid"]]["label_status"] == "rule"
    assert rows[unrelated["uid"]]["label"] == "contradiction"


def card_notes_of(test: str, built: dict[str, Any], manifest: dict[str, Any]) -> str:
    """The card notes the generator of ``test`` writes for ``manifest``."""
    settings = built["params"]["swap"]["tests"][test]
    return SwapPairs(test, settings, built["params"]).card_notes(manifest)


def test_pair_ids_link_every_transformed_row_to_one_control_row(built):
    rows = rows_of(built)
    uids = [r["uid"] for r in rows]
    assert len(uids) == len(set(uids))
    for experiment, control in CONTROL.items():
        ids = {r["pair_id"] for r in rows if r["experiment"] == control}
        assert len(ids) == sum(1 for r in rows if r["experiment"] == control)
        assert {r["pair_id"] for r in rows if r["experiment"] == experiment} <= ids
    in_situ = {r["pair_id"] for r in rows if r["experiment"] == "I_A"}
    assert in_situ == {r["pair_id"] for r in rows if r["experiment"] == "E_A"}


def test_same_inputs_give_the_same_bytes_and_the_seed_moves_only_ex_situ_choices(built, tmp_path):
    path, _, rows = built["sets"]["antonym_ex_situ"]
    again = tmp_path / "again.parquet"
    build_set("antonym_ex_situ", built["dev"], again, built["params"])
    assert again.read_bytes() == path.read_bytes()
    other = tmp_path / "seed.parquet"
    build_set("antonym_ex_situ", built["dev"], other, built["params"], seed=7)
    moved = [a["premise"] != b["premise"] for a, b in zip(rows, pq.read_table(other).to_pylist(), strict=True)]
    assert any(moved) and not all(moved)


def test_pair_index_agrees_with_a_scan_on_snli_test(built):
    test = canonical_table(built["params"], "snli", "test", "snli/snli_1.0_test.jsonl", built["folder"])
    table = pq.read_table(test)
    index = PairIndex.from_table(table)
    rows = table.to_pylist()
    for a, b in (("man", "woman"), ("dog", "animal"), ("sitting", "standing"), ("indoors", "outside")):
        scan = [i for i, r in enumerate(rows) if a in words(r["premise"]) and b in words(r["hypothesis"])]
        assert index.occurrences(a, b).tolist() == scan and scan


def test_replacement_keeps_the_rest_of_the_text_and_the_capitalisation():
    text = "Man, a man's MAN and a woman-man stand by the man ."
    assert replace_word(text, "man", "woman") == "Woman, a woman's WOMAN and a woman-man stand by the woman ."
    assert words("A t-shirt, 2 dogs' toys") == ["a", "t-shirt", "dogs", "toys"]


def test_lexicon_files_are_read_and_bad_lines_named(tmp_path):
    antonyms = tmp_path / "antonyms.txt"
    antonyms.write_text("# Mohammad et al. style\ngood\tbad evil\nhot cold\n", encoding="utf-8")
    lexicon = read_antonym_file(antonyms)
    assert lexicon.pairs[("evil", "good")] == "antonym" and len(lexicon.pairs) == 6
    antonyms.write_text("good bad\nlonely\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 2"):
        read_antonym_file(antonyms)
    baroni = read_baroni(SHARED_DATA / "lexicons/baroni2012.tsv")
    assert baroni.pairs[("ache", "pain")] == "hyponym" and baroni.pairs[("pain", "ache")] == "hypernym"
    assert ("adjective", "document") not in baroni.pairs  # a False row of the file
    assert baroni.pairs[("adult", "gent")] == "hypernym"  # False row; its reverse is True
    bad = tmp_path / "baroni.tsv"
    bad.write_text("word1\tword2\tlabel\ndog\tanimal\tmaybe\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 2"):
        read_baroni(bad)


def test_the_wordnet_antonym_list_is_all_of_wordnet_and_required_where_configured(built, tmp_path):
    """The file every swap job reads holds exactly WordNet's pairs, byte-reproducibly."""
    params, lexicon = built["params"], built["lexicon"]
    walked = wordnet_antonyms(params)
    assert read_antonym_file(lexicon).pairs == walked.pairs
    again = tmp_path / "again.tsv"
    write_antonym_file(walked, again)
    assert again.read_bytes() == lexicon.read_bytes()
    manifest = built["sets"]["antonym_in_situ"][1]
    assert manifest["stats"]["lexicon"]["name"] == f"WordNet antonyms ({lexicon})"
    assert manifest["stats"]["lexicon"]["ordered_pairs"] == len(walked.pairs)
    missing = deep_merge(params, {"swap": {"lexicons": {"antonyms": {"path": str(tmp_path / "no.tsv")}}}})
    with pytest.raises(ConfigError, match=r"no\.tsv not found; build it with `snakemake"):
        build_set("antonym_ex_situ", built["dev"], tmp_path / "out.parquet", missing)
    assert not (tmp_path / "out.parquet").exists()


def test_shared_override_builds_swap_sets_from_snli_dev():
    shared = shared_override()
    assert shared["swap"]["sets"]["snli/dev"] == list(TESTS)
    assert (ROOT / shared["swap"]["lexicons"]["hypernyms"]["path"]).is_file()


@pytest.mark.parametrize("test", TESTS)
def test_the_committed_review_judges_the_bytes_that_build_today(built, test):
    """Each swap set's reviews (its sample and, for the antonym sets, its census; in
    reviews/blind its blind sample and strict pass) name the sha256 this build gives; a
    sample's rows are rows of the set and a census's are all of them: a filter change must
    come with its judgements updated."""
    out, _, rows = built["sets"][test]
    built_rows = {(r["uid"], r["premise"], r["hypothesis"]) for r in rows}
    summaries = sorted((ROOT / "reviews/swap" / test).glob("snli_dev*.json"))
    assert summaries
    summaries += sorted((ROOT / "reviews/blind/swap" / test).glob("snli_dev*.json"))  # blind and strict
    for path in summaries:
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert [s["sha256"] for s in summary["sets"]] == [sha256_file(out)], path.name
        judged = {(r["uid"], r["premise"], r["hypothesis"]) for r in read_csv(path.with_suffix(".csv"))}
        assert judged == built_rows if summary["census"] else judged <= built_rows, path.name
        # the summary is what its CSV says today (an edited CSV must be imported again); its
        # sets are checked above (here the file has another name)
        again = reimport(path, out, built["folder"] / f"again_{path.name}")
        assert {**again, "sets": None} == {**summary, "sets": None}, path.name


@pytest.mark.parametrize("test", TESTS)
def test_the_held_out_review_judges_the_bytes_that_build_today(built, test):
    """reviews/heldout/swap/<test>/snli_test judges the set that reviews/HISTORY.md's command builds from
    SNLI test (no swap filter was written from it); a filter change that moves its bytes makes
    that evidence stale, so it must come with the review judged again."""
    out = built["folder"] / f"heldout_{test}.parquet"
    build_set(test, SHARED_DATA / "snli/snli_1.0_test.jsonl", out, built["params"])
    path = ROOT / "reviews/heldout/swap" / test / "snli_test.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    assert [s["sha256"] for s in summary["sets"]] == [sha256_file(out)]
    rows = {(r["uid"], r["premise"], r["hypothesis"]) for r in pq.read_table(out).to_pylist()}
    judged = {(r["uid"], r["premise"], r["hypothesis"]) for r in read_csv(path.with_suffix(".csv"))}
    assert judged == rows if summary["census"] else judged <= rows
