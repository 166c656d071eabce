"""The Snakemake DAG: the full dry run plans every step, and a real run on the shared files is idempotent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from nlistress.atomic import sha256_file

from .support import copy_project, project_params, run_snakemake

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
    # Baroni's hypernym pairs (swaps); SciTail and 3 SICK files (give-away words, Table 2).
    assert counts["download"] == 16
    # 3 SNLI + 3 MNLI + 9 ANLI + 3 OCNLI + 3 AQuA splits, and SciTail's and SICK's 3 each.
    assert counts["canonical"] == 27
    assert counts["canonical_index"] == 5
    # Stress: 6 tests x 2 MNLI dev splits + 4 for OCNLI + 3 AQuA-RAT numerical sets (19);
    # permutations: 5 variants for MNLI dev-matched + 2 for 7 other splits (19);
    # word-pair swaps: 4 experiments on SNLI train. Every set has an audit and a card.
    assert counts["test_set"] == counts["set_card"] == counts["set_audit"] == 42
    assert counts["augment_set"] == 2  # negation twins and permuted copies of MNLI train
    assert counts["minitree_stat"] == 1 and counts["minitree_scores"] == 7  # English splits


def small_permutations(folder: Path) -> Path:
    """An override keeping the run small: q = 3 and three permuted sets; one tiny model."""
    params = project_params()
    sets = {key: [] for key in params["permute"]["sets"]}
    sets |= {"snli/dev": ["permute", "permute_hypothesis"], "mnli/dev_matched": ["permute_clump50"]}
    override = {
        "permute": {
            "sets": sets,
            "tests": {name: {"q": 3} for name in params["permute"]["tests"]},
        },
        "models": {
            "runs": {name: [] for name in params["models"]["runs"]} | {"cbow": ["plain"]},
            "training": {"epochs": 1, "embedding_dim": 16, "mlp_dim": 16},
        },
    }
    path = folder / "small.yaml"
    path.write_text(yaml.safe_dump(override), encoding="utf-8")
    return path


def test_shared_run_then_rerun_is_a_no_op(tmp_path):
    override = copy_project(tmp_path)
    small = small_permutations(tmp_path)
    run_snakemake(tmp_path, "--cores", "2", "--configfile", str(override), str(small))
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

    sets = sorted(
        p.relative_to(tmp_path).as_posix() for p in (tmp_path / "data" / "sets").rglob("*.parquet")
    )
    assert "data/sets/permute/permute_clump50/mnli_dev_matched.parquet" in sets
    assert (
        len([s for s in sets if s.startswith("data/sets/stress/")]) == 18
    )  # no AQuA train offline
    assert (tmp_path / "data/unli/minitree/permute/snli_dev.parquet").exists()
    files = sorted(
        p for p in (tmp_path / "data").rglob("*") if p.is_file() and "raw" not in p.parts
    )
    before = {p: (sha256_file(p), p.stat().st_mtime_ns) for p in files}

    proc = run_snakemake(tmp_path, "--cores", "2", "--configfile", str(override), str(small))
    assert "Nothing to be done" in proc.stdout + proc.stderr
    after = {p: (sha256_file(p), p.stat().st_mtime_ns) for p in files}
    assert after == before
