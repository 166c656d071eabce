"""The Snakemake DAG: the full dry run plans every step, and a real run on the shared files is idempotent."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from nlistress.atomic import sha256_file

from .support import ROOT, copy_project, project_params, run_snakemake

pytestmark = pytest.mark.slow


def job_counts(output: str) -> dict[str, int]:
    table = output.split("Job stats:", 1)[1]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


def test_dry_run_of_the_whole_dag(tmp_path):
    """With the official sources, the default target plans every download and split."""
    copy_project(tmp_path)
    proc = run_snakemake(tmp_path, "-n")
    counts = job_counts(proc.stdout + proc.stderr)
    # SNLI, MNLI, ANLI archives; 3 OCNLI and 3 AQuA files; the spaCy model and WordNet;
    # Baroni's hypernym pairs (swaps); SciTail and SICK (give-away words, Table 2).
    assert counts["download"] == 14
    # 3 SNLI + 3 MNLI + 9 ANLI + 3 OCNLI + 3 AQuA splits, and SciTail's and SICK's 3 each.
    assert counts["canonical"] == 27
    assert counts["canonical_index"] == 5
    # Stress: 7 tests x 2 MNLI dev splits (antonymy_reviewed among them) + 4 for OCNLI + 3
    # AQuA-RAT numerical sets (21);
    # permutations: 5 variants for MNLI dev-matched + 2 for 7 other splits (19);
    # word-pair swaps: 4 experiments on SNLI train. Every set has an audit and a card.
    assert counts["test_set"] == counts["set_card"] == counts["set_audit"] == 44
    assert counts["augment_set"] == 2  # negation twins and permuted copies of MNLI train
    assert counts["minitree_stat"] == 1 and counts["minitree_scores"] == 7  # English splits
    assert counts["antonym_lexicon"] == 1  # the WordNet antonym list, read by both antonym sets
    # Hypothesis-only baselines: one model per artifacts.baselines dataset (SNLI, MNLI, SciTail,
    # SICK), run on its two evaluation splits and on each generated set of SNLI and MNLI
    # (14 stress, 11 permuted, 4 swap sets).
    assert counts["baseline_train"] == 4 and counts["baseline_predict"] == 8
    assert counts["set_hypothesis_only"] == 29
    assert counts["baselines"] == counts["report"] == 1
    # A hypothesis-only file asked for by name is set_hypothesis_only's alone: test_set's split
    # takes no dot, so "dev_matched.hyp_only" is no split it could claim (AmbiguousRuleException).
    target = "data/sets/stress/antonymy/mnli_dev_matched.hyp_only.parquet"
    shutil.copytree(ROOT / "reviews/stress/antonymy", tmp_path / "reviews/stress/antonymy", dirs_exist_ok=True)
    proc = run_snakemake(tmp_path, "-n", "-p", target, "data/sets/stress/antonymy/mnli_dev_matched.card.md")
    counts = job_counts(proc.stdout + proc.stderr)
    assert counts["set_hypothesis_only"] == counts["test_set"] == counts["set_card"] == 1
    # Both modes write that card: each reads the review of its own mode's build (the census of the
    # default set, the paper-mode sample), never the other's.
    # The default card also quotes the paper-mode build's review beside the paper's figure.
    review = "--review reviews/stress/antonymy/mnli_dev_matched"
    assert f"{review}.census.json --paper-{review[2:]}.paper.json " in proc.stdout + proc.stderr
    proc = run_snakemake(tmp_path, "-n", "-p", "data/sets/stress/antonymy/mnli_dev_matched.card.md",
                         "--configfile", "profiles/paper/params.yaml")  # fmt: skip
    assert f"{review}.paper.json " in proc.stdout + proc.stderr and "--paper-review" not in proc.stdout


def _report_cells(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# Every table file and figure the small profile writes (beyond sets, models and predictions).
TABLE_FILES = [
    *(f"results/unli/{name}" for name in (
        "table2.md", "table2.csv", "table2.tex", "table7.md", "table7.csv", "table7.tex",
        "omega_curve.png", "bleu_bins.png", "length_bins.png", "entropy.png", "minitree_bins.png",
    )),
    *(f"results/swap/{name}" for name in ("table1.md", "table1.csv", "table1.tex", "tests.tex")),
    *(f"results/baselines/table{n}.{ext}" for n in (2, 3) for ext in ("md", "csv", "tex")),
    "results/giveaway/snli_dev_test/coverage.png",
    *(f"results/scores/{run}.md" for run in ("cbow/plain", "bilstm/plain", "bilstm/negation", "esim/plain")),
    "results/REPORT.md", "results/report.csv",
    *(f"results/tables/{name}.{ext}" for name in (
        "naik2018/table3", "naik2018/table5", "sanchez2018/table1", "sinha2021/table2_A",
        "sinha2021/table7_used_examples", "poliak2018/table2_hyp_only") for ext in ("md", "csv", "tex")),
]  # fmt: skip


# The small profile's models that only add rows to Naik et al.'s and Sinha et al.'s tables. CI
# runs the profile without them (about 60 more jobs, several minutes on 2 cores): each is trained,
# run and reported in its own tests (tests/test_models.py, test_align.py, test_models_chinese.py).
_ROWS_ONLY = ("nb", "ch", "rc", "align", "bilstm_ocnli")


def test_small_profile_runs_the_whole_dag_then_a_rerun_is_a_no_op(tmp_path):
    """`snakemake --profile profiles/small`: every rule on the real files, every table, the report."""
    copy_project(tmp_path)
    profile = tmp_path / "profiles" / "small" / "params.yaml"
    small = yaml.safe_load(profile.read_text(encoding="utf-8"))
    assert all(small["models"]["runs"][name] for name in _ROWS_ONLY)
    small["models"]["runs"].update({name: [] for name in _ROWS_ONLY})
    profile.write_text(yaml.safe_dump(small, sort_keys=False), encoding="utf-8")
    run_snakemake(tmp_path, "--profile", "profiles/small", timeout=3600)
    canonical = tmp_path / "data" / "canonical"
    assert len(list(canonical.rglob("*.parquet"))) == 11
    expected = {
        "snli": 9842 + 9824,
        "mnli": 9815 + 1000,
        "anli": 3198,
        "ocnli": 2950 + 3000,
        "aqua_rat": 508,
    }
    for dataset, kept in expected.items():
        index = json.loads((canonical / dataset / "index.json").read_text(encoding="utf-8"))
        assert sum(s["rows"]["kept"] for s in index["splits"].values()) == kept
        for split in index["splits"].values():
            assert sha256_file(canonical / dataset / split["file"]) == split["sha256"]
    assert (tmp_path / "logs" / "canonical" / "snli" / "dev.log").read_text().strip()
    assert (tmp_path / "data/unli/minitree/permute/snli_dev.parquet").exists()
    missing = [name for name in TABLE_FILES if not (tmp_path / name).is_file()]
    assert not missing, missing

    # The report fills cells of all four papers with numbers of ours, and says why elsewhere.
    cells = _report_cells(tmp_path / "results" / "report.csv")
    filled = {(c["paper"], c["table"], c["row"], c["column"]) for c in cells if c["our_value"]}
    assert {
        ("naik2018", "table3", "BiLSTM", "Negation Mat"),
        ("naik2018", "table5", "NEGATION", "BiLSTM Mis"),
        ("sanchez2018", "table1", "1 I_A", "Whole sample ESIM"),
        ("sinha2021", "table2_A", "BiLSTM", "SNLI dev"),
        ("sinha2021", "table7_used_examples", "MNLI matched", "Used examples"),
        ("poliak2018", "table2_hyp_only", "SNLI TEST", "Hyp-Only"),
    } <= filled
    assert all(c["source_or_reason"] for c in cells)
    report = (tmp_path / "results" / "REPORT.md").read_text(encoding="utf-8")
    assert "- IS: infersent.plain is not trained in this run (models.runs)" in report
    assert "trained on 9,842 rows (train `data/canonical/snli/dev.parquet`" in report

    # Table 2: the hypothesis-only model trained on SNLI dev beats the majority class on SNLI test.
    table2 = {(r["dataset"], r["split"]): r for r in _report_cells(tmp_path / "results/baselines/table2.csv")}
    assert float(table2["snli", "test"]["hyp_only"]) > float(table2["snli", "test"]["majority"]) + 5
    # Set cards carry both hypothesis-only figures: the MNLI model (trained on dev-matched)
    # on a dev-mismatched set; on a dev-matched set it says the model saw the source examples.
    card = (tmp_path / "data/sets/stress/negation/mnli_dev_mismatched.card.md").read_text()
    assert re.search(r"\| hypothesis only, infersent_hyp trained on `data/canonical/mnli/dev_matched.parquet` \| \d", card)
    card = (tmp_path / "data/sets/stress/negation/mnli_dev_matched.card.md").read_text()
    assert "source examples are in the model's training split" in card

    files = sorted(
        p for p in [*(tmp_path / "data").rglob("*"), *(tmp_path / "results").rglob("*")]
        if p.is_file() and "raw" not in p.parts
    )  # fmt: skip
    before = {p: (sha256_file(p), p.stat().st_mtime_ns) for p in files}
    proc = run_snakemake(tmp_path, "--profile", "profiles/small")
    assert "Nothing to be done" in proc.stdout + proc.stderr
    after = {p: (sha256_file(p), p.stat().st_mtime_ns) for p in files}
    assert after == before


# Every run of params.yaml off, so a run trains only what the test names.
_NO_RUNS = {name: [] for name in project_params()["models"]["runs"]}


def _models_override(runs: dict, canonical: list[str], zoo: dict | None = None) -> dict:
    """A tiny models section: seconds-long CPU training on SNLI dev, evaluation on canonical splits only."""
    return {"models": {
        "train_split": "snli/dev", "dev_split": None, "threads": 2,
        "training": {"epochs": 1, "train_rows": 300, "embedding_dim": 8, "hidden_dim": 8, "mlp_dim": 8,
                     "max_length": 16},
        "zoo": zoo or {}, "runs": {**_NO_RUNS, **runs},
        "evaluate": {"canonical": canonical, "families": {"stress": [], "permute": [], "swap": []}},
    }}  # fmt: skip


def test_extending_the_run_rebuilds_only_the_new_jobs(tmp_path):
    """Adding a model to models.runs (and to the zoo), or a split to models.evaluate, plans only
    the new jobs: every job gets only the settings it reads, so no built model is retrained."""
    import yaml

    override = copy_project(tmp_path)
    first = tmp_path / "first.yaml"
    first.write_text(yaml.safe_dump(_models_override({"cbow": ["plain"]}, ["snli/test"])))
    run_snakemake(tmp_path, "--cores", "2", "models", "--configfile", str(override), str(first))
    assert (tmp_path / "results/scores/cbow/plain.json").is_file()

    # Fewer cores give the jobs fewer threads; that is no reason to rebuild anything.
    proc = run_snakemake(tmp_path, "--cores", "1", "-n", "models", "--configfile", str(override), str(first))
    assert "Nothing to be done" in proc.stdout + proc.stderr

    extended = tmp_path / "extended.yaml"
    extended.write_text(yaml.safe_dump(_models_override(
        {"cbow": ["plain"], "bilstm": ["plain"], "cbow_wide": ["plain"]}, ["snli/test", "snli/dev"],
        zoo={"cbow_wide": {"arch": "cbow", "embedding_dim": 12}},
    )))  # fmt: skip
    proc = run_snakemake(tmp_path, "--cores", "2", "-n", "-p", "models", "--configfile", str(override), str(extended))
    out = proc.stdout + proc.stderr
    counts = job_counts(out)
    # Two new models trained; predictions: 2 new models x 2 splits + cbow on the new split;
    # every run's score (the evaluated list grew). cbow is not retrained or re-run on SNLI test.
    assert counts.get("train") == 2 and counts.get("predict_canonical") == 5 and counts.get("score") == 3, counts
    planned = {o.strip() for line in re.findall(r"^\s+output: (.+)$", out, re.M) for o in line.split(",")}
    assert "data/models/cbow/plain" not in planned
    assert "data/predictions/cbow/plain/canonical/snli_test.parquet" not in planned
    assert "data/predictions/cbow/plain/canonical/snli_dev.parquet" in planned
