"""The release folder: sets copied with cards and manifests, and a catalogue that describes them."""

from __future__ import annotations

import csv
import json
import shutil

import pyarrow.parquet as pq
import pytest

from nlistress.atomic import sha256_file
from nlistress.cards import write_card
from nlistress.cli import main
from nlistress.config import deep_merge
from nlistress.errors import DataError
from nlistress.perturb.runner import build_set
from nlistress.release import build_release

from .support import canonical_table, project_params, shared_override


@pytest.fixture(scope="module")
def params():
    return deep_merge(project_params(), shared_override())


@pytest.fixture(scope="module")
def sets(params, tmp_path_factory):
    """Two real sets from SNLI dev (a stress test and a permutation), each with its card."""
    work = tmp_path_factory.mktemp("sets")
    table = canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", work)
    paths = []
    for family, test, overrides in (("stress", "negation", {}), ("permute", "permute", {"q": 2})):
        path = work / family / test / "snli_dev.parquet"
        path.parent.mkdir(parents=True)
        build_set(test, table, path, params, overrides=overrides)
        write_card(path, path.with_name("snli_dev.card.md"), params)
        paths.append(path)
    return paths


def test_release_copies_sets_and_writes_the_catalogue(sets, params, tmp_path):
    out = tmp_path / "release"
    entries = build_release(sets, out, params)

    catalogue = json.loads((out / "catalogue.json").read_text(encoding="utf-8"))
    assert catalogue["count"] == 2
    assert [e["name"] for e in catalogue["sets"]] == ["permute/permute/snli_dev", "stress/negation/snli_dev"]
    for entry, source in zip(catalogue["sets"], sorted(sets, key=lambda p: p.parent.parent.name), strict=True):
        released = out / entry["path"]
        assert sha256_file(released) == sha256_file(source) == entry["sha256"]
        assert entry["rows"] == pq.ParquetFile(source).metadata.num_rows > 0
        assert entry["license"] == params["datasets"]["snli"]["license"]
        for suffix in (".manifest.json", ".card.md"):
            assert released.with_name(f"snli_dev{suffix}").read_bytes() == source.with_name(
                f"snli_dev{suffix}"
            ).read_bytes()
    assert "Naik" in catalogue["sets"][1]["paper"] and "Sinha" in catalogue["sets"][0]["paper"]
    with (out / "catalogue.csv").open(encoding="utf-8") as handle:
        assert [row["sha256"] for row in csv.DictReader(handle)] == [e.sha256 for e in entries]
    markdown = (out / "CATALOGUE.md").read_text(encoding="utf-8")
    assert all(f"`{e.name}`" in markdown for e in entries)

    # Same inputs, same release, byte for byte.
    again = tmp_path / "again"
    build_release(list(reversed(sets)), again, params)
    for path in out.rglob("*"):
        if path.is_file():
            assert path.read_bytes() == (again / path.relative_to(out)).read_bytes(), path


def test_a_set_that_differs_from_its_manifest_is_refused(sets, params, tmp_path):
    tampered = tmp_path / "stress" / "negation" / "snli_dev.parquet"
    shutil.copytree(sets[0].parent, tampered.parent)
    table = pq.read_table(tampered)
    pq.write_table(table.slice(1), tampered)
    with pytest.raises(DataError, match=r"snli_dev\.parquet.*differs from its manifest"):
        build_release([tampered], tmp_path / "release", params)
    assert not (tmp_path / "release").exists()


def test_a_set_without_its_card_is_refused_by_the_cli(sets, tmp_path, capsys):
    bare = tmp_path / "negation" / "snli_dev.parquet"
    shutil.copytree(sets[0].parent, bare.parent)
    bare.with_name("snli_dev.card.md").unlink()
    assert main(["release", str(bare), "-o", str(tmp_path / "release")]) == 2
    assert "snli_dev.card.md: missing" in capsys.readouterr().err
