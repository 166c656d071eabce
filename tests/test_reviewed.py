"""The `reviewed` generator: a rule-made set narrowed to the rows annotators judged right.

Every case runs the real antonymy generator (spaCy, WordNet) on real MultiNLI
dev-matched sentences, matched against the committed census of that set
(reviews/stress/antonymy/mnli_dev_matched.census.csv), one sentence per way a
row can fare: passed by every judge, its label judged wrong, judged
ungrammatical, or built with text no judge saw; and against the committed
judgements of pairs the filters dropped (reviews/dropped/), where a pair both
judges passed is kept, naming its filter.
"""

from __future__ import annotations

import csv
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nlistress.config import deep_merge
from nlistress.errors import ConfigError, DataError
from nlistress.manifest import RowCounts
from nlistress.perturb import make_generator
from nlistress.perturb.base import Context, rows_to_table
from nlistress.perturb.reviewed import DROP_BY_ANSWER, DROP_UNANSWERED, DROP_UNJUDGED

from .support import ROOT, project_params, read_csv, shared_override

CENSUS = ROOT / "reviews/stress/antonymy/mnli_dev_matched.census.csv"
DROPPED = ROOT / "reviews/dropped/stress/antonymy/mnli_dev_matched.pools.csv"
# (source uid, side, sentence) of census rows, and what the census says of each
PASSED = ("mnli:dev_matched:1003", "hypothesis", "It is absolutely correct.")
LABEL_WRONG = ("mnli:dev_matched:1012", "hypothesis", "Ibizan folklore is available in a written format.")
UNGRAMMATICAL = ("mnli:dev_matched:3012", "hypothesis", "The censure and community service are very important.")
# a pair `coordination` dropped ("hate" beside an addition), which every judge of reviews/dropped/ passed
FILTERED_PASSED = ("mnli:dev_matched:8321", "hypothesis", "I hate dancing, you know.")


@pytest.fixture(scope="module")
def params() -> dict[str, Any]:
    return deep_merge(project_params(), shared_override())


def _source(*sources: tuple[str, str, str]) -> pa.Table:
    """A canonical table of the (uid, side, sentence) ``sources``: what the reviewed test reads."""
    return pa.table({
        "uid": [uid for uid, _, _ in sources],
        "premise": [text if side == "premise" else "" for _, side, text in sources],
        "hypothesis": [text if side == "hypothesis" else "" for _, side, text in sources],
    })  # fmt: skip


@pytest.fixture(scope="module")
def source() -> pa.Table:
    """The three census sentences."""
    return _source(PASSED, LABEL_WRONG, UNGRAMMATICAL)


@pytest.fixture(scope="module")
def built(params, source) -> pa.Table:
    """The antonymy set of the three census sentences, as the base test builds it."""
    counts = RowCounts(unit="sentence")
    rows = make_generator("antonymy", params).generate(source, Context("mnli", "dev_matched", "en", 2018), counts)
    return rows_to_table(list(rows))


def _of(table: pa.Table, *sources: tuple[str, str, str]) -> pa.Table:
    """The rows of ``table`` built from ``sources``."""
    return table.filter(pa.array([uid in {u for u, _, _ in sources} for uid in table["source_uid"].to_pylist()]))


def _not_judged(counts: RowCounts) -> dict[str, int]:
    """The drops of pairs a filter dropped that no review judged."""
    return {reason: n for reason, n in counts.dropped.items() if reason.startswith("review: not judged (dropped by")}


def _reviewed(params: dict[str, Any], review: Any = CENSUS, **settings: Any) -> Any:
    reviews = review if isinstance(review, list) else str(review)
    test = {"generator": "reviewed", "base": "antonymy", "reviews": {"mnli/dev_matched": reviews}, **settings}
    return make_generator("antonymy_reviewed", deep_merge(params, {"stress": {"tests": {"antonymy_reviewed": test}}}))


def _run(generator: Any, table: pa.Table, dataset: str = "mnli/dev_matched") -> tuple[list[Any], RowCounts]:
    counts = RowCounts(unit=generator.unit)
    name, split = dataset.split("/")
    rows = list(generator.generate(table, Context(name, split, "en", 2018), counts))
    counts.check()
    return rows, counts


def test_the_census_answers_of_these_rows_are_as_the_cases_say():
    census = {r["uid"]: r for r in read_csv(CENSUS)}
    answers = {uid: (census[f"antonymy:{uid}:{side}:{i}"]["label_correct"],
                     census[f"antonymy:{uid}:{side}:{i}"]["grammatical"])
               for (uid, side, _), i in ((PASSED, 3), (LABEL_WRONG, 3), (UNGRAMMATICAL, 7))}  # fmt: skip
    assert answers == {PASSED[0]: ("yes", "yes"), LABEL_WRONG[0]: ("no", "yes"), UNGRAMMATICAL[0]: ("yes", "no")}


def test_only_rows_every_judge_passed_are_kept(params, source, built):
    generator = _reviewed(params)
    rows, counts = _run(generator, source)
    assert [r.hypothesis for r in rows] == ["It is absolutely incorrect."]
    # the row keeps the base test's uid and provenance: it is the judged row itself
    assert rows[0].uid == "antonymy:mnli:dev_matched:1003:hypothesis:3"
    assert rows[0].perturbation == "antonymy"
    dropped = generator.extra_stats()["base"]["dropped_pairs"]
    assert counts.as_dict() == {"unit": "row", "input": built.num_rows + dropped, "kept": 1, "dropped": {
        DROP_BY_ANSWER["label_correct"]: 1, DROP_BY_ANSWER["grammatical"]: 1, **_not_judged(counts)}}  # fmt: skip
    assert sum(_not_judged(counts).values()) == dropped
    stats = generator.extra_stats()
    assert stats["review"]["paths"] == [str(CENSUS)] and stats["review"]["rows"] == len(read_csv(CENSUS))
    assert stats["kept_by_origin"] == {"kept by the rules": 1}
    # the kept row is the base set's row, to the byte
    assert rows_to_table(rows) == _of(built, PASSED)


def test_a_judged_pair_a_filter_dropped_is_kept_naming_its_filter(params):
    """The filters also drop right labels; a dropped pair both judges passed joins the set, and
    says which filter dropped it. A uid judged in two reviews of a split is an error."""
    table = _source(PASSED, FILTERED_PASSED)
    generator = _reviewed(params, [str(CENSUS), str(DROPPED)])
    rows, counts = _run(generator, table)
    assert [r.hypothesis for r in rows] == ["It is absolutely incorrect.", "I love dancing, you know."]
    assert rows[1].params["filter"] == "coordination"
    assert generator.extra_stats()["kept_by_origin"] == {"dropped by filter coordination": 1, "kept by the rules": 1}
    assert "review: not judged (dropped by filter coordination)" not in counts.dropped
    with pytest.raises(DataError, match=r"antonymy/mnli_dev_matched\.csv: uid '.+' is judged in another "
                                        r"review of mnli/dev_matched too"):  # fmt: skip
        _run(_reviewed(params, [str(CENSUS), str(CENSUS.with_name("mnli_dev_matched.csv"))]), table)


def test_require_names_the_answers_a_row_must_have(params, source):
    rows, counts = _run(_reviewed(params, require=["label_correct"]), source)
    assert len(rows) == 2 and {k: v for k, v in counts.dropped.items() if k not in _not_judged(counts)} == {
        DROP_BY_ANSWER["label_correct"]: 1}


def test_a_row_built_with_other_text_than_was_judged_is_not_kept(params, tmp_path):
    """A base generator that changed its edit cannot inherit the old row's "yes"."""
    review = tmp_path / "census.csv"
    with CENSUS.open(encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))
    for record in records:
        if record["uid"] == "antonymy:mnli:dev_matched:1003:hypothesis:3":
            record["hypothesis"] = "It is absolutely wrong."
        if record["uid"] == "antonymy:mnli:dev_matched:3012:hypothesis:7":
            record["grammatical"] = ""
    with review.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, list(records[0]), quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(records)
    rows, counts = _run(_reviewed(params, review), _source(PASSED, UNGRAMMATICAL))
    assert rows == [] and {k: v for k, v in counts.dropped.items() if k not in _not_judged(counts)} == {
        DROP_UNJUDGED: 1, DROP_UNANSWERED: 1}


def test_a_split_without_a_review_is_a_one_line_error(params, source):
    with pytest.raises(ConfigError, match=r"antonymy_reviewed\.reviews: no review of snli/dev "
                                          r"\(reviewed: mnli/dev_matched, mnli/dev_mismatched\)"):  # fmt: skip
        _run(_reviewed(params), source, dataset="snli/dev")


def test_a_bad_answer_in_the_review_names_its_line(params, source, tmp_path):
    review = tmp_path / "census.csv"
    lines = CENSUS.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace('"yes","yes"', '"maybe","yes"', 1)
    review.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"census\.csv, line 3: column 'label_correct': expected yes or no"):
        _run(_reviewed(params, review), source)


@pytest.mark.parametrize(("settings", "message"), [
    ({"base": None}, r"antonymy_reviewed\.base: expected a string"),
    ({"base": "antonymy_reviewed"}, r"antonymy_reviewed is itself a reviewed test"),
    ({"base": "no_such_test"}, r"unknown test 'no_such_test'"),
    ({"require": ["coherent"]}, r"require"),
])  # fmt: skip
def test_bad_settings_are_refused_before_any_row_is_built(params, settings, message):
    with pytest.raises(ConfigError, match=message):
        _reviewed(params, **settings)


def test_a_reviewed_test_without_a_base_is_refused(params):
    tests = {**params["stress"]["tests"], "antonymy_reviewed": {"generator": "reviewed", "reviews": {"x/y": "z.csv"}}}
    with pytest.raises(ConfigError, match=r"antonymy_reviewed\.base: missing \(the test whose rows were judged\)"):
        make_generator("antonymy_reviewed", {**params, "stress": {**params["stress"], "tests": tests}})


def test_a_base_built_the_authors_way_is_refused(params):
    paper = deep_merge(params, {"stress": {"tests": {"antonymy": {"generator": "antonymy_authors"}}}})
    with pytest.raises(ConfigError, match=r"base: antonymy is built in paper mode"):
        _reviewed(paper)


def test_a_reviewed_test_listed_for_a_split_it_has_no_review_of_fails_before_any_job(params):
    from nlistress.config import test_targets

    assert ("antonymy_reviewed", "mnli", "dev_matched") in test_targets(params, "stress")
    listed = deep_merge(params, {"stress": {"sets": {"snli/dev": ["antonymy", "antonymy_reviewed"]}}})
    with pytest.raises(ConfigError, match=r"stress\.sets\.snli/dev: test 'antonymy_reviewed' has no "
                                          r"review of snli/dev \(stress\.tests\.antonymy_reviewed\.reviews "
                                          r"names mnli/dev_matched, mnli/dev_mismatched\)"):  # fmt: skip
        test_targets(listed, "stress")


def test_perturb_runs_the_base_test_and_counts_every_row(params, source, built, tmp_path):
    """`nlistress perturb antonymy_reviewed` reads what its base test reads (the canonical split)
    and runs it: every row it builds, and every pair its filters dropped, is counted."""
    from nlistress.manifest import manifest_path
    from nlistress.perturb.runner import build_set

    canonical = tmp_path / "dev_matched.parquet"
    pq.write_table(source.append_column("dataset", pa.array(["mnli"] * 3))
                   .append_column("split", pa.array(["dev_matched"] * 3)), canonical)  # fmt: skip
    manifest = build_set("antonymy_reviewed", canonical, tmp_path / "reviewed.parquet", params)
    base = manifest["stats"]["base"]
    assert manifest["source"]["path"] == str(canonical) and base["rows"] == built.num_rows
    assert manifest["rows"]["input"] == base["rows"] + base["dropped_pairs"]
    assert manifest["output_rows"] == manifest["rows"]["kept"] == 1
    assert manifest["params"]["settings"]["base"] == "antonymy" and manifest["params"]["mode"] == "reviewed"
    assert manifest_path(tmp_path / "reviewed.parquet").is_file()


def test_perturb_refuses_what_the_base_test_cannot_read(params, tmp_path):
    from nlistress.perturb.runner import build_set

    wrong = tmp_path / "wrong.parquet"
    pq.write_table(pa.table({"uid": ["a"], "text": ["p"]}), wrong)
    with pytest.raises(DataError, match=r"wrong\.parquet: missing column\(s\) premise, hypothesis"):
        build_set("antonymy_reviewed", wrong, tmp_path / "x.parquet", params)
    assert not (tmp_path / "x.parquet").exists()
