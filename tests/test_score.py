"""`nlistress score` on real sets: bootstrap intervals, breakdowns, and one predictions file for many sets.

The predictions are those of a constant model (always `neutral`): its accuracy on any group of
rows is that group's share of neutral gold labels, which the test computes from the set itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from nlistress.cli import main
from nlistress.config import deep_merge
from nlistress.models.score import ScoreSettings, bootstrap_interval, score_set
from nlistress.perturb.runner import build_set

from .support import ROOT, canonical_table, project_params, shared_override


@pytest.fixture(scope="module")
def sets(tmp_path_factory) -> dict[str, Path]:
    """OCNLI dev (2,950 labelled rows in 5 genres), SNLI dev, and SNLI dev permuted (q = 4)."""
    params = deep_merge(project_params(), shared_override())
    folder = tmp_path_factory.mktemp("score")
    ocnli = canonical_table(params, "ocnli", "dev", "ocnli/dev.json", folder)
    snli = canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", folder)
    permuted = folder / "permute_snli_dev.parquet"
    build_set("permute", snli, permuted, params, overrides={"q": 4})
    return {"ocnli": ocnli, "snli": snli, "permuted": permuted}


def _neutral_everywhere(path: Path, *tables: Path) -> Path:
    """One JSON-lines predictions file for every uid of ``tables``: always neutral."""
    with path.open("w", encoding="utf-8") as handle:
        for table in tables:
            for uid in pq.read_table(table, columns=["uid"])["uid"].to_pylist():
                handle.write(json.dumps({"uid": uid, "prediction": "neutral"}) + "\n")
    return path


def test_accuracy_per_genre_with_intervals(sets, tmp_path) -> None:
    predictions = _neutral_everywhere(tmp_path / "p.jsonl", sets["ocnli"])
    result = score_set(sets["ocnli"], predictions)
    table = pq.read_table(sets["ocnli"], columns=["label", "genre"]).to_pandas().dropna(subset=["label"])
    expected = (table["label"] == "neutral").groupby(table["genre"]).mean()
    by_genre = result["breakdown"]["genre"]
    assert sorted(by_genre) == sorted(expected.index) and len(by_genre) == 5
    for genre, share in expected.items():
        assert by_genre[genre]["accuracy"] == pytest.approx(share)
        assert by_genre[genre]["rows"] == int((table["genre"] == genre).sum())
        low, high = by_genre[genre]["interval"]
        assert low <= share <= high and high - low > 0.03  # about 600 rows a genre: a wide interval
    low, high = result["accuracy_interval"]
    assert low < result["accuracy"] < high and high - low < 0.05
    assert result["bootstrap"] == {"samples": 1000, "confidence": 0.95, "seed": 2018, "resampled": "uid"}
    assert score_set(sets["ocnli"], predictions)["accuracy_interval"] == [low, high]  # seeded


def test_the_bootstrap_resamples_source_examples_of_a_permuted_set(sets, tmp_path) -> None:
    """The 4 word orders of an example share its gold label: resampled as rows, they would look
    like 4 independent examples and the interval would be too narrow."""
    predictions = _neutral_everywhere(tmp_path / "p.jsonl", sets["permuted"])
    result = score_set(sets["permuted"], predictions)
    assert result["bootstrap"]["resampled"] == "source_uid"
    table = pq.read_table(sets["permuted"], columns=["uid", "source_uid", "label"])
    correct = np.asarray(table["label"].to_pylist(), dtype=object) == "neutral"
    settings = ScoreSettings()
    by_row = bootstrap_interval(correct, np.asarray(table["uid"].to_pylist(), dtype=object), settings)
    by_example = result["accuracy_interval"]
    assert by_example == bootstrap_interval(correct, np.asarray(table["source_uid"].to_pylist(), dtype=object),
                                            settings)  # fmt: skip
    assert (by_example[1] - by_example[0]) > 1.5 * (by_row[1] - by_row[0])
    assert bootstrap_interval(correct, correct, ScoreSettings(bootstrap_samples=0)) is None


def test_one_predictions_file_for_two_sets_counts_what_it_does_not_cover(sets, tmp_path, capsys, caplog) -> None:
    both = _neutral_everywhere(tmp_path / "both.jsonl", sets["ocnli"], sets["snli"])
    out = tmp_path / "scores.json"
    params = ["--params", str(ROOT / "params.yaml")]
    assert main(["score", "--model", "constant", "--set", str(sets["ocnli"]), "--predictions", str(both),
                 "--set", str(sets["snli"]), "--predictions", str(both), "-o", str(out), *params]) == 0  # fmt: skip
    ocnli, snli = json.loads(out.read_text())["sets"]
    assert ocnli["rows"]["extra_predictions"] == snli["rows"]["scored"] == 9842
    assert snli["rows"]["extra_predictions"] == ocnli["rows"]["scored"] == 2950
    assert ocnli["rows"]["extra_uids_first"][0].startswith("snli:dev:")
    assert "predictions for uids not in the set (ignored)" in caplog.text
    markdown = out.with_suffix(".md").read_text()
    assert "9,842 predictions for uids not in the set, ignored" in markdown
    assert "## canonical/ocnli_dev by genre" in markdown
    # --strict (the pipeline's setting): the same file is an error, in one line.
    assert main(["score", "--strict", "--model", "constant", "--set", str(sets["ocnli"]), "--predictions",
                 str(both), "-o", str(tmp_path / "strict.json"), *params]) == 2  # fmt: skip
    assert "9842 predictions for uids not in" in capsys.readouterr().err
    # Part of a set predicted: scored on what is there, the rest counted.
    half = tmp_path / "half.jsonl"
    half.write_text("".join(both.read_text().splitlines(keepends=True)[:500]), encoding="utf-8")
    partial = score_set(sets["ocnli"], half)
    assert partial["rows"]["scored"] == 500 and partial["rows"]["unscored"]["no prediction"] == 2450
