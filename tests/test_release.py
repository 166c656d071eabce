"""The release folder: sets copied with cards and manifests, and a catalogue that describes them."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
import yaml

from nlistress.atomic import sha256_file
from nlistress.cards import write_card
from nlistress.cli import main
from nlistress.config import deep_merge
from nlistress.errors import DataError
from nlistress.perturb.runner import build_set
from nlistress.release import build_release
from nlistress.review import import_review, sample_for_review
from nlistress.tables import markdown_table

from .support import canonical_table, project_params, read_csv, shared_override, write_csv


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


@pytest.fixture(scope="module")
def review(sets, tmp_path_factory):
    """A review summary of the negation set, through the annotators' CSV round trip (the
    answers are placeholders: what is checked is where the rates go, not what they are)."""
    work = tmp_path_factory.mktemp("review")
    sheet = work / "review.csv"
    sample_for_review([sets[0]], sheet, 20, seed=1)
    rows = [r | {"label_correct": "yes", "grammatical": "yes" if i % 4 else "no",
                 "grammar_fault": "" if i % 4 else ("source" if i % 8 == 0 else "edit")}
            for i, r in enumerate(read_csv(sheet))]  # fmt: skip
    write_csv(sheet, rows)
    import_review(sheet, [sets[0]], work / "snli_dev.json", annotators="language-model")
    return work / "snli_dev.json"


@pytest.fixture(scope="module")
def release(sets, params, review, tmp_path_factory):
    out = tmp_path_factory.mktemp("published") / "release"
    build_release(sets, out, params, [review])
    return out


def _front_matter(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), path
    head, body = text[4:].split("\n---\n\n", 1)
    return yaml.safe_load(head), body


def test_the_release_is_a_hugging_face_dataset_repository(release, sets, params):
    meta, body = _front_matter(release / "README.md")
    assert meta["pretty_name"] == params["release"]["title"]
    assert meta["license"] == "cc-by-sa-4.0" and meta["language"] == ["en"]
    assert meta["task_categories"] == ["text-classification"]
    assert meta["task_ids"] == ["natural-language-inference"]
    assert meta["size_categories"] == ["10K<n<100K"]  # 19,684 permuted rows + the negation set
    assert meta["source_datasets"] == ["extended|stanfordnlp/snli"]
    assert meta["annotations_creators"] == ["crowdsourced", "machine-generated"]
    configs = {c["config_name"]: c["data_files"] for c in meta["configs"]}
    assert configs == {
        "permute-permute": [{"split": "snli_dev", "path": "permute/permute/snli_dev.parquet"}],
        "stress-negation": [{"split": "snli_dev", "path": "stress/negation/snli_dev.parquet"}],
    }
    for section in ("## Loading", "## Sets", "## Fields", "## How the sets were built",
                    "## Measured label quality", "## Licences", "## Citations"):  # fmt: skip
        assert section in body
    assert "Naik et al. (2018)" in body and "Sinha et al. (2021)" in body and "Bowman et al. (2015)" in body
    # Each set card opens with the same header, for its own source.
    card_meta, card_body = _front_matter(release / "stress/negation/snli_dev.card.md")
    assert card_meta["license"] == "cc-by-sa-4.0" and card_meta["size_categories"] == ["1K<n<10K"]
    assert card_body.startswith("# negation: snli dev")


def test_load_dataset_reads_every_config_offline(release, tmp_path):
    """`datasets.load_dataset(folder, config)`, as a user runs it, with the Hub unreachable."""
    script = (
        "import json, sys, datasets\n"
        "out = {}\n"
        "for config in sys.argv[2:]:\n"
        "    ds = datasets.load_dataset(sys.argv[1], config, cache_dir=sys.argv[1] + '.cache')\n"
        "    split = next(iter(ds.values()))\n"
        "    out[config] = {'splits': {k: v.num_rows for k, v in ds.items()},\n"
        "                   'label_id': repr(split.features['label_id']), 'uid': repr(split.features['uid']),\n"
        "                   'first': split[0]['label_id'], 'label': split[0]['label']}\n"
        "print(json.dumps(out))\n"
    )
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"))
    meta, _ = _front_matter(release / "README.md")
    configs = [c["config_name"] for c in meta["configs"]]
    proc = subprocess.run([sys.executable, "-c", script, str(release), *configs], env=env,
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    catalogue = {e["config"]: e for e in json.loads((release / "catalogue.json").read_text())["sets"]}
    for config, got in loaded.items():
        assert got["splits"] == {"snli_dev": catalogue[config]["rows"]}
        assert got["label_id"] == "ClassLabel(names=['entailment', 'neutral', 'contradiction'])"
        assert "string" in got["uid"]
        assert ["entailment", "neutral", "contradiction"][got["first"]] == got["label"]


def test_croissant_metadata_validates_and_reads_the_records(release):
    import mlcroissant as mlc

    metadata = json.loads((release / "croissant.json").read_text(encoding="utf-8"))
    catalogue = json.loads((release / "catalogue.json").read_text())["sets"]
    assert {f["sha256"] for f in metadata["distribution"]} == {e["sha256"] for e in catalogue}
    dataset = mlc.Dataset(jsonld=release / "croissant.json")  # raises on an invalid file
    negation = next(e for e in catalogue if e["test"] == "negation")
    records = list(dataset.records(record_set=f"{negation['config']}/{negation['hub_split']}"))
    assert len(records) == negation["rows"]


def test_the_catalogue_says_mode_quality_settings_and_code_version(release, sets, review):
    catalogue = {e["test"]: e for e in json.loads((release / "catalogue.json").read_text())["sets"]}
    summary = json.loads(review.read_text())
    negation, permute = catalogue["negation"], catalogue["permute"]
    assert negation["mode"] == permute["mode"] == "precise"
    assert negation["judged_rows"] == 20 and negation["grammatical"] == summary["grammatical_rate"] == 0.75
    assert permute["judged_rows"] is None  # the review judged the negation set only
    assert negation["code_version"] == json.loads(sets[0].with_name("snli_dev.manifest.json").read_text())[
        "nlistress_version"]  # fmt: skip
    assert len(negation["settings_sha256"]) == 16 and negation["settings_sha256"] != permute["settings_sha256"]
    markdown = (release / "CATALOGUE.md").read_text(encoding="utf-8")
    assert negation["edit_grammatical"] == summary["edit_grammatical_rate"] == 0.9  # 2 of 5 faults the edit's
    assert permute["edit_grammatical"] is None
    assert negation["annotators"] == "language-model" and permute["annotators"] is None
    assert ("label 100.0% of 20, grammatical 75.0% (90.0% with no fault made by the edit) "
            "(n = 20, language-model (AI) annotators); **below target**: grammatical") in markdown
    assert "not judged" in markdown


def test_a_set_judged_below_target_says_so_in_the_catalogue_and_the_dataset_card(release, params):
    """75% grammatical is under the 95% of `review.targets`: the catalogue names the rate, as
    the card does, and the Hub card warns before anyone loads the set; an unjudged set is not
    called short of anything."""
    assert params["review"]["targets"]["grammatical"] == 0.95
    catalogue = {e["test"]: e for e in json.loads((release / "catalogue.json").read_text())["sets"]}
    assert catalogue["negation"]["below_target"] == "grammatical"
    assert catalogue["permute"]["below_target"] == "" and catalogue["permute"]["coherent"] is None
    rows = {r["test"]: r for r in csv.DictReader((release / "catalogue.csv").open(encoding="utf-8"))}
    assert rows["negation"]["below_target"] == "grammatical"
    _, body = _front_matter(release / "README.md")
    assert ("**Below target** (label correct 95%, grammatical 95%, coherent 95%): "
            "`stress/negation/snli_dev` (grammatical). Each card lists") in body
    assert "permute/permute" not in body.split("**Below target**")[1].split("\n")[0]


def test_the_largest_review_of_the_same_bytes_is_the_measure(sets, params, review, tmp_path):
    """A census and a sample of one set file: the release reports the census, whichever
    path comes first (the card rule in rules/common.smk picks the same way)."""
    sheet = tmp_path / "census.csv"
    sample_for_review([sets[0]], sheet, 40, seed=2)
    write_csv(sheet, [r | {"label_correct": "yes", "grammatical": "yes"} for r in read_csv(sheet)])
    census = tmp_path / "snli_dev.census.json"
    import_review(sheet, [sets[0]], census)
    for n, order in enumerate(([review, census], [census, review])):
        out = tmp_path / f"release{n}"
        build_release(sets, out, params, order)
        negation = next(e for e in json.loads((out / "catalogue.json").read_text())["sets"]
                        if e["test"] == "negation")
        assert negation["judged_rows"] == 40 and negation["grammatical"] == 1.0


def test_markdown_tables_keep_their_shape_on_real_rows_with_pipes_and_line_breaks(params, tmp_path):
    """ANLI R3 dev holds a premise with `|` and hypotheses with line breaks (real rows)."""
    table = pq.read_table(canonical_table(params, "anli", "r3_dev", "anli/R3_dev.jsonl", tmp_path)).to_pylist()
    awkward = [r for r in table if "|" in r["premise"] or "\n" in r["hypothesis"]]
    assert any("|" in r["premise"] for r in awkward) and any("\n" in r["hypothesis"] for r in awkward)
    text = markdown_table(["label", "premise", "hypothesis"], [[r["label"], r["premise"], r["hypothesis"]]
                                                               for r in awkward])  # fmt: skip
    lines = text.rstrip("\n").split("\n")
    assert len(lines) == len(awkward) + 2
    for line in lines:  # every row has exactly the header's cells
        assert len(re.findall(r"(?<!\\)\|", line)) == 4, line


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


def test_the_dataset_card_points_from_a_set_below_target_to_its_judged_set(params):
    """`antonymy_reviewed` is built from `antonymy`'s rows (its `base`): where both are released
    for one split, the warning on the rule-made set names the judged one; another split's
    judged set is not offered."""
    from dataclasses import replace

    from nlistress.release import CatalogueEntry, _short_sets

    rule = CatalogueEntry(
        name="stress/antonymy/mnli_dev_matched", family="stress", test="antonymy", dataset="mnli",
        split="dev_matched", paper="Naik et al.", mode="precise", rows=468, label_correct=0.923,
        label_judged=468, grammatical=0.771, edit_grammatical=0.853, judged_rows=468, coherent=None,
        below_target="label_correct, grammatical", annotators="language-model", settings_sha256="0" * 16,
        code_version="0", sha256="a" * 64, license="x", path="stress/antonymy/mnli_dev_matched.parquet",
    )  # fmt: skip
    judged = replace(rule, name="stress/antonymy_reviewed/mnli_dev_matched", test="antonymy_reviewed",
                     below_target="", path="stress/antonymy_reviewed/mnli_dev_matched.parquet")  # fmt: skip
    elsewhere = replace(judged, name="stress/antonymy_reviewed/mnli_dev_mismatched", split="dev_mismatched")
    text = _short_sets([rule, judged, elsewhere], params)
    assert ("`stress/antonymy/mnli_dev_matched` (label correct, grammatical; use "
            "`stress/antonymy_reviewed/mnli_dev_matched`, its rows that annotators passed)") in text
    assert "dev_mismatched" not in text
    assert _short_sets([judged, elsewhere], params) == ""
