"""The reproduction report: the transcribed paper numbers, their links, and REPORT.md on real results.

The paper files are data typed in from garbled text, so they are checked
against the papers' own arithmetic (Poliak et al.'s differences, Sinha et
al.'s printed means, Sanchez et al.'s contingency totals). The report is then
built from real results: Table 2 of Poliak et al. from the bag-of-words proxy
trained on SNLI dev and scored on SNLI test (the full pipeline run in
tests/test_snakemake.py checks the whole report).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from nlistress.cli import main
from nlistress.errors import DataError
from nlistress.report.papers import load_paper, load_papers

from .support import canonical_table, project_params

PARAMS = ["--params", str(Path(__file__).resolve().parents[1] / "params.yaml")]


def tables_of(paper_id: str) -> dict:
    return {t.id: t for p in load_papers() if p.id == paper_id for t in p.tables}


def test_every_paper_file_loads_with_links_its_sources_read():
    papers = {p.id: p for p in load_papers()}
    assert sorted(papers) == ["naik2018", "poliak2018", "sanchez2018", "sinha2021"]
    for paper in papers.values():
        assert paper.citation and paper.tables
        for table in paper.tables:
            assert table.comparable or table.why_not, (paper.id, table.id)
    assert tables_of("naik2018")["table3"].values[3][0] == 70.3  # IS on MultiNLI dev matched


def test_transcribed_numbers_agree_with_the_papers_arithmetic():
    poliak = tables_of("poliak2018")
    hyp, maj, delta = (poliak[f"table2_{m}"] for m in ("hyp_only", "majority", "delta"))
    checked = 0
    for h, m, d in zip(hyp.values, maj.values, delta.values, strict=True):
        if None not in (h[0], m[0], d[0]):
            assert abs(h[0] - m[0] - d[0]) <= 0.011, (h, m, d)
            checked += 1
    assert checked >= 15
    sinha = tables_of("sinha2021")
    for metric in ("A", "omega_max", "omega_rand", "P_c", "P_f"):
        for values in sinha[f"table2_{metric}"].values:
            *cells, mean = values
            assert abs(sum(cells) / len(cells) - mean) <= 0.0015, (metric, values)
    for high, low in zip(sinha["table2_omega_max"].values, sinha["table2_omega_rand"].values, strict=True):
        assert all(h >= lo for h, lo in zip(high, low, strict=True))
    sanchez = tables_of("sanchez2018")
    unseen, polarity = sanchez["table3"], sanchez["table4"]
    total = sum(sum(row) for row in unseen.values)
    assert total == sum(sum(row) for row in polarity.values) == 620
    correct = sum(unseen.values[0])  # DAM on I_TA1: Table 1 prints 0.946 (truncated)
    assert int(1000 * correct / total) == 946


def test_a_link_its_source_does_not_read_is_named(tmp_path):
    def paper(column: dict, values: list) -> Path:
        path = tmp_path / "paper.yaml"
        path.write_text(yaml.safe_dump({"paper": "p", "tables": [{
            "id": "t1", "source": "scores", "metric": "accuracy", "columns": [column],
            "rows": [{"label": "IS", "model": "IS", "values": values}],
        }]}), encoding="utf-8")  # fmt: skip
        return path

    column = {"label": "dev", "test": "canonical", "dataset": "snli", "split": "dev"}
    assert load_paper(paper(column, [70.3])).tables[0].cell_link(0, 0)["model"] == "IS"
    typo = {**{k: v for k, v in column.items() if k != "split"}, "spilt": "dev"}
    with pytest.raises(DataError, match=r"table t1, column 'dev': link fields \['spilt'\]"):
        load_paper(paper(typo, [70.3]))
    with pytest.raises(DataError, match=r"row 'IS': expected 1 values, one per column"):
        load_paper(paper(column, [70.3, 1]))


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A results tree with Poliak et al.'s Table 2 for SNLI: the proxy fitted on dev, scored on test."""
    root = tmp_path_factory.mktemp("run")
    params = project_params()
    folder = root / "data" / "canonical" / "snli"
    folder.mkdir(parents=True)
    for split in ("dev", "test"):
        table = canonical_table(params, "snli", split, f"snli/snli_1.0_{split}.jsonl", folder)
        table.rename(folder / f"{split}.parquet")
    predictions = root / "data" / "baselines" / "bow" / "snli" / "snli_test.parquet"
    assert main(["hypothesis-bow", "--train", str(folder / "dev.parquet"), "--table",
                 str(folder / "test.parquet"), "-o", str(predictions), *PARAMS]) == 0  # fmt: skip
    override = root / "artifacts.yaml"
    override.write_text(yaml.safe_dump({"artifacts": {
        "baselines": {"snli": {"train": "snli/dev", "eval": ["snli/test"]}, "mnli": {"eval": []},
                      "scitail": {"eval": []}, "sick": {"eval": []}},
        "giveaway": {"snli_train": [], "mnli_train": [], "scitail_train": [], "sick_train": [],
                     "snli_dev_test": ["snli/dev", "snli/test"]},
    }}), encoding="utf-8")  # fmt: skip
    assert main(["giveaway", "--table", str(folder / "dev.parquet"), "--table",
                 str(folder / "test.parquet"), "-o", str(root / "results/giveaway/snli_dev_test"),
                 *PARAMS]) == 0  # fmt: skip
    assert main(["baselines", "--canonical-dir", str(root / "data" / "canonical"),
                 "--predictions-dir", str(predictions.parents[1]), "--predictor",
                 "bag-of-words proxy", "-o", str(root / "results" / "baselines"), *PARAMS,
                 "--params", str(override)]) == 0  # fmt: skip
    assert main(["report", "--results", str(root / "results"), "--data", str(root / "data"),
                 "-o", str(root / "results"), *PARAMS, "--params", str(override)]) == 0  # fmt: skip
    return root


def test_report_sets_the_papers_numbers_beside_ours(run):
    report = (run / "results" / "REPORT.md").read_text(encoding="utf-8")
    ours = json.loads((run / "results" / "baselines" / "baselines.json").read_text())["results"][0]
    assert ours["dataset"] == "snli" and ours["split"] == "test"
    # The paper: 69.00 hyp-only and 34.28 majority on SNLI test.
    assert f"| SNLI TEST | 69.00 / {ours['hyp_only']:.2f} ({ours['hyp_only'] - 69.0:+.2f}) |" in report
    assert f"| SNLI TEST | 34.28 / {ours['majority']:.2f} ({ours['majority'] - 34.28:+.2f}) |" in report
    assert "Hyp-Only of snli → bag-of-words proxy: fitted on" in report
    # Every empty cell says why.
    assert "distilbert.plain is not trained in this run (models.runs)" in report
    assert "not in the dataset registry (datasets in params.yaml): dpr, spr, fnplus" in report
    assert "Not compared: Human (expert) labelling of 200 permuted pairs" in report
    for paper in ("naik2018", "sanchez2018", "sinha2021", "poliak2018"):
        assert f"| {paper} |" in report
    # Figure 13: SNLI's contradiction give-away words, the paper's beside those of SNLI dev + test.
    [line] = [x for x in report.splitlines() if x.startswith("| snli contradiction |")]
    in_both = int(line.rsplit("|", 2)[1].split(" of ")[0])
    assert in_both >= 5, line


def test_report_csv_has_every_printed_cell_with_a_value_or_a_reason(run):
    with open(run / "results" / "report.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and all(r["source_or_reason"] for r in rows)
    filled = [r for r in rows if r["our_value"]]
    assert {(r["paper"], r["table"], r["row"]) for r in filled} >= {
        ("poliak2018", "table2_hyp_only", "SNLI TEST"), ("poliak2018", "table2_majority", "SNLI TEST"),
    }  # fmt: skip
    ours = (run / "results" / "tables" / "poliak2018" / "table2_hyp_only.csv").read_text()
    assert "SNLI TEST," in ours and (run / "results/tables/poliak2018/table2_hyp_only.tex").is_file()


def test_report_is_byte_identical_on_rerun(run, tmp_path):
    assert main(["report", "--results", str(run / "results"), "--data", str(run / "data"),
                 "-o", str(tmp_path), *PARAMS, "--params", str(run / "artifacts.yaml")]) == 0  # fmt: skip
    for name in ("REPORT.md", "report.csv"):
        assert (tmp_path / name).read_bytes() == (run / "results" / name).read_bytes()


def test_a_default_mode_set_of_an_authored_test_is_not_compared(tmp_path):
    """Naik et al.'s antonymy count beside a default-mode build: shown with *, no difference;
    beside a paper-mode build: compared."""
    from nlistress.config import deep_merge, load_params
    from nlistress.perturb.runner import build_set
    from nlistress.report.ours import OurResults
    from nlistress.report.render import _cell_text, compare

    from .support import ROOT, shared_override

    table = next(t for t in tables_of("naik2018").values() if t.id == "text_3_set_sizes")
    canonical = canonical_table(project_params(), "mnli", "dev_mismatched",
                                "mnli/multinli_1.0_dev_mismatched.sample1000.jsonl", tmp_path)  # fmt: skip
    texts, rows = {}, {}
    for mode, files in (("precise", [ROOT / "params.yaml"]), ("paper", [ROOT / "profiles/paper/params.yaml"])):
        params = deep_merge(load_params(files), shared_override())
        data = tmp_path / mode
        build_set("antonymy", canonical, data / "sets/stress/antonymy/mnli_dev_mismatched.parquet", params)
        cells = compare(table, OurResults(tmp_path / "results", data, params))
        cell = next(c for c in cells if table.rows[c.row].label == "Antonymy mismatched")
        assert cell.ours.mode == mode
        texts[mode] = _cell_text(cell)
        rows[mode] = pq.read_metadata(data / "sets/stress/antonymy/mnli_dev_mismatched.parquet").num_rows
    # the default-mode count (69 today) moves with the precision filters; the * marks it as not compared
    assert texts["precise"] == f"1734 / {rows['precise']}*"
    assert texts["paper"] == "1734 / 306 (-1428)"
