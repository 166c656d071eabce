"""The registry in params.yaml is validated up front, with the key path in every error."""

from __future__ import annotations

import copy

import pytest

from nlistress.config import (
    DatasetSpec,
    DownloadSettings,
    DownloadSpec,
    PrepareSettings,
    canonical_targets,
    deep_merge,
)
from nlistress.errors import ConfigError

from .support import ROOT, project_params

REQUIRED_SPLITS = {
    "snli": {"train", "dev", "test"},
    "mnli": {"train", "dev_matched", "dev_mismatched"},
    "anli": {f"r{r}_{s}" for r in (1, 2, 3) for s in ("train", "dev", "test")},
    "ocnli": {"train", "dev", "test"},
    "aqua_rat": {"train", "dev", "test"},
}


def test_registry_covers_every_official_split():
    params = project_params()
    for name, splits in REQUIRED_SPLITS.items():
        spec = DatasetSpec.from_params(params, name)
        assert set(spec.splits) == splits
        for split in spec.splits.values():
            assert split.source.kind == "url"
            download = DownloadSpec.from_params(params, split.source.download)
            assert download.url.startswith("https://")
    assert len(canonical_targets(params)) == sum(len(s) for s in REQUIRED_SPLITS.values())


def test_archives_are_pinned():
    params = project_params()
    for name in ("snli_1.0", "multinli_1.0", "anli_v1.0"):
        assert DownloadSpec.from_params(params, name).sha256 is not None


def test_shared_override_switches_sources_to_local_files():
    params = project_params(ROOT / "tests" / "shared.yaml")
    spec = DatasetSpec.from_params(params, "ocnli")
    assert spec.split("dev").source.kind == "local"
    assert spec.split("dev").source.path == "../shared/data/ocnli/dev.json"
    assert spec.split("test").labelled is False  # merged, not replaced
    mnli = DatasetSpec.from_params(params, "mnli")
    assert mnli.split("train").source.kind == "url"  # untouched splits keep the official source
    assert ("snli", "train") not in canonical_targets(params)


def test_deep_merge_replaces_leaves_and_merges_dicts():
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert deep_merge(base, {"a": {"c": [3]}}) == {"a": {"b": 1, "c": [3]}, "d": 1}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda p: p["datasets"]["snli"]["splits"]["dev"]["source"].update(kind="ftp"),
            "datasets.snli.splits.dev.source.kind: expected one of url, hf, local, got 'ftp'",
        ),
        (
            lambda p: p["datasets"]["snli"]["splits"]["dev"]["source"].pop("member"),
            "datasets.snli.splits.dev.source.member: missing",
        ),
        (
            lambda p: p["datasets"]["anli"]["label_map"].update(e="entails"),
            "datasets.anli.label_map.e: maps to 'entails', which is not in labels",
        ),
        (
            lambda p: p["datasets"]["snli"].update(labels=["entailment"]),
            "datasets.snli.labels: expected two or more distinct labels",
        ),
        (
            lambda p: p["datasets"]["snli"]["columns"].update(premise=[]),
            "datasets.snli.columns.premise: at least one source field is required",
        ),
        (
            lambda p: p["datasets"]["snli"]["splits"]["dev"].update(labelled="no"),
            "datasets.snli.splits.dev.labelled: expected true or false",
        ),
    ],
)
def test_bad_dataset_entries_name_the_key(edit, message):
    params = copy.deepcopy(project_params())
    edit(params)
    with pytest.raises(ConfigError) as info:
        DatasetSpec.from_params(params, info_name(message))
    assert message in str(info.value)


def info_name(message: str) -> str:
    return message.split(".")[1]


def test_other_sections_are_validated():
    params = project_params()
    with pytest.raises(ConfigError, match="datasets.nope: unknown dataset"):
        DatasetSpec.from_params(params, "nope")
    with pytest.raises(ConfigError, match="unknown split"):
        DatasetSpec.from_params(params, "snli").split("validation")
    with pytest.raises(ConfigError, match="downloads.snli_1.0.sha256: expected 64 hex digits"):
        DownloadSpec.from_params(
            deep_merge(params, {"downloads": {"snli_1.0": {"sha256": "abc"}}}), "snli_1.0"
        )
    with pytest.raises(ConfigError, match="downloads.glove_840b.sha1: expected 40 hex digits"):
        DownloadSpec.from_params(deep_merge(params, {"downloads": {"glove_840b": {"sha1": "0" * 64}}}), "glove_840b")
    with pytest.raises(
        ConfigError, match="downloads.snli_1.0.url: expected an https/http/ftp/file URL"
    ):
        DownloadSpec.from_params(
            deep_merge(params, {"downloads": {"snli_1.0": {"url": "nlp.stanford.edu/x.zip"}}}),
            "snli_1.0",
        )
    with pytest.raises(ConfigError, match="prepare.empty_text"):
        PrepareSettings.from_params({"prepare": {"empty_text": "ignore"}})
    with pytest.raises(ConfigError, match=r"^download.retries: expected a value >= 0, got -1$"):
        DownloadSettings.from_params({"download": {"retries": -1}})
    with pytest.raises(ConfigError, match=r"^download.max_ratio: expected a value > 1, got 1$"):
        DownloadSettings.from_params({"download": {"max_ratio": 1}})
    with pytest.raises(ConfigError, match="canonical_splits.snli: expected a list"):
        canonical_targets(deep_merge(params, {"canonical_splits": {"snli": "dev"}}))
