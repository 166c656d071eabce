"""CSV/TSV sources and 2-way label sets canonicalise exactly like the official JSON lines.

Real SNLI dev rows are rewritten into other containers inside each test (same
text, different container: CSV with a header, headerless TSV, SciTail's and
SICK's layouts); the canonical table must match the one built from the
official jsonl, down to the bytes where the ids are carried over.
"""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, FileFormat, PrepareSettings, deep_merge
from nlistress.errors import ConfigError, DataError

from .support import SHARED_DATA, project_params

SNLI_DEV = SHARED_DATA / "snli" / "snli_1.0_dev.jsonl"


@pytest.fixture(scope="module")
def snli_rows() -> list[dict]:
    return [json.loads(line) for line in SNLI_DEV.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def jsonl_table(tmp_path_factory):
    out = tmp_path_factory.mktemp("jsonl") / "dev.parquet"
    spec = DatasetSpec.from_params(project_params(), "snli")
    prepare(spec, "dev", out, PrepareSettings(), source_path=SNLI_DEV)
    return out


def _prepare(params: dict, dataset: str, split: str, source, out):
    spec = DatasetSpec.from_params(params, dataset)
    manifest = prepare(spec, split, out, PrepareSettings(), source_path=source)
    return pd.read_parquet(out), manifest


def _with_format(fmt: dict, **columns) -> dict:
    entry = {"format": fmt}
    if columns:
        entry["columns"] = columns
    return deep_merge(project_params(), {"datasets": {"snli": entry}})


def test_csv_with_header_gives_the_same_bytes(tmp_path, snli_rows, jsonl_table):
    source = tmp_path / "dev.csv"
    with open(source, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)  # minimal quoting: text with commas or quotes gets quoted
        writer.writerow(["sentence1", "sentence2", "gold_label", "pairID"])
        for line, row in enumerate(snli_rows, 1):
            writer.writerow([row["sentence1"], row["sentence2"], row["gold_label"], line])
    quoted = sum(1 for r in snli_rows if any(c in r["sentence1"] + r["sentence2"] for c in ',"'))
    assert quoted > 100  # the real text exercises quoting
    out = tmp_path / "dev.parquet"
    _, manifest = _prepare(_with_format({"kind": "csv"}), "snli", "dev", source, out)
    assert manifest["rows"]["input"] == manifest["rows"]["kept"] == len(snli_rows)
    assert manifest["params"]["dataset"]["format"]["kind"] == "csv"
    # pairID = the jsonl line number, which is the jsonl table's source_id: identical files.
    assert out.read_bytes() == jsonl_table.read_bytes()


def test_headerless_tsv_without_quoting(tmp_path, snli_rows, jsonl_table):
    source = tmp_path / "dev.tsv"
    source.write_text(
        "".join(f"{r['sentence1']}\t{r['sentence2']}\t{r['gold_label']}\n" for r in snli_rows),
        encoding="utf-8",
    )
    fmt = {"kind": "tsv", "header": False, "fieldnames": ["p", "h", "y"], "quoting": "none"}
    params = _with_format(fmt, premise=["p"], hypothesis=["h"], label=["y"], id=[])
    table, _ = _prepare(params, "snli", "dev", source, tmp_path / "dev.parquet")
    expected = pd.read_parquet(jsonl_table)
    # Headerless: line n holds jsonl row n, so even the position-based ids agree.
    pd.testing.assert_frame_equal(table, expected)


def _two_way(label: str) -> str:
    return "entails" if label == "entailment" else "neutral"


def test_scitail_entry_maps_two_way_labels(tmp_path, snli_rows, jsonl_table):
    """SciTail's layout (premise, hypothesis, entails|neutral) with the registry's scitail entry."""
    source = tmp_path / "scitail_dev.tsv"
    source.write_text(
        "".join(f"{r['sentence1']}\t{r['sentence2']}\t{_two_way(r['gold_label'])}\n" for r in snli_rows),
        encoding="utf-8",
    )
    table, manifest = _prepare(project_params(), "scitail", "dev", source, tmp_path / "s.parquet")
    expected = pd.read_parquet(jsonl_table)
    assert manifest["params"]["dataset"]["labels"] == ["entailment", "not_entailment"]
    entailed = expected["label"] == "entailment"
    assert (table["label"] == entailed.map({True: "entailment", False: "not_entailment"})).all()
    assert (table["label_id"] == (~entailed).astype(int)).all()
    assert table["label"].value_counts().to_dict() == {
        "entailment": int(entailed.sum()), "not_entailment": int((~entailed).sum()),
    }  # fmt: skip
    assert table["premise"].tolist() == expected["premise"].tolist()
    assert table["uid"].iloc[0] == "scitail:dev:1"


SICK_HEADER = (
    "pair_ID\tsentence_A\tsentence_B\tentailment_label\trelatedness_score\tentailment_AB\t"
    "entailment_BA\tsentence_A_original\tsentence_B_original\tsentence_A_dataset\t"
    "sentence_B_dataset\tSemEval_set\n"
)


def _sick_file(path, snli_rows, sets):
    """SNLI dev rows in the layout of SICK.txt: one file, each pair's SemEval split in a column."""
    lines = [SICK_HEADER] + [
        f"{i}\t{r['sentence1']}\t{r['sentence2']}\t{r['gold_label'].upper()}\t3.5\tA_neutral_B\t"
        f"B_neutral_A\t{r['sentence1']}\t{r['sentence2']}\tFLICKR\tFLICKR\t{semeval_set}\n"
        for i, (r, semeval_set) in enumerate(zip(snli_rows, sets, strict=False), 1)
    ]
    path.write_text("".join(lines), encoding="utf-8")


def test_sick_entry_keeps_its_split_of_the_one_file(tmp_path, snli_rows, jsonl_table):
    """SICK.txt holds all three splits: a split is the rows its source.select names, the
    others are counted in the manifest, and ids come from pair_ID."""
    source = tmp_path / "SICK.txt"
    sets = ["TRIAL" if i % 3 == 0 else ("TRAIN" if i % 3 == 1 else "TEST") for i in range(600)]
    _sick_file(source, snli_rows, sets)
    table, manifest = _prepare(project_params(), "sick", "trial", source, tmp_path / "sick.parquet")
    expected = pd.read_parquet(jsonl_table).iloc[:600].iloc[::3]
    for column in ("premise", "hypothesis", "label", "label_id"):
        assert table[column].tolist() == expected[column].tolist()
    assert table["uid"].tolist() == [f"sick:trial:{i}" for i in range(1, 601, 3)]
    assert manifest["source"]["select"] == {
        "where": {"SemEval_set": "TRIAL"}, "rows_in_source": 600, "rows_of_other_splits": 400,
    }  # fmt: skip
    assert manifest["rows"]["input"] == 200 == manifest["rows"]["kept"]


def test_sick_split_missing_from_the_file_or_column_is_one_line(tmp_path, snli_rows):
    source = tmp_path / "SICK.txt"
    _sick_file(source, snli_rows, ["TRAIN"] * 20)
    with pytest.raises(DataError, match=r"no row matches source.select \{'SemEval_set': 'TEST'\}"):
        _prepare(project_params(), "sick", "test", source, tmp_path / "sick.parquet")
    source.write_text(SICK_HEADER.replace("\tSemEval_set", "\tset") + "".join(
        source.read_text(encoding="utf-8").splitlines(keepends=True)[1:]), encoding="utf-8")
    with pytest.raises(DataError, match=r"SICK.txt, line 2: no field 'SemEval_set', which source.select"):
        _prepare(project_params(), "sick", "test", source, tmp_path / "sick.parquet")


def test_quoted_newline_and_errors_name_the_starting_line(tmp_path, snli_rows):
    source = tmp_path / "bad.csv"
    with open(source, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["sentence1", "sentence2", "gold_label"])
        writer.writerow([snli_rows[0]["sentence1"] + "\nsecond line", snli_rows[0]["sentence2"], "neutral"])
        writer.writerow([snli_rows[1]["sentence1"], snli_rows[1]["sentence2"], "maybe"])
    # header = line 1, the two-line record = lines 2-3, the bad label = line 4
    with pytest.raises(DataError, match=r"bad\.csv, line 4: unknown label 'maybe'"):
        _prepare(_with_format({"kind": "csv"}), "snli", "dev", source, tmp_path / "o.parquet")
    assert not (tmp_path / "o.parquet").exists()


def test_wrong_field_count_names_file_and_line(tmp_path, snli_rows):
    source = tmp_path / "short.tsv"
    good = f"{snli_rows[0]['sentence1']}\t{snli_rows[0]['sentence2']}\tentails\n"
    source.write_text(good + "\n" + f"{snli_rows[1]['sentence1']}\tentails\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"short\.tsv, line 3: expected 3 fields .* got 2"):
        _prepare(project_params(), "scitail", "dev", source, tmp_path / "o.parquet")


def test_format_config_errors():
    with pytest.raises(ConfigError, match=r"datasets\.snli\.format\.fieldnames: required"):
        DatasetSpec.from_params(_with_format({"kind": "tsv", "header": False}), "snli")
    with pytest.raises(ConfigError, match=r"datasets\.snli\.format\.kind: expected one of"):
        DatasetSpec.from_params(_with_format({"kind": "xlsx"}), "snli")
    with pytest.raises(ConfigError, match=r"format\.delimiter: expected one character"):
        DatasetSpec.from_params(_with_format({"kind": "csv", "delimiter": ";;"}), "snli")
    assert DatasetSpec.from_params(project_params(), "snli").format == FileFormat()
    assert DatasetSpec.from_params(_with_format("tsv"), "snli").format.delimiter == "\t"
