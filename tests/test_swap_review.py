"""Review of swap sets: reviewers label needs_annotation rows or mark rows incoherent (coherent: no).

Uses the hypernym in-situ set of the real SNLI dev file (Baroni et al. pairs),
whose I_TH rows mostly need a label.
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
import yaml

from nlistress.cards import write_card
from nlistress.errors import DataError
from nlistress.perturb import make_generator
from nlistress.perturb.runner import build_set
from nlistress.review import DROP_INCOHERENT, apply_review, import_review, sample_for_review
from nlistress.swap.generators import SwapPairs

from .support import ROOT, canonical_table, read_csv, write_csv
from .test_swap_sets import swap_params


@pytest.fixture(scope="module")
def hypernym_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("swap_review")
    dev = canonical_table(swap_params(folder), "snli", "dev", "snli/snli_1.0_dev.jsonl", folder)
    params = swap_params(dev)
    target = folder / "snli_dev.parquet"
    build_set("hypernym_in_situ", dev, target, params)
    return params, target


def test_unlabelled_rows_are_a_stratum_or_all_exported_first(hypernym_set, tmp_path):
    _, target = hypernym_set
    table = pq.read_table(target).to_pylist()
    pending = [r["uid"] for r in table if r["label_status"] == "needs_annotation"]
    sheet = tmp_path / "review.csv"
    # Default: needs_annotation rows are one stratum of the sample, in proportion.
    assert sample_for_review(target, sheet, 10, seed=1) == 10
    rows = read_csv(sheet)
    share = round(10 * len(pending) / len(table))
    assert abs(sum(r["label_status"] == "needs_annotation" for r in rows) - share) <= 1
    assert {"gold_label", "coherent", "label_status"} <= set(rows[0])
    # --all-pending: every row that needs a label first, then the sample of labelled rows.
    written = sample_for_review(target, sheet, 10, seed=1, all_pending=True)
    rows = read_csv(sheet)
    assert written == len(rows) == len(pending) + 10
    assert [r["uid"] for r in rows[: len(pending)]] == pending
    # A set no larger than the sample is taken whole.
    assert sample_for_review(target, sheet, 1000, seed=1) == len(table)


def test_labels_and_incoherent_marks_reach_the_set_and_its_manifest(hypernym_set, tmp_path):
    params, target = hypernym_set
    sheet, summary_path = tmp_path / "review.csv", tmp_path / "summary.json"
    sample_for_review(target, sheet, 4, seed=1, all_pending=True)
    rows = read_csv(sheet)
    pending = [r for r in rows if r["label_status"] == "needs_annotation"]
    pending[0] |= {"gold_label": "Neutral", "coherent": "yes", "grammatical": "yes"}
    pending[1] |= {"gold_label": "contradiction", "coherent": "yes", "grammatical": "no",
                   "comment": "an article is missing"}  # fmt: skip
    pending[2] |= {"coherent": "no", "grammatical": "yes", "comment": "makes no sense"}
    write_csv(sheet, rows)
    summary = import_review(sheet, target, summary_path)
    assert summary["reviewed"] == 3 and summary["label_judged"] == 0
    assert summary["label_correct_rate"] is None
    assert summary["grammatical_rate"] == pytest.approx(2 / 3)
    assert summary["coherent_rate"] == pytest.approx(2 / 3)
    assert summary["annotations"] == dict(
        sorted({pending[0]["uid"]: "neutral", pending[1]["uid"]: "contradiction"}.items())
    )
    assert summary["incoherent"] == [pending[2]["uid"]]
    assert summary["pending"] == len(pending) - 3
    assert {p["uid"]: p["comment"] for p in summary["problems"]} == {
        pending[1]["uid"]: "an article is missing", pending[2]["uid"]: "makes no sense"
    }
    out = tmp_path / "annotated.parquet"
    manifest = apply_review(target, summary_path, out)
    assert manifest["rows"]["dropped"] == {DROP_INCOHERENT: 1}
    result = {r["uid"]: r for r in pq.read_table(out).to_pylist()}
    assert pending[2]["uid"] not in result and len(result) == pq.read_metadata(target).num_rows - 1
    labelled = result[pending[0]["uid"]]
    control = json.loads(labelled["perturbation_params"])["control_label"]
    assert labelled["label_status"] == "annotated" and labelled["label"] == "neutral"
    assert labelled["gold_label_changed"] == (control != "neutral")
    assert result[pending[3]["uid"]]["label"] is None  # still pending: never guessed
    card = tmp_path / "card.md"
    write_card(target, card, params, summary_path)
    text = card.read_text(encoding="utf-8")
    # who gave the labels is not recorded: they are not published as expert-made
    assert "annotations_creators:\n- crowdsourced\n- machine-generated\nlanguage_creators" in text
    assert "Who judged the rows is not recorded (`nlistress import-review --annotators`)." in text
    for annotators, expert in (("language-model", False), ("human", True)):
        import_review(sheet, target, summary_path, annotators=annotators)
        write_card(target, card, params, summary_path)
        assert ("- expert-generated" in card.read_text(encoding="utf-8")) is expert, annotators
    assert "marked incoherent (discarded): 1" in text
    assert "coherent **66.7%**" in text and "an article is missing" in text
    # and what the held-out judgement of hypernym swaps found
    assert "all 7 rule labels right but only 16 of the 21 labels kept from SNLI" in text


def test_antonym_swap_cards_state_the_held_out_judgement(hypernym_set):
    params, _ = hypernym_set
    in_situ = make_generator("antonym_in_situ", params).card_notes({})
    ex_situ = make_generator("antonym_ex_situ", params).card_notes({})
    assert "98.0% of the 51 labelled right (rule labels 20 of 21" in in_situ
    assert "100% of the labels right, 86.0% grammatical" in ex_situ
    # every relation and context the schema allows has its held-out judgement
    schema = yaml.safe_load((ROOT / "workflow/nlistress/schemas/params.schema.yaml").read_text(encoding="utf-8"))
    test = schema["properties"]["swap"]["properties"]["tests"]["additionalProperties"]["properties"]
    allowed = {(r, c) for r in test["relation"]["enum"] for c in test["context"]["enum"]}
    assert allowed == set(SwapPairs.HELD_OUT)


def test_bad_annotations_are_named(hypernym_set, tmp_path):
    _, target = hypernym_set
    sheet = tmp_path / "review.csv"
    sample_for_review(target, sheet, 4, seed=1, all_pending=True)
    rows = read_csv(sheet)
    rows[0]["gold_label"] = "maybe"
    write_csv(sheet, rows)
    with pytest.raises(DataError, match="line 2.*gold_label"):
        import_review(sheet, target, tmp_path / "s.json")
    rows[0]["gold_label"] = ""
    gold = next(i for i, r in enumerate(rows) if r["label_status"] == "gold")
    rows[gold]["gold_label"] = "neutral"
    write_csv(sheet, rows)
    with pytest.raises(DataError, match="only for needs_annotation"):
        import_review(sheet, target, tmp_path / "s.json")
