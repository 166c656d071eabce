"""The `reviewed` generator: a rule-made set narrowed to the rows people judged right.

Every case runs the real antonymy generator (spaCy, WordNet) on real MultiNLI
dev-matched sentences, matched against the committed census of that set
(reviews/stress/antonymy/mnli_dev_matched.census.csv), one sentence per way a
row can fare: passed by every judge, its label judged wrong, judged
ungrammatical, or built with text no judge saw.
"""

from __future__ import annotations

import csv
from typing import Any

import pyarrow as pa
import pytest

from nlistress.config import deep_merge
from nlistress.errors import ConfigError, DataError
from nlistress.manifest import RowCounts
from nlistress.perturb import make_generator
from nlistress.perturb.base import Context
from nlistress.perturb.reviewed import DROP_BY_ANSWER, DROP_UNANSWERED, DROP_UNJUDGED

from .support import ROOT, project_params, read_csv, shared_override

CENSUS = ROOT / "reviews/stress/antonymy/mnli_dev_matched.census.csv"
# (source uid, side, sentence) of census rows, and what the census says of each
PASSED = ("mnli:dev_matched:1003", "hypothesis", "It is absolutely correct.")
LABEL_WRONG = ("mnli:dev_matched:1012", "hypothesis", "Ibizan folklore is available in a written format.")
UNGRAMMATICAL = ("mnli:dev_matched:3012", "hypothesis", "The censure and community service are very important.")


@pytest.fixture(scope="module")
def params() -> dict[str, Any]:
    return deep_merge(project_params(), shared_override())


def _table(*sources: tuple[str, str, str]) -> pa.Table:
    return pa.table({
        "uid": [uid for uid, _, _ in sources],
        "premise": [text if side == "premise" else "" for _, side, text in sources],
        "hypothesis": [text if side == "hypothesis" else "" for _, side, text in sources],
    })  # fmt: skip


def _reviewed(params: dict[str, Any], review: Any = CENSUS, **settings: Any) -> Any:
    test = {"generator": "reviewed", "base": "antonymy", "reviews": {"mnli/dev_matched": str(review)},
            **settings}  # fmt: skip
    return make_generator("antonymy_reviewed", deep_merge(params, {"stress": {"tests": {"antonymy_reviewed": test}}}))


def _run(generator: Any, table: pa.Table, split: str = "dev_matched") -> tuple[list[Any], RowCounts]:
    counts = RowCounts(unit=generator.unit)
    rows = list(generator.generate(table, Context("mnli", split, "en", 2018), counts))
    counts.check()
    return rows, counts


def test_the_census_answers_of_these_rows_are_as_the_cases_say():
    census = {r["uid"]: r for r in read_csv(CENSUS)}
    answers = {uid: (census[f"antonymy:{uid}:{side}:{i}"]["label_correct"],
                     census[f"antonymy:{uid}:{side}:{i}"]["grammatical"])
               for (uid, side, _), i in ((PASSED, 3), (LABEL_WRONG, 3), (UNGRAMMATICAL, 7))}  # fmt: skip
    assert answers == {PASSED[0]: ("yes", "yes"), LABEL_WRONG[0]: ("no", "yes"), UNGRAMMATICAL[0]: ("yes", "no")}


def test_only_rows_every_judge_passed_are_kept(params):
    generator = _reviewed(params)
    rows, counts = _run(generator, _table(PASSED, LABEL_WRONG, UNGRAMMATICAL))
    assert [r.hypothesis for r in rows] == ["It is absolutely incorrect."]
    # the row keeps the base test's uid and provenance: it is the judged row itself
    assert rows[0].uid == "antonymy:mnli:dev_matched:1003:hypothesis:3"
    assert rows[0].perturbation == "antonymy"
    assert counts.as_dict() == {"unit": "row", "input": 3, "kept": 1, "dropped": {
        DROP_BY_ANSWER["label_correct"]: 1, DROP_BY_ANSWER["grammatical"]: 1}}  # fmt: skip
    stats = generator.extra_stats()
    assert stats["review"]["path"] == str(CENSUS) and stats["review"]["rows"] == len(read_csv(CENSUS))
    assert stats["base"]["test"] == "antonymy" and stats["base"]["rows"]["kept"] == 3


def test_require_names_the_answers_a_row_must_have(params):
    rows, counts = _run(_reviewed(params, require=["label_correct"]), _table(PASSED, LABEL_WRONG, UNGRAMMATICAL))
    assert len(rows) == 2 and counts.dropped == {DROP_BY_ANSWER["label_correct"]: 1}


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
    rows, counts = _run(_reviewed(params, review), _table(PASSED, UNGRAMMATICAL))
    assert rows == [] and counts.dropped == {DROP_UNJUDGED: 1, DROP_UNANSWERED: 1}


def test_a_split_without_a_review_is_a_one_line_error(params):
    with pytest.raises(ConfigError, match=r"antonymy_reviewed\.reviews: no review of mnli/dev_mismatched "
                                          r"\(reviewed: mnli/dev_matched\)"):  # fmt: skip
        _run(_reviewed(params), _table(PASSED), split="dev_mismatched")


def test_a_bad_answer_in_the_review_names_its_line(params, tmp_path):
    review = tmp_path / "census.csv"
    lines = CENSUS.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace('"yes","yes"', '"maybe","yes"', 1)
    review.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"census\.csv, line 3: column 'label_correct': expected yes or no"):
        _run(_reviewed(params, review), _table(PASSED))


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
    listed = deep_merge(params, {"stress": {"sets": {"mnli/dev_mismatched": ["antonymy", "antonymy_reviewed"]}}})
    with pytest.raises(ConfigError, match=r"stress\.sets\.mnli/dev_mismatched: test 'antonymy_reviewed' has no "
                                          r"review of mnli/dev_mismatched \(stress\.tests\.antonymy_reviewed\.reviews "
                                          r"names mnli/dev_matched\)"):  # fmt: skip
        test_targets(listed, "stress")
