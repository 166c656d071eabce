"""Canonicalising the real dataset files in ../shared/data gives the documented counts.

These are the official formats as users download them (see ../shared/README.md);
the expected counts are the published split sizes, less the rows with no gold
label, which must show up in the manifest instead of vanishing.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from nlistress.canonical import AQUA_SCHEMA, NLI_SCHEMA, prepare
from nlistress.config import DatasetSpec, PrepareSettings
from nlistress.manifest import manifest_path

from .support import SHARED_DATA, project_params

# dataset, split, file under ../shared/data, rows read, rows kept, drops by reason
CASES = [
    ("snli", "dev", "snli/snli_1.0_dev.jsonl", 9842, 9842, {}),
    ("snli", "test", "snli/snli_1.0_test.jsonl", 9824, 9824, {}),
    ("mnli", "dev_matched", "mnli/multinli_1.0_dev_matched.jsonl", 9815, 9815, {}),
    ("mnli", "dev_mismatched", "mnli/multinli_1.0_dev_mismatched.sample1000.jsonl", 1000, 1000, {}),
    ("anli", "r1_dev", "anli/R1_dev.jsonl", 1000, 1000, {}),
    ("anli", "r2_dev", "anli/R2_dev.jsonl", 1000, 1000, {}),
    ("anli", "r3_dev", "anli/R3_dev.jsonl", 1198, 1198, {}),
    ("ocnli", "dev", "ocnli/dev.json", 3000, 2950, {"no gold label": 50}),
    ("ocnli", "test", "ocnli/test.json", 3000, 3000, {}),
    ("aqua_rat", "dev", "aqua_rat/dev.json", 254, 254, {}),
    ("aqua_rat", "test", "aqua_rat/test.json", 254, 254, {}),
]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """Canonicalise every shared file once for the module."""
    out = tmp_path_factory.mktemp("canonical")
    params = project_params()
    results = {}
    for dataset, split, rel, *_ in CASES:
        spec = DatasetSpec.from_params(params, dataset)
        target = out / dataset / f"{split}.parquet"
        manifest = prepare(
            spec, split, target, PrepareSettings.from_params(params), source_path=SHARED_DATA / rel
        )
        results[dataset, split] = (target, manifest)
    return results


@pytest.mark.parametrize(("dataset", "split", "rel", "n_in", "n_kept", "drops"), CASES)
def test_counts_and_manifest(prepared, dataset, split, rel, n_in, n_kept, drops):
    target, manifest = prepared[dataset, split]
    table = pd.read_parquet(target)
    assert len(table) == n_kept
    assert manifest["rows"] == {"unit": "row", "input": n_in, "kept": n_kept, "dropped": drops}
    assert manifest["rows"]["input"] == n_kept + sum(drops.values())
    on_disk = json.loads(manifest_path(target).read_text(encoding="utf-8"))
    assert on_disk == manifest
    assert on_disk["source"]["path"].endswith(rel)
    assert len(on_disk["source"]["sha256"]) == 64
    assert on_disk["params"]["dataset"]["table"] in ("nli", "aqua")


@pytest.mark.parametrize(("dataset", "split", "rel", "n_in", "n_kept", "drops"), CASES)
def test_schema_and_uids(prepared, dataset, split, rel, n_in, n_kept, drops):
    target, _ = prepared[dataset, split]
    table = pd.read_parquet(target)
    expected = AQUA_SCHEMA if dataset == "aqua_rat" else NLI_SCHEMA
    assert list(table.columns) == expected.names
    assert table["uid"].is_unique
    assert (table["uid"] == dataset + ":" + split + ":" + table["source_id"]).all()
    assert (table["dataset"] == dataset).all() and (table["split"] == split).all()


@pytest.mark.parametrize(
    ("dataset", "split"),
    [(d, s) for d, s, *_ in CASES if d != "aqua_rat" and (d, s) != ("ocnli", "test")],
)
def test_labelled_nli_splits_have_three_way_labels(prepared, dataset, split):
    table = pd.read_parquet(prepared[dataset, split][0])
    assert set(table["label"]) == {"entailment", "neutral", "contradiction"}
    ids = dict(zip(table["label"], table["label_id"], strict=False))
    assert ids == {"entailment": 0, "neutral": 1, "contradiction": 2}
    assert table["premise"].str.strip().str.len().gt(0).all()
    assert table["hypothesis"].str.strip().str.len().gt(0).all()


def test_ocnli_test_is_kept_unlabelled(prepared):
    table = pd.read_parquet(prepared["ocnli", "test"][0])
    assert table["label"].isna().all() and table["label_id"].isna().all()
    assert table["source_id"].tolist()[:3] == ["0", "1", "2"]


def test_source_ids_come_from_the_source_when_it_has_them(prepared):
    """ANLI rows keep their official uid; OCNLI its id and genre; SNLI copies without pairID get the line."""
    anli = pd.read_parquet(prepared["anli", "r1_dev"][0])
    assert anli["source_id"].iloc[0] == "bf628cf5-6948-4595-a6d0-daf99beb47b9"
    assert anli["label"].iloc[0] == "contradiction"  # official label "c"
    ocnli = pd.read_parquet(prepared["ocnli", "dev"][0])
    assert ocnli["genre"].notna().all()
    assert set(ocnli["genre"]) >= {"lit", "gov"}
    snli = pd.read_parquet(prepared["snli", "dev"][0])
    assert snli["source_id"].iloc[:3].tolist() == ["1", "2", "3"]


def test_aqua_keeps_options_and_resolves_the_answer(prepared):
    table = pd.read_parquet(prepared["aqua_rat", "dev"][0])
    first = table.iloc[0]
    assert list(first["options"]) == ["A)32400", "B)6000", "C)600", "D)60000", "E)10"]
    assert first["correct"] == "A" and first["answer"] == "32400"
    assert table["answer"].notna().all()
    assert table["correct"].isin(list("ABCDE")).all()


def test_progress_is_logged_on_large_splits(tmp_path, caplog, monkeypatch):
    """Train splits take seconds; the log says how far the read has got."""
    import logging

    from nlistress import progress

    monkeypatch.setattr(progress, "PROGRESS_SECONDS", 0.0)  # a line per row read
    params = project_params()
    spec = DatasetSpec.from_params(params, "snli")
    with caplog.at_level(logging.INFO, logger="nlistress.readers"):
        prepare(
            spec,
            "dev",
            tmp_path / "d.parquet",
            PrepareSettings(),
            source_path=SHARED_DATA / "snli" / "snli_1.0_dev.jsonl",
        )
    lines = [r.getMessage() for r in caplog.records if "rows read" in r.getMessage()]
    assert len(lines) == 9842  # one per row; the last row's line is the closing line, not said twice
    assert re.fullmatch(r".*snli_1\.0_dev\.jsonl: 4,000 rows read \([\d,]+/s\)", lines[3999])
