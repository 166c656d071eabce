"""Artifact audits of real generated sets, and the card section that shows them."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from nlistress.cards import write_card
from nlistress.cli import main
from nlistress.config import deep_merge
from nlistress.hypothesis_only.audit import DROP_REORDERING, audit_set
from nlistress.hypothesis_only.bow import fold_of
from nlistress.hypothesis_only.labelled import DROP_NO_LABEL
from nlistress.perturb.runner import build_set

from .models_support import predict, tiny_params, train
from .support import ROOT, canonical_table, project_params, shared_override

PARAMS = ["--params", str(ROOT / "params.yaml")]


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """A negation stress set of SNLI dev and a permuted set of its first 300 examples."""
    folder = tmp_path_factory.mktemp("sets")
    params = project_params()
    snli = canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", folder)
    head = folder / "snli_dev_head.parquet"
    pq.write_table(pq.read_table(snli).slice(0, 300), head)
    negation = folder / "negation" / "snli_dev.parquet"
    build_set("negation", snli, negation, params)
    permuted = folder / "permute" / "snli_dev.parquet"
    permute_manifest = build_set("permute", head, permuted, params)
    return {"negation": negation, "permute": permuted, "permute_manifest": permute_manifest,
            "canonical": snli}  # fmt: skip


@pytest.fixture(scope="module")
def negation_audit(sets):
    out = sets["negation"].with_name("snli_dev.audit.json")
    assert main(["audit", "--set", str(sets["negation"]), "-o", str(out), *PARAMS]) == 0
    return json.loads(out.read_text(encoding="utf-8")), out


def test_negation_set_is_guessable_from_the_hypothesis(negation_audit, sets):
    audit, _ = negation_audit
    table = pd.read_parquet(sets["negation"])
    assert audit["rows"] == {"unit": "row", "input": 9842, "kept": 9842, "dropped": {}}
    shares = table["label"].value_counts(normalize=True)
    assert audit["majority"] == {"label": shares.idxmax(), "accuracy": round(shares.max(), 6)}
    hyp = audit["hypothesis_only"]
    # SNLI's hypotheses carry artifacts (Poliak et al. Table 2: 69.2 vs 33.8 on dev).
    assert hyp["accuracy"] > audit["majority"]["accuracy"] + 0.1
    assert hyp["gain_over_majority_pp"] == pytest.approx(
        100 * (hyp["accuracy"] - audit["majority"]["accuracy"]), abs=1e-3
    )
    # The appended "and false is not true" is in every hypothesis, so it is no give-away.
    top = {w["word"] for words in audit["giveaway"]["top"].values() for w in words}
    assert not top & {"false", "not", "true", "and"}
    contradiction = {w["word"].lower() for w in audit["giveaway"]["top"]["contradiction"]}
    assert len(contradiction & {"sleeping", "nobody", "cat", "asleep", "alone", "empty"}) >= 3


def test_permuted_set_audits_one_row_per_example(sets):
    audit = audit_set(sets["permute"], project_params())
    manifest = sets["permute_manifest"]
    examples = manifest["rows"]["kept"]
    assert audit["rows"]["input"] == manifest["output_rows"] == 100 * examples
    assert audit["rows"]["kept"] == examples
    assert audit["rows"]["dropped"] == {DROP_REORDERING: 99 * examples}
    assert sum(audit["labels"].values()) == examples


def test_unlabelled_rows_are_excluded_and_counted(sets, tmp_path):
    table = pq.read_table(sets["negation"])
    labels = table["label"].to_pylist()
    for i in range(0, len(labels), 7):
        labels[i] = None
    unlabelled = tmp_path / "needs_annotation.parquet"
    pq.write_table(table.set_column(table.column_names.index("label"), "label", pa.array(labels)), unlabelled)
    audit = audit_set(unlabelled, project_params())
    n_null = len(range(0, len(labels), 7))
    assert audit["rows"]["dropped"] == {DROP_NO_LABEL: n_null}
    assert audit["rows"]["kept"] == len(labels) - n_null


def test_single_label_set_has_no_hypothesis_only_accuracy(sets, tmp_path):
    table = pq.read_table(sets["negation"])
    one = tmp_path / "contradictions.parquet"
    pq.write_table(table.filter(pc.equal(table["label"], "contradiction")), one)
    audit = audit_set(one, project_params())
    assert audit["majority"]["accuracy"] == 1.0
    assert audit["hypothesis_only"]["accuracy"] is None


def test_audit_is_deterministic(negation_audit, sets, tmp_path):
    _, first = negation_audit
    again = tmp_path / "again.json"
    assert main(["audit", "--set", str(sets["negation"]), "-o", str(again), *PARAMS]) == 0
    assert again.read_bytes() == first.read_bytes()


def test_folds_keep_an_example_together(sets):
    table = pd.read_parquet(sets["permute"], columns=["source_uid"])
    folds = fold_of(table["source_uid"].to_numpy().astype(str), 5, 2018)
    per_example = pd.Series(folds).groupby(table["source_uid"]).nunique()
    assert (per_example == 1).all()
    assert set(np.unique(folds)) == set(range(5))


def test_card_shows_the_audit(negation_audit, sets, tmp_path):
    audit, path = negation_audit
    card = tmp_path / "card.md"
    write_card(sets["negation"], card, project_params(), audit_path=path)
    text = card.read_text(encoding="utf-8")
    assert "## Artifact audit" in text
    assert f"{audit['hypothesis_only']['accuracy']:.1%}" in text
    assert f"{audit['majority']['accuracy']:.1%}" in text
    assert "**Warning:**" in text  # beats majority by more than artifacts.audit.warn_margin
    without = tmp_path / "plain.md"
    write_card(sets["negation"], without, project_params())
    assert "## Artifact audit" not in without.read_text(encoding="utf-8")


def test_a_swap_set_awaiting_annotation_is_counted_not_audited(sets, tmp_path):
    """Experiment 4 (hypernym, ex situ) has no rule-derived labels: every row awaits review."""
    params = deep_merge(project_params(), shared_override())
    swap = tmp_path / "hypernym_ex_situ.parquet"
    build_set("hypernym_ex_situ", sets["canonical"], swap, params,
              overrides={"train_table": str(sets["canonical"])})  # fmt: skip
    record = audit_set(swap, params)
    rows = pq.read_metadata(swap).num_rows
    assert rows > 0
    assert record["rows"] == {"unit": "row", "input": rows, "kept": 0, "dropped": {DROP_NO_LABEL: rows}}
    assert record["majority"] is None and record["hypothesis_only"]["accuracy"] is None
    audit = tmp_path / "audit.json"
    audit.write_text(json.dumps(record), encoding="utf-8")
    card = tmp_path / "card.md"
    write_card(swap, card, params, audit_path=audit)
    assert "Nothing to audit yet: no row has a label yet" in card.read_text(encoding="utf-8")


def test_the_trained_hypothesis_only_model_joins_the_audit_and_the_card(sets, tmp_path):
    """infersent_hyp trained on SNLI dev, on negation sets of SNLI test (unseen) and of SNLI dev."""
    params = tiny_params()
    model = tmp_path / "model"
    train(params, "infersent_hyp", sets["canonical"], model)
    test = canonical_table(project_params(), "snli", "test", "snli/snli_1.0_test.jsonl", tmp_path)
    negation = tmp_path / "negation" / "snli_test.parquet"
    build_set("negation", test, negation, project_params())
    predictions = predict(model, negation, tmp_path / "negation_hyp.parquet")
    out = tmp_path / "audit.json"
    assert main(["audit", "--set", str(negation), "--model", str(model), "--predictions",
                 str(predictions), "-o", str(out), *PARAMS]) == 0  # fmt: skip
    record = json.loads(out.read_text(encoding="utf-8"))["hypothesis_only_model"]
    table = pd.read_parquet(negation)
    predicted = pd.read_parquet(predictions).set_index("uid")["prediction"].loc[table["uid"]]
    assert record["rows"] == len(table) == 9824
    assert record["accuracy"] == round(float((predicted.to_numpy() == table["label"]).mean()), 6)
    shares = table["label"].value_counts(normalize=True)
    assert record["majority"] == {"label": shares.idxmax(), "accuracy": round(shares.max(), 6)}
    assert record["model"] == "infersent_hyp" and record["train"] == str(sets["canonical"])
    card = tmp_path / "card.md"
    write_card(negation, card, project_params(), audit_path=out)
    assert (f"| hypothesis only, infersent_hyp trained on `{sets['canonical']}` | "
            f"{record['accuracy']:.1%}") in card.read_text(encoding="utf-8")  # fmt: skip

    # The negation set of SNLI dev comes from the model's own training split: no accuracy.
    seen = predict(model, sets["negation"], tmp_path / "dev_hyp.parquet")
    assert main(["audit", "--set", str(sets["negation"]), "--model", str(model), "--predictions",
                 str(seen), "-o", str(tmp_path / "seen.json"), *PARAMS]) == 0  # fmt: skip
    record = json.loads((tmp_path / "seen.json").read_text(encoding="utf-8"))["hypothesis_only_model"]
    assert record["accuracy"] is None
    assert record["why_not"].startswith("9,842 of the set's 9,842 source examples are in the model's")
    assert main(["audit", "--set", str(negation), "--model", str(model), "-o", str(out), *PARAMS]) == 2
