"""The annotator-review loop: stratified sample to CSV, filled answers back, rates in the card."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from nlistress.cards import quality_section, write_card
from nlistress.cli import main
from nlistress.config import deep_merge, load_params
from nlistress.errors import ConfigError, DataError
from nlistress.perturb.runner import build_set
from nlistress.review import combine_reviews, import_review, sample_for_review, wilson_interval

from .support import ROOT, canonical_table, project_params, read_csv, shared_override, write_csv


@pytest.fixture(scope="module")
def negation_set(tmp_path_factory):
    """The negation set of real ANLI R1 dev (1,000 rows)."""
    params = deep_merge(project_params(), shared_override())
    folder = tmp_path_factory.mktemp("review")
    source = canonical_table(params, "anli", "r1_dev", "anli/R1_dev.jsonl", folder)
    target = folder / "anli_r1_dev.parquet"
    build_set("negation", source, target, params)
    return params, target


def test_sample_is_stratified_seeded_and_blank(negation_set, tmp_path):
    _, target = negation_set
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    assert sample_for_review(target, first, 100, seed=7) == 100
    sample_for_review(target, second, 100, seed=7)
    assert first.read_bytes() == second.read_bytes()
    rows = read_csv(first)
    labels = pd.read_parquet(target)["label"].value_counts(normalize=True)
    counts = pd.Series([r["label"] for r in rows]).value_counts()
    for label, share in labels.items():
        assert abs(counts[label] - 100 * share) <= 1  # proportional to the set
    assert all(r["label_correct"] == r["grammatical"] == "" for r in rows)
    assert len({r["uid"] for r in rows}) == 100


def test_filled_review_reaches_the_card(negation_set, tmp_path):
    params, target = negation_set
    sheet = tmp_path / "review.csv"
    sample_for_review(target, sheet, 20, seed=1)
    rows = read_csv(sheet)
    for i, row in enumerate(rows):
        row["label_correct"] = "no" if i < 2 else "yes"
        row["grammatical"] = "Y" if i < 15 else "n"
    rows[-1]["label_correct"] = ""  # not reviewed yet: left out of the rates
    write_csv(sheet, rows)
    summary = import_review(sheet, target, tmp_path / "summary.json")
    assert summary["sampled"] == 20 and summary["reviewed"] == 19
    assert summary["label_correct_rate"] == pytest.approx(17 / 19)
    assert summary["grammatical_rate"] == pytest.approx(15 / 19)
    card = tmp_path / "card.md"
    write_card(target, card, params, tmp_path / "summary.json")
    text = card.read_text(encoding="utf-8")
    assert "19 rows reviewed (sample of 20" in text
    assert f"| generated label correct | {17 / 19:.1%} |" in text
    assert "CC BY-NC 4.0" in text and "Naik" in text
    assert "| read | 1,000 |" in text


def test_grammar_faults_are_counted_by_where_they_lie(negation_set, tmp_path):
    """A fault already in the source text is told apart from one the edit made, on the card too."""
    params, target = negation_set
    sheet = tmp_path / "review.csv"
    sample_for_review(target, sheet, 10, seed=2)
    rows = read_csv(sheet)
    assert all(r["grammar_fault"] == "" for r in rows)  # the sample offers the column, blank
    for i, row in enumerate(rows):
        row |= {"label_correct": "yes", "grammatical": "no" if i < 4 else "yes"}
    rows[0]["grammar_fault"] = rows[1]["grammar_fault"] = "source"
    rows[2]["grammar_fault"] = "Edit"
    write_csv(sheet, rows)  # rows[3]: ungrammatical, not attributed
    summary = import_review(sheet, target, tmp_path / "summary.json")
    assert summary["grammar_faults"] == {"source": 2, "edit": 1, "unattributed": 1}
    assert summary["grammatical_rate"] == pytest.approx(0.6)
    assert summary["edit_grammatical_rate"] == pytest.approx(0.8)  # unattributed counts against the edit
    assert [p.get("grammar_fault") for p in summary["problems"]] == ["source", "source", "edit", None]
    card = tmp_path / "card.md"
    write_card(target, card, params, tmp_path / "summary.json")
    text = card.read_text(encoding="utf-8")
    assert ("grammatical **60.0%** [31.3% to 83.2%] (of the 4 ungrammatical rows, 2 repeat a fault of the source text "
            "and 1 has one the edit made, 1 not attributed: 80.0% of rows have no fault made by the edit)") in text
    # below the project's target (review.targets, 95%), and the card says so where the rates are
    assert ("**Below target:** grammatical 60.0% (target 95%); the rows the annotators faulted, and why, "
            "are listed under Annotator review.") in text.split("## What it tests")[0]
    lowered = deep_merge(params, {"review": {"targets": {"grammatical": 0.5}}})
    write_card(target, card, lowered, tmp_path / "summary.json")
    assert "Below target" not in card.read_text(encoding="utf-8")
    assert "| no grammar fault made by the edit | 80.0% |" in text
    assert f"`{rows[2]['uid']}` (grammatical: edit)" in text
    rows[2]["grammar_fault"] = "maybe"
    write_csv(sheet, rows)
    with pytest.raises(DataError, match=r"line 4: column 'grammar_fault': expected one of source, edit"):
        import_review(sheet, target, tmp_path / "s.json")
    rows[2]["grammar_fault"], rows[5]["grammar_fault"] = "edit", "source"  # rows[5] is grammatical
    write_csv(sheet, rows)
    with pytest.raises(DataError, match=r"line 7: column 'grammar_fault': only for rows answered grammatical = no"):
        import_review(sheet, target, tmp_path / "s.json")
    assert not (tmp_path / "s.json").exists()
    rows[5]["grammar_fault"] = ""
    # Without the column, or with it left blank, the summary says nothing about where faults lie.
    write_csv(sheet, [r | {"grammar_fault": ""} for r in rows])
    assert "grammar_faults" not in import_review(sheet, target, tmp_path / "s2.json")
    write_csv(sheet, [{k: v for k, v in r.items() if k != "grammar_fault"} for r in rows])
    assert "grammar_faults" not in import_review(sheet, target, tmp_path / "s2.json")


def test_bad_review_files_are_named(negation_set, tmp_path):
    _, target = negation_set
    sheet = tmp_path / "review.csv"
    sample_for_review(target, sheet, 5, seed=1)
    rows = read_csv(sheet)
    rows[2]["label_correct"] = "maybe"
    rows[2]["grammatical"] = "yes"
    write_csv(sheet, rows)
    with pytest.raises(
        DataError, match=r"review.csv, line 4: column 'label_correct': expected yes or no"
    ):
        import_review(sheet, target, tmp_path / "s.json")
    rows[2]["label_correct"] = "yes"
    rows[3]["uid"] = "made-up"
    write_csv(sheet, rows)
    with pytest.raises(DataError, match="uid 'made-up' is not in"):
        import_review(sheet, target, tmp_path / "s.json")
    write_csv(sheet, [{k: v for k, v in r.items() if k != "grammatical"} for r in rows])
    with pytest.raises(DataError, match="missing column"):
        import_review(sheet, target, tmp_path / "s.json")
    assert not (tmp_path / "s.json").exists()


def test_judges_copies_combine_into_one_review_where_any_no_stands(negation_set, tmp_path):
    """combine-reviews: several judges' filled copies of one sample become the CSV every review
    here is, a row yes only where every judge said yes, each judge's comment kept."""
    _, target = negation_set
    sheet = tmp_path / "review.csv"
    sample_for_review(target, sheet, 6, seed=3)
    blank = read_csv(sheet)
    first, second = [dict(r) for r in blank], [dict(r) for r in blank]
    for row in first:
        row.update(label_correct="yes", grammatical="yes")
    for row in second:
        row.update(label_correct="yes", grammatical="yes")
    first[0].update(label_correct="no", comment="a generic statement")
    second[1].update(grammatical="no", grammar_fault="source", comment="a typo in the source")
    first[1].update(grammatical="no", grammar_fault="edit")
    second[2]["label_correct"] = ""  # not judged by the second: the row has no combined answer
    write_csv(tmp_path / "a.csv", first)
    write_csv(tmp_path / "b.csv", list(reversed(second)))  # the order of a copy does not matter
    assert main(["combine-reviews", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"),
                 "-o", str(tmp_path / "both.csv")]) == 0  # fmt: skip
    both = read_csv(tmp_path / "both.csv")
    assert [r["uid"] for r in both] == [r["uid"] for r in blank]
    assert [(r["label_correct"], r["grammatical"], r["grammar_fault"]) for r in both] == [
        ("no", "yes", ""), ("yes", "no", "edit"), ("", "yes", ""), *[("yes", "yes", "")] * 3]
    assert both[0]["comment"] == "judge 1: a generic statement"
    assert both[1]["comment"] == "judge 2: a typo in the source"
    summary = import_review(tmp_path / "both.csv", target, tmp_path / "s.json")
    assert summary["reviewed"] == 5 and summary["label_correct_rate"] == pytest.approx(4 / 5)  # one row blank
    assert summary["grammar_faults"] == {"edit": 1, "source": 0, "unattributed": 0}


def test_a_judges_copy_with_other_rows_is_named(negation_set, tmp_path, capsys):
    _, target = negation_set
    sheet = tmp_path / "review.csv"
    sample_for_review(target, sheet, 5, seed=1)
    rows = read_csv(sheet)
    changed = [dict(r) for r in rows]
    changed[3]["premise"] += " (edited)"
    write_csv(tmp_path / "b.csv", changed)
    with pytest.raises(DataError, match=r"b.csv, line 5: uid '.*': premise differ from .*review.csv"):
        combine_reviews([sheet, tmp_path / "b.csv"], tmp_path / "out.csv")
    write_csv(tmp_path / "b.csv", rows[:4])
    assert main(["combine-reviews", str(sheet), str(tmp_path / "b.csv"), "-o", str(tmp_path / "out.csv")]) == 2
    assert "b.csv: holds other rows than" in capsys.readouterr().err
    rows[0]["label_correct"] = "perhaps"
    write_csv(tmp_path / "b.csv", rows)
    with pytest.raises(DataError, match=r"b.csv, line 2: column 'label_correct': expected yes or no"):
        combine_reviews([sheet, tmp_path / "b.csv"], tmp_path / "out.csv")
    with pytest.raises(ConfigError, match="at least two"):
        combine_reviews([sheet], tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()


def test_judges_gold_labels_combine_only_where_they_agree(tmp_path):
    """Swap reviews: a needs_annotation row keeps a gold_label only where the judges agree
    (real rows of the committed SNLI dev review)."""
    rows = [r for r in read_csv(ROOT / "reviews/swap/antonym_in_situ/snli_dev.csv")
            if r["label_status"] == "needs_annotation"][:2]  # fmt: skip
    assert len(rows) == 2
    first = [{**r, "label_correct": "", "gold_label": "neutral", "comment": ""} for r in rows]
    second = [{**r, "label_correct": "", "gold_label": g, "comment": ""}
              for r, g in zip(rows, ("neutral", "contradiction"), strict=True)]
    write_csv(tmp_path / "a.csv", first)
    write_csv(tmp_path / "b.csv", second)
    combine_reviews([tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "both.csv")
    both = read_csv(tmp_path / "both.csv")
    assert [r["gold_label"] for r in both] == ["neutral", ""]
    assert both[1]["comment"] == "the judges gave different gold labels (contradiction, neutral)"


def test_card_of_an_unreviewed_set(negation_set, tmp_path):
    params, target = negation_set
    card = tmp_path / "card.md"
    write_card(target, card, params)
    text = card.read_text(encoding="utf-8")
    assert text.startswith("---\nlicense: cc-by-nc-4.0\n") or "\nlicense: cc-by-nc-4.0\n" in text.split("\n---\n")[0]
    assert text.split("\n---\n\n", 1)[1].startswith("# negation: anli r1_dev")
    assert "Not reviewed yet" in text
    assert "**Label quality: not judged.**" in text.split("## What it tests")[0]
    assert json.loads((target.with_name("anli_r1_dev.manifest.json")).read_text())["sha256"] in text


def test_a_review_of_two_sets_and_a_stale_card(tmp_path):
    """The numerical test's layout: two small sets judged in one sample; a rebuild makes it stale."""
    params = deep_merge(project_params(), shared_override())
    sets = []
    for split, rel in (("r2_dev", "anli/R2_dev.jsonl"), ("r3_dev", "anli/R3_dev.jsonl")):
        source = canonical_table(params, "anli", split, rel, tmp_path)
        target = tmp_path / f"spelling_{split}.parquet"
        build_set("spelling_error", source, target, params)
        sets.append((source, target))
    sheet = tmp_path / "review.csv"
    assert sample_for_review([t for _, t in sets], sheet, 30, seed=3) == 30
    rows = read_csv(sheet)
    assert {r["set"] for r in rows} == {"spelling_r2_dev.parquet", "spelling_r3_dev.parquet"}
    for row in rows:
        row |= {"label_correct": "yes", "grammatical": "yes"}
    write_csv(sheet, rows)
    summary_path = tmp_path / "summary.json"
    summary = import_review(sheet, [t for _, t in sets], summary_path)
    assert [s["set"] for s in summary["sets"]] == ["spelling_r2_dev.parquet", "spelling_r3_dev.parquet"]
    assert summary["census"] is False and summary["problems"] == []
    card = tmp_path / "card.md"
    write_card(sets[0][1], card, params, summary_path)
    text = card.read_text(encoding="utf-8")
    # Our measured rate comes first (before "What it tests"), with n and the set's sha256.
    head = text.split("## What it tests")[0]
    assert "**Label quality, measured on this build:** label correct **100.0%**" in head
    assert "n = 30 judged rows" in head and "Naik et al. (2018) did not validate" in head
    # a sample's rate is an estimate: 30 of 30 right leaves the set's rate anywhere above 88.6%
    assert "label correct **100.0%** [88.6% to 100.0%] (30 labelled rows)" in head
    assert "In brackets: the 95% Wilson interval of each rate (sampling error only)." in head
    census = quality_section(summary | {"census": True}, sets[0][1].name, summary["sets"][0]["sha256"], "")
    assert "label correct **100.0%** (30 labelled rows)" in census and "no sampling error" in census
    # Rebuilt with another seed: the judged sample no longer describes the set.
    build_set("spelling_error", sets[0][0], sets[0][1], params, seed=99)
    write_card(sets[0][1], card, params, summary_path)
    head = card.read_text(encoding="utf-8").split("## What it tests")[0]
    assert "**Label quality: stale.**" in head and "100.0%" not in head


def test_a_review_of_the_default_build_does_not_describe_the_paper_mode_build(negation_set, tmp_path):
    """Both modes write the same file name: the summary names the mode it judged, and the card of
    the other mode's build says it is not judged instead of calling the review stale."""
    params, target = negation_set
    sheet = tmp_path / "review.csv"
    sample_for_review(target, sheet, 10, seed=2)
    write_csv(sheet, [r | {"label_correct": "yes", "grammatical": "yes"} for r in read_csv(sheet)])
    summary = import_review(sheet, target, tmp_path / "summary.json")
    assert [s["mode"] for s in summary["sets"]] == ["precise"]
    paper = deep_merge(load_params([ROOT / "profiles/paper/params.yaml"]), shared_override())
    paper_set = tmp_path / "paper" / target.name
    source = canonical_table(params, "anli", "r1_dev", "anli/R1_dev.jsonl", tmp_path)
    build_set("negation", source, paper_set, paper)
    card = tmp_path / "card.md"
    write_card(paper_set, card, paper, tmp_path / "summary.json")
    head = card.read_text(encoding="utf-8").split("## What it tests")[0]
    assert "**Label quality: not judged.**" in head and "stale" not in head
    assert "judged the default build of that name" in head
    assert "the paper's own judgement of its sample of this construction" in head  # it is the paper's set
    assert "Not reviewed yet" in card.read_text(encoding="utf-8")
    write_card(target, card, params, tmp_path / "summary.json")  # the build it judged
    assert "**Label quality, measured on this build:**" in card.read_text(encoding="utf-8")
    # A review of the paper-mode build is quoted on the default card, beside the paper's figure.
    paper_sheet = tmp_path / "paper.csv"
    sample_for_review(paper_set, paper_sheet, 10, seed=2)
    write_csv(paper_sheet, [r | {"label_correct": "no", "grammatical": "yes"} for r in read_csv(paper_sheet)])
    paper_summary = import_review(paper_sheet, paper_set, tmp_path / "paper.json")
    assert [s["mode"] for s in paper_summary["sets"]] == ["paper"]
    write_card(target, card, params, tmp_path / "summary.json", paper_review_path=tmp_path / "paper.json")
    head = card.read_text(encoding="utf-8").split("## What it tests")[0]
    assert "**Label quality, measured on this build:** label correct **100.0%**" in head
    assert "Our judges, on the paper-mode build of this set (the authors' construction; 10 rows" in head
    assert "label correct **0.0%** [0.0% to 27.8%], grammatical **100.0%** [72.2% to 100.0%]." in head
    with pytest.raises(DataError, match="paper-mode review summary not found"):
        write_card(target, card, params, paper_review_path=tmp_path / "missing.json")


def test_the_card_says_who_judged(negation_set, tmp_path):
    """A rate from language-model annotators is not a human annotation, and the card says which
    it is beside the rates (import-review --annotators / --judged-by)."""
    params, target = negation_set
    sheet, summary, card = tmp_path / "review.csv", tmp_path / "summary.json", tmp_path / "card.md"
    sample_for_review(target, sheet, 10, seed=4)
    write_csv(sheet, [r | {"label_correct": "yes", "grammatical": "yes"} for r in read_csv(sheet)])
    assert main(["import-review", str(sheet), "--set", str(target), "-o", str(summary),
                 "--annotators", "language-model", "--judged-by", "two strict readers"]) == 0  # fmt: skip
    assert json.loads(summary.read_text())["annotators"] == "language-model"
    write_card(target, card, params, summary)
    text = card.read_text(encoding="utf-8")
    said = "Judged by language-model (AI) annotators, not by people: two strict readers."
    assert said in text.split("## What it tests")[0]  # beside the rates that open the card
    assert f"10 rows reviewed (sample of 10, stratified by label). {said}" in text
    import_review(sheet, target, summary, annotators="human")
    write_card(target, card, params, summary)
    assert "Judged by human annotators." in card.read_text(encoding="utf-8")
    import_review(sheet, target, summary)
    write_card(target, card, params, summary)
    assert "Who judged the rows is not recorded" in card.read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match="annotators: 'robots' is not one of human, language-model"):
        import_review(sheet, target, tmp_path / "s.json", annotators="robots")


def test_every_committed_review_says_who_judged():
    """The project's own reviews were made by language-model annotators, and say so: no card
    of a released set may leave a reader to take them for a human annotation."""
    summaries = sorted((ROOT / "reviews").rglob("*.json"))
    assert len(summaries) >= 40
    briefs = {p.name for p in (ROOT / "reviews/briefs").glob("*.md")}
    assert {"antonymy.md", "numerical.md", "swap.md"} <= briefs  # what they judged under, kept
    for path in summaries:
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert summary["annotators"] == "language-model" and "reviews/briefs/" in summary["judged_by"], path


def test_the_wilson_interval_matches_the_published_values():
    """97 of 100 right (Wilson 95%: 91.5-99.0%) and the edges, where the normal approximation
    would leave 0-1 and Wilson does not."""
    assert wilson_interval(0.97, 100) == pytest.approx((0.9155, 0.9897), abs=5e-4)
    assert wilson_interval(0.16, 100) == pytest.approx((0.1010, 0.2442), abs=5e-4)
    low, high = wilson_interval(1.0, 60)
    assert low == pytest.approx(0.9398, abs=5e-4) and high == pytest.approx(1.0)
    assert wilson_interval(0.0, 10)[0] == 0.0


def test_rates_per_value_of_a_parameter(negation_set, tmp_path, caplog):
    """import-review --by KEY: the rates of each value of a key of the rows' perturbation_params
    (a sample drawn per filter from `perturb --dropped` is read per filter); a row without the
    key is named."""
    _, target = negation_set
    sheet, summary = tmp_path / "review.csv", tmp_path / "summary.json"
    sample_for_review(target, sheet, 10, seed=4)
    rows = read_csv(sheet)
    write_csv(sheet, [r | {"label_correct": "yes" if i % 2 else "no", "grammatical": "yes"} for i, r in enumerate(rows)])
    key = sorted(json.loads(rows[0]["perturbation_params"]))[0]
    caplog.set_level("INFO")
    assert main(["import-review", str(sheet), "--set", str(target), "-o", str(summary), "--by", key]) == 0
    by = json.loads(summary.read_text())["by"]
    assert by["param"] == key
    assert sum(g["reviewed"] for g in by["groups"].values()) == 10
    assert sum(g["label_correct_rate"] * g["label_judged"] for g in by["groups"].values()) == pytest.approx(5)
    assert f"  {key} " in caplog.text  # each value's rates are logged
    with pytest.raises(DataError, match="has no 'no_such_key' in its perturbation_params"):
        import_review(sheet, target, tmp_path / "s.json", by="no_such_key")


def test_only_a_generator_that_keeps_them_writes_dropped_pairs(negation_set, tmp_path):
    """`perturb --dropped` is for generators with precision filters (antonymy); elsewhere it is a
    one-line error, and it may not name the set's own output."""
    params, target = negation_set
    with pytest.raises(ConfigError, match="--dropped: the tautology generator keeps no dropped pairs"):
        build_set("negation", target, tmp_path / "x.parquet", params, dropped=tmp_path / "d.parquet")
    with pytest.raises(ConfigError, match="it is also the output"):
        build_set("antonymy", target, tmp_path / "x.parquet", params, dropped=tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists() and not (tmp_path / "d.parquet").exists()
