"""`nlistress stats` (word-pair swap statistics, Sanchez et al. 2018).

Two parts. The tests themselves are checked against statsmodels and scipy on
fixed tables (the paper's own Tables 2-4 among them), including tables that
trigger Yates' correction and Fisher's exact test and a family where the
Bonferroni correction turns a rejection into a non-rejection. Then a real
example end to end: control rows (I_H) are the real SNLI dev examples whose
premise and hypothesis hold a hyponym/hypernym pair of the real Baroni et al.
(2012) lexicon, the transformed rows (I_TH) swap the pair, polarity and
unseen come from SNLI test standing in for the training split (train is not
available offline), and the "models" are deterministic rules; every count in
the outputs is checked against the sets and the rules.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from scipy.stats import chi2_contingency, fisher_exact
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

from nlistress.cli import main
from nlistress.config import deep_merge
from nlistress.errors import ConfigError, DataError
from nlistress.swap.schema import EXPERIMENTS as SCHEMA_EXPERIMENTS
from nlistress.swap.schema import SWAP_SCHEMA
from nlistress.swap_statistics.analysis import Run, analyse
from nlistress.swap_statistics.hypothesis_tests import (
    StatsSettings,
    TestResult,
    chi_square,
    correct,
    mcnemar,
)
from nlistress.swap_statistics.samples import EXPERIMENTS, read_samples
from nlistress.swap_statistics.tables import SUBSET_TITLES

from .support import SHARED_DATA, canonical_table, project_params, shared_override

SETTINGS = StatsSettings.from_mapping(project_params()["swap"]["stats"])

# The paper's published contingency tables (ESIM Table 2, DAM Tables 3 and 4).
TABLE2 = np.array([[155, 31], [8, 100]])
TABLE3 = np.array([[567, 20], [13, 20]])
TABLE4 = np.array([[5, 21, 0], [5, 543, 3], [0, 3, 0], [8, 20, 12]])


# ---------------------------------------------------------------------------
# The tests against statsmodels / scipy on fixed tables
# ---------------------------------------------------------------------------


def test_params_section_is_the_paper_setup() -> None:
    assert SETTINGS.alpha == 0.0001 and SETTINGS.correction == "bonferroni"
    assert set(EXPERIMENTS) == set(SCHEMA_EXPERIMENTS)


@pytest.mark.parametrize("table", [[[40, 30], [12, 60]], [[10, 14], [14, 3]], [[5, 60], [2, 9]]])
@pytest.mark.parametrize("continuity", [True, False])
def test_mcnemar_chi_square_matches_statsmodels(table, continuity) -> None:
    settings = StatsSettings(mcnemar_continuity=continuity)
    result = mcnemar(np.array(table), settings)
    reference = sm_mcnemar(table, exact=False, correction=continuity)
    assert result.variant == "mcnemar_chi2" and result.dof == 1
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)


@pytest.mark.parametrize("table", [[[20, 8], [2, 30]], [[3, 0], [0, 4]], [[1, 12], [11, 0]]])
def test_mcnemar_exact_when_few_discordant_pairs(table) -> None:
    result = mcnemar(np.array(table), SETTINGS)
    reference = sm_mcnemar(table, exact=True)
    assert table[0][1] + table[1][0] < SETTINGS.mcnemar_exact_below
    assert result.variant == "mcnemar_exact" and "exact binomial" in result.why
    assert result.statistic == reference.statistic
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)


def test_pearson_chi_square_on_large_2x2_matches_scipy() -> None:
    result = chi_square(TABLE2, SETTINGS, ("change", "no change"), ("correct", "incorrect"))
    reference = chi2_contingency(TABLE2, correction=False)
    assert result.variant == "chi2" and result.dof == 1
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)


def test_yates_correction_when_an_expected_count_is_below_5() -> None:
    # DAM's seen/unseen table: the expected count of (incorrect, unseen) is 33 x 40 / 620 = 2.13.
    assert chi2_contingency(TABLE3).expected_freq.min() < 5
    result = chi_square(TABLE3, SETTINGS, ("correct", "incorrect"), ("seen", "unseen"))
    reference = chi2_contingency(TABLE3, correction=True)
    assert result.variant == "chi2_yates" and "Yates" in result.why
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    uncorrected = chi2_contingency(TABLE3, correction=False).statistic
    assert result.statistic < uncorrected


def test_fisher_exact_below_one_expected_or_by_rule() -> None:
    tiny = np.array([[9, 0], [1, 2]])  # smallest expected count 2 x 3 / 12 = 0.5
    result = chi_square(tiny, SETTINGS, ("a", "b"), ("x", "y"))
    odds, p = fisher_exact(tiny)
    assert result.variant == "fisher_exact" and result.dof is None
    assert result.p_value == pytest.approx(p, rel=1e-12)
    assert result.statistic is None and not np.isfinite(odds)  # odds ratio infinite: not recorded
    # small_2x2: fisher sends a table with expected counts in [1, 5) to Fisher as well.
    by_rule = chi_square(TABLE3, StatsSettings(small_2x2="fisher"), ("c", "i"), ("s", "u"))
    odds, p = fisher_exact(TABLE3)
    assert by_rule.variant == "fisher_exact" and "small_2x2 is fisher" in by_rule.why
    assert (by_rule.statistic, by_rule.p_value) == (pytest.approx(odds), pytest.approx(p))


def test_larger_table_pearson_and_empty_rows_or_columns_dropped() -> None:
    rows, columns = ("neutral", "contradiction", "entailment", "none"), ("n", "c", "e")
    result = chi_square(TABLE4, SETTINGS, rows, columns)
    reference = chi2_contingency(TABLE4)
    assert result.variant == "chi2" and result.dof == 6 == reference.dof
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    assert "cells below 5" in result.why  # no exact test for a 4x3 table; said so
    padded = np.vstack([TABLE4[:2], [[0, 0, 0]], TABLE4[2:]])
    padded = np.hstack([padded, np.zeros((5, 1), dtype=int)])
    dropped = chi_square(padded, SETTINGS, (*rows[:2], "joint", *rows[2:]), (*columns, "x"))
    assert (dropped.dropped_rows, dropped.dropped_columns) == (("joint",), ("x",))
    assert (dropped.statistic, dropped.dof) == (result.statistic, result.dof)
    single = chi_square(np.array([[3, 4], [0, 0]]), SETTINGS, ("a", "b"), ("x", "y"))
    assert single.variant == "not_applicable" and single.p_value is None


def test_bonferroni_matches_statsmodels_and_can_change_the_verdict() -> None:
    p_values = [5e-5, 0.02, 1e-9, 0.6]  # 5e-5 < alpha alone, 2e-4 after x4
    family = [TestResult("chi2", "", 1.0, 1, p) for p in p_values]
    family.append(TestResult("not_applicable", "", None, None, None))  # not in the family
    results = correct(family, SETTINGS)
    reject, corrected, _, _ = multipletests(p_values, alpha=SETTINGS.alpha, method="bonferroni")
    assert [r.p_corrected for r in results[:4]] == pytest.approx(list(corrected))
    assert [r.verdict for r in results[:4]] == ["not reject", "not reject", "reject", "not reject"]
    assert list(reject) == [False, False, True, False]
    assert all(r.family_size == 4 for r in results[:4]) and results[4].verdict == "n/a"
    uncorrected = correct(family, StatsSettings(correction="none"))
    assert uncorrected[0].verdict == "reject" and uncorrected[0].p_corrected == 5e-5


@pytest.mark.parametrize(
    ("section", "key"),
    [({"alpha": 2}, "swap.stats.alpha"), ({"chi2": {"small_2x2": "exact"}}, "swap.stats.chi2.small_2x2"),
     ({"mcnemar": {"continuity": "yes"}}, "swap.stats.mcnemar.continuity"), ({"alfa": 0.1}, "alfa")],
)  # fmt: skip
def test_bad_settings_name_the_key(section, key) -> None:
    with pytest.raises(ConfigError, match=re.escape(key)):
        StatsSettings.from_mapping(section)


# ---------------------------------------------------------------------------
# A real example end to end: SNLI dev pairs of the Baroni et al. lexicon
# ---------------------------------------------------------------------------

NEGATION = {"no", "not", "nobody", "never", "nothing", "n't", "none"}


def rule_model(premise: str, hypothesis: str) -> str:
    """Contradiction iff the hypothesis has a negation word, else entailment on high overlap."""
    p, h = set(premise.lower().split()), set(hypothesis.lower().split())
    if h & NEGATION:
        return "contradiction"
    return "entailment" if len(p & h) / len(h) >= 0.5 else "neutral"


def hash_model(premise: str, hypothesis: str) -> str:
    """A deterministic stand-in for a model that reads word order: any edit may change it."""
    digest = hashlib.sha256(f"{premise}\t{hypothesis}".encode()).digest()
    return ("entailment", "neutral", "contradiction")[digest[0] % 3]


def _swap(text: str, a: str, b: str) -> str:
    return " ".join(b if t.lower() == a else a if t.lower() == b else t for t in text.split(" "))


def _polarity(counts: Counter) -> str:
    if not counts:
        return "none"
    top = max(counts.values())
    return "-".join(label for label in ("entailment", "neutral", "contradiction") if counts[label] == top)


def build_sets(dev: Path, test: Path, folder: Path) -> tuple[Path, Path]:
    """I_H: dev rows with (hyponym, hypernym) on either side; I_TH: the pair swapped.

    Transformed labels follow a rule where one holds (an entailment with the
    hyponym in the premise becomes neutral once the hypernym is there, a
    contradiction stays one); the rest need annotation (null label), so the
    exclusion path is exercised on real rows.
    """
    lexicon = set()
    with open(SHARED_DATA / "lexicons" / "baroni2012.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["label"] == "True":
                lexicon.add((row["word1"], row["word2"]))
    words = {w for pair in lexicon for w in pair}
    train: dict[tuple[str, str], Counter] = {}
    for r in pq.read_table(test).to_pylist():  # SNLI test stands in for the training split
        p, h = set(r["premise"].lower().split()) & words, set(r["hypothesis"].lower().split()) & words
        for a in p:
            for b in h:
                if (a, b) in lexicon or (b, a) in lexicon:
                    train.setdefault((a, b), Counter())[r["label"]] += 1
    control, transformed = [], []
    for r in pq.read_table(dev).to_pylist():
        p, h = set(r["premise"].lower().split()), set(r["hypothesis"].lower().split())
        found = sorted((a, b) for a in p & words for b in h & words
                       if ((a, b) in lexicon or (b, a) in lexicon) and a not in h and b not in p)  # fmt: skip
        if not found:
            continue
        w1, w2 = found[0]
        relation = "hyponym" if (w1, w2) in lexicon else "hypernym"
        pair_id = f"{r['uid']}:{w1}:{w2}"
        base = {k: r[k] for k in ("dataset", "split", "genre")} | {"pair_id": pair_id, "w1": w1, "w2": w2,
                                                                   "relation": relation}  # fmt: skip
        control.append(base | {
            "uid": f"{pair_id}:I_H", "premise": r["premise"], "hypothesis": r["hypothesis"],
            "label": r["label"], "label_id": r["label_id"], "source_uid": r["uid"],
            "perturbation": "swap_control", "perturbation_params": "{}", "experiment": "I_H",
            "label_status": "gold", "gold_label_changed": None,
            "polarity": _polarity(train.get((w1, w2), Counter())), "unseen": (w1, w2) not in train,
        })  # fmt: skip
        if r["label"] == "contradiction" or (r["label"] == "entailment" and relation == "hyponym"):
            label = "contradiction" if r["label"] == "contradiction" else "neutral"
            status = "rule"
        else:
            label, status = None, "needs_annotation"
        transformed.append(base | {
            "uid": f"{pair_id}:I_TH", "premise": _swap(r["premise"], w1, w2),
            "hypothesis": _swap(r["hypothesis"], w1, w2), "label": label,
            "label_id": None if label is None else ("entailment", "neutral", "contradiction").index(label),
            "source_uid": r["uid"], "perturbation": "swap", "perturbation_params": "{}",
            "experiment": "I_TH", "label_status": status,
            "gold_label_changed": None if label is None else label != r["label"],
            "polarity": _polarity(train.get((w2, w1), Counter())), "unseen": (w2, w1) not in train,
        })  # fmt: skip
    paths = []
    for name, rows in (("I_H", control), ("I_TH", transformed)):
        path = folder / f"{name}.parquet"
        pq.write_table(pa.Table.from_pylist(rows, schema=SWAP_SCHEMA), path)
        paths.append(path)
    return paths[0], paths[1]


def write_predictions(set_path: Path, model, path: Path) -> None:
    rows = pq.read_table(set_path, columns=["uid", "premise", "hypothesis"]).to_pylist()
    pq.write_table(pa.table({"uid": [r["uid"] for r in rows],
                             "prediction": [model(r["premise"], r["hypothesis"]) for r in rows]}), path)  # fmt: skip


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    params = deep_merge(project_params(), shared_override())
    root = tmp_path_factory.mktemp("swapstats")
    dev = canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", root)
    test = canonical_table(params, "snli", "test", "snli/snli_1.0_test.jsonl", root)
    control, transformed = build_sets(dev, test, root)
    for name, model in (("rule", rule_model), ("hash", hash_model)):
        write_predictions(control, model, root / f"{name}_I_H.parquet")
        write_predictions(transformed, model, root / f"{name}_I_TH.parquet")
    config = root / "params.yaml"
    config.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    return root, config, control, transformed


def nlistress(*args, capsys, ok: bool = True) -> tuple[int, str]:
    """Run the command in-process (the same `main` as the console script); (exit status, stderr)."""
    capsys.readouterr()
    status = main(["-q", *map(str, args)])
    stderr = capsys.readouterr().err
    assert (status == 0) == ok, stderr
    return status, stderr


def _run(root: Path, model: str, control: Path, transformed: Path) -> Run:
    return Run(model, control, transformed, root / f"{model}_I_H.parquet", root / f"{model}_I_TH.parquet")


def test_real_sets_follow_the_contract(workspace) -> None:
    _, _, control, transformed = workspace
    c, t = pq.read_table(control), pq.read_table(transformed)
    assert c.schema.equals(SWAP_SCHEMA) and t.schema.equals(SWAP_SCHEMA)
    assert c.num_rows == t.num_rows > 50  # SNLI dev examples with a pair on opposite sides only
    assert 0 < t["label"].null_count < t.num_rows
    assert set(c["pair_id"].to_pylist()) == set(t["pair_id"].to_pylist())


def test_counts_add_up_to_the_sets(workspace) -> None:
    root, _, control, transformed = workspace
    analysis = analyse([_run(root, "rule", control, transformed)], SETTINGS)
    c_rows, t_rows = pq.read_table(control).to_pylist(), pq.read_table(transformed).to_pylist()
    preds = {r["uid"]: r["prediction"] for name in ("I_H", "I_TH")
             for r in pq.read_table(root / f"rule_{name}.parquet").to_pylist()}  # fmt: skip
    labelled = [r for r in t_rows if r["label"] is not None]
    samples = {s.experiment: s for s in analysis.samples}
    assert samples["I_TH"].counts.as_dict() == {
        "unit": "row", "input": len(t_rows), "kept": len(labelled),
        "dropped": {"no gold label (needs annotation)": len(t_rows) - len(labelled)},
    }  # fmt: skip
    # Table 1 accuracies recomputed from the rows and the rule's predictions.
    def acc(rows):
        return len(rows), sum(preds[r["uid"]] == r["label"] for r in rows)
    assert samples["I_H"].accuracy["whole"] == acc(c_rows)
    assert samples["I_TH"].accuracy["whole"] == acc(labelled)
    assert samples["I_TH"].accuracy["subset1"] == acc([r for r in labelled if r["gold_label_changed"]])
    assert samples["I_TH"].accuracy["subset2"] == acc([r for r in labelled if r["unseen"]])
    assert samples["I_TH"].accuracy["subset3"] == acc(
        [r for r in labelled if r["label"] not in r["polarity"].split("-")])
    assert samples["I_H"].accuracy["subset1"] == (0, 0)  # subsets 1-2: transformed rows only

    tests = {(t.experiment, t.factor): t for t in analysis.tests}
    assert set(tests) == {("I_H", "polarity"), ("I_TH", "mcnemar"), ("I_TH", "insensitivity"),
                          ("I_TH", "unseen"), ("I_TH", "polarity")}  # fmt: skip
    for key, expected in (
        (("I_TH", "mcnemar"), len(t_rows)), (("I_TH", "insensitivity"), len(t_rows)),
        (("I_TH", "unseen"), len(t_rows)), (("I_TH", "polarity"), len(t_rows)),
        (("I_H", "polarity"), len(c_rows)),
    ):  # fmt: skip
        table = tests[key].table
        assert table.n + sum(table.excluded.values()) == expected, key
    mc = tests["I_TH", "mcnemar"].table.counts
    control_correct = sum(preds[r["uid"]] == r["label"] for r in c_rows
                          if r["pair_id"] in {t["pair_id"] for t in labelled})  # fmt: skip
    assert mc[0].sum() == control_correct and mc[:, 0].sum() == acc(labelled)[1]
    assert tests["I_TH", "insensitivity"].table.n == samples["I_TH"].accuracy["subset1"][0]
    # Bonferroni over the model's applicable tests.
    ran = [t.result for t in analysis.tests if t.result.applicable]
    for r in ran:
        assert r.family_size == len(ran)
        assert r.p_corrected == pytest.approx(min(1.0, r.p_value * len(ran)))
        assert r.verdict == ("reject" if r.p_corrected < SETTINGS.alpha else "not reject")


def test_cli_writes_table1_tests_and_contingency_tables(workspace, capsys) -> None:
    root, config, control, transformed = workspace
    runs = root / "runs.yaml"
    runs.write_text(yaml.safe_dump([
        {"model": m, "control": str(control), "transformed": str(transformed),
         "predictions_control": str(root / f"{m}_I_H.parquet"),
         "predictions_transformed": str(root / f"{m}_I_TH.parquet")} for m in ("rule", "hash")
    ]), encoding="utf-8")  # fmt: skip
    out = root / "out"
    nlistress("stats", "--runs", runs, "-o", out, "--params", config, capsys=capsys)
    table1 = (out / "table1.md").read_text(encoding="utf-8")
    assert all(SUBSET_TITLES[s] in table1 for s in SUBSET_TITLES)
    with open(out / "table1.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["sample"] for r in rows] == ["I_H", "I_TH"] and {r["exp"] for r in rows} == {"3"}
    assert {f"{s}_{m}" for s in SUBSET_TITLES for m in ("rule", "hash")} <= set(rows[0])
    assert rows[0]["subset1_rule"] == "" and rows[1]["subset1_rule"] != ""
    tex = (out / "table1.tex").read_text(encoding="utf-8")
    assert r"\multicolumn{2}{c}{Subset 3: polarity $\neq$ gold label}" in tex and r"\mathit{TH}" in tex
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    assert stats["models"] == ["rule", "hash"] and len(stats["tests"]) == 10
    insensitivity = {t["model"]: t for t in stats["tests"] if t["factor"] == "insensitivity"}
    # The rule reads word sets only, and the swap keeps them: its prediction never changes.
    assert insensitivity["rule"]["table"]["counts"][0] == [0, 0]
    assert insensitivity["rule"]["variant"] == "not_applicable"
    assert insensitivity["hash"]["variant"] != "not_applicable"
    for test in stats["tests"]:
        assert test["why"]
        if test["variant"] == "not_applicable":
            assert test["verdict"] == "n/a" and test["p_value"] is None
        else:
            assert test["verdict"] == ("reject" if test["p_corrected"] < 0.0001 else "not reject")
        csv_path = out / "contingency" / test["model"] / f"{test['experiment']}_{test['factor']}.csv"
        with open(csv_path, encoding="utf-8") as fh:
            body = list(csv.reader(fh))
        assert [[int(v) for v in row[1:]] for row in body[1:]] == test["table"]["counts"]
    with open(out / "tests.csv", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == 10
    # Single-run options give the same numbers for one model; reruns give the same bytes.
    single = root / "single"
    args = ["--control", control, "--transformed", transformed, "--model", "rule",
            "--predictions-control", root / "rule_I_H.parquet",
            "--predictions-transformed", root / "rule_I_TH.parquet", "--params", config]  # fmt: skip
    nlistress("stats", *args, "-o", single, capsys=capsys)
    first = {p.name: p.read_bytes() for p in single.rglob("*") if p.is_file()}
    nlistress("stats", *args, "-o", single, capsys=capsys)
    assert first == {p.name: p.read_bytes() for p in single.rglob("*") if p.is_file()}
    one = json.loads((single / "stats.json").read_text(encoding="utf-8"))["samples"]
    assert one == [s for s in stats["samples"] if s["model"] == "rule"]


def test_missing_prediction_is_named(workspace, capsys) -> None:
    root, config, control, transformed = workspace
    table = pq.read_table(root / "rule_I_TH.parquet")
    short = root / "short.parquet"
    pq.write_table(table.slice(1), short)
    first = table["uid"][0].as_py()
    status, stderr = nlistress("stats", "--control", control, "--transformed", transformed, "--model", "rule",
                     "--predictions-control", root / "rule_I_H.parquet",
                     "--predictions-transformed", short, "-o", root / "bad", "--params", config,
                     capsys=capsys, ok=False)  # fmt: skip
    assert status == 2 and len(stderr.strip().splitlines()) == 1
    assert str(short) in stderr and repr(first) in stderr and "1 of" in stderr
    _, swapped = nlistress("stats", "--control", transformed, "--transformed", control, "--model", "rule",
                        "--predictions-control", root / "rule_I_TH.parquet",
                        "--predictions-transformed", root / "rule_I_H.parquet",
                        "-o", root / "bad", "--params", config, capsys=capsys, ok=False)  # fmt: skip
    assert f"{transformed}: no control rows (experiment I_A, E_A, I_H, E_H)" in swapped
    assert not (root / "bad").exists()



@pytest.mark.parametrize(
    ("column", "value", "message"),
    [("polarity", "maybe", "polarity 'maybe' is neither a label"),
     ("experiment", "I_X", "unknown experiment 'I_X'"), ("label", "yes", "unknown label 'yes'")],
)  # fmt: skip
def test_bad_set_rows_are_named(workspace, tmp_path, column, value, message) -> None:
    root, _, control, _ = workspace
    table = pq.read_table(control)
    values = table[column].to_pylist()
    values[3] = value
    bad = tmp_path / "bad.parquet"
    pq.write_table(table.set_column(table.schema.get_field_index(column), column,
                                    pa.array(values, pa.string())), bad)  # fmt: skip
    with pytest.raises(DataError, match=re.escape(f"{bad}, row 3: {message}")):
        read_samples(bad, root / "rule_I_H.parquet")


def test_one_file_with_control_and_transformed_rows(workspace, tmp_path) -> None:
    """The sets' own layout: one file per experiment holding its control and transformed rows."""
    root, _, control, transformed = workspace
    both = tmp_path / "both.parquet"
    pq.write_table(pa.concat_tables([pq.read_table(control), pq.read_table(transformed)]), both)
    predictions = tmp_path / "both_predictions.parquet"
    pq.write_table(pa.concat_tables([pq.read_table(root / f"rule_{n}.parquet") for n in ("I_H", "I_TH")]),
                   predictions)  # fmt: skip
    combined = analyse([Run.from_mapping({"model": "rule", "control": both,
                                          "predictions_control": predictions}, "run")], SETTINGS)  # fmt: skip
    separate = analyse([_run(root, "rule", control, transformed)], SETTINGS)
    assert [s.accuracy for s in combined.samples] == [s.accuracy for s in separate.samples]
    assert [(t.table.counts.tolist(), t.result) for t in combined.tests] == [
        (t.table.counts.tolist(), t.result) for t in separate.tests]
