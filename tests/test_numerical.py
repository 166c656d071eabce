"""The numerical-reasoning test set, built from the real AQuA-RAT dev and test files.

Every generated pair is checked by an independent parser: it reads the
premise's number at its recorded span and the hypothesis's "less than" /
"more than" + number, and re-derives the label from the inequality, so a
wrong label cannot hide behind the generator's own bookkeeping.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from decimal import Decimal

import pyarrow.parquet as pq
import pytest

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings, deep_merge
from nlistress.errors import ConfigError
from nlistress.manifest import RowCounts, write_manifest
from nlistress.perturb.base import Context, rows_to_table
from nlistress.perturb.numerical import (
    DROP_ANSWER,
    FILTERS,
    Number,
    Numerical,
    apply_edit,
    change_value,
    find_numbers,
    format_like,
    is_answer_line,
    parse_answer,
)
from nlistress.resources import spacy_pipeline

from .support import ROOT, SHARED_DATA, project_params, read_csv, shared_override

SEED = 2018
SPLITS = ("dev", "test")
# Problems of the real files whose correct answer is not one number (parse_answer; no spaCy involved).
NOT_NUMERICAL = {"dev": 35, "test": 39}


def _settings(params):
    return {k: v for k, v in params["stress"]["tests"]["numerical"].items() if k != "generator"}


def _run(generator, table, split, seed):
    counts = RowCounts(unit=generator.unit)
    rows = list(generator.generate(table, Context("aqua_rat", split, "en", seed), counts))
    return rows, counts


@pytest.fixture(scope="module")
def params():
    return deep_merge(project_params(), shared_override())


@pytest.fixture(scope="module")
def built(params, tmp_path_factory):
    """Canonical AQuA-RAT dev/test tables and the numerical set of each (seed 2018)."""
    out = tmp_path_factory.mktemp("numerical")
    spec = DatasetSpec.from_params(params, "aqua_rat")
    result = {}
    for split in SPLITS:
        target = out / f"{split}.parquet"
        source = SHARED_DATA / "aqua_rat" / f"{split}.json"
        prepare(spec, split, target, PrepareSettings(), source_path=source)
        table = pq.read_table(target)
        generator = Numerical("numerical", _settings(params), params)
        rows, counts = _run(generator, table, split, SEED)
        result[split] = {
            "table": table,
            "rows": rows,
            "counts": counts,
            "problems": generator.problem_counts,
            "stats": generator.stats,
            "dir": out,
        }
        print(
            f"\naqua_rat/{split}: sentences {json.dumps(counts.as_dict())}"
            f"\n  problems {json.dumps(generator.problem_counts.as_dict())}"
            f"\n  stages {json.dumps(generator.stats)}"
        )
    return result


# ---------------------------------------------------------------------------
# The independent label checker
# ---------------------------------------------------------------------------

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_EDITED = re.compile(
    rf"^(?:(?P<rel>less than|fewer than|more than) )?(?P<cur>(?:\$|£|€|₹|¥|Rs\.?|INR)\s?)?(?P<num>{_NUM})$",
    re.IGNORECASE,
)


def _decimal(text):
    return Decimal(text.replace(",", ""))


def _decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


def check_row(row, change_range):
    """Re-derive a row's label from its text alone (and its recorded spans); return it."""
    p = row.params
    flipped = row.label == "neutral"
    original, edited = (row.hypothesis, row.premise) if flipped else (row.premise, row.hypothesis)
    assert p["edited_side"] == ("premise" if flipped else "hypothesis")

    # The number in the original sentence, at its recorded span.
    x_text = original[p["char_start"] : p["char_end"]]
    assert re.fullmatch(_NUM, x_text), (x_text, row)
    assert x_text == p["number_original"]
    x = _decimal(x_text)
    assert x > 0

    # The replacement in the edited sentence: optional relation, optional currency, number.
    match = _EDITED.match(edited[p["edit_start"] : p["edit_end"]])
    assert match, (edited[p["edit_start"] : p["edit_end"]], row)
    relation = match["rel"].lower() if match["rel"] else None
    y_text = match["num"]
    y = _decimal(y_text)
    assert relation == p["relation"]
    assert y_text == p["number_new"]
    assert p["value_original"] == float(x) and p["value_new"] == float(y)

    # Nothing else changed: the text around the edit is the original's, byte for byte.
    assert edited[: p["edit_start"]] == original[: p["edit_start"]]
    assert edited[p["edit_end"] :] == original[p["char_end"] :]
    currency = original[p["edit_start"] : p["char_start"]]
    assert currency == (match["cur"] or "")
    assert p["edit_start"] == p["char_start"] or relation is not None

    # Same style: decimals kept, separators only where the original had them, y > 0.
    assert _decimals(y_text) == _decimals(x_text)
    assert "," not in y_text or "," in x_text
    assert y > 0
    if y != x:
        unit = Decimal(1).scaleb(-_decimals(x_text))
        low, high = (Decimal(repr(v)) for v in change_range)
        assert min(unit, x * low - unit / 2) <= abs(y - x) <= max(unit, x * high + unit / 2), row

    # The label, from the inequality.
    if not flipped:  # premise: exactly x; hypothesis: relation y (or exactly y)
        if relation is None:
            derived = "entailment" if y == x else "contradiction"
        elif relation in ("less than", "fewer than"):
            derived = "entailment" if x < y else "contradiction"
        else:
            derived = "entailment" if x > y else "contradiction"
    else:  # premise: relation y; hypothesis: exactly x. "< y" allows x but does not force it.
        assert relation is not None
        consistent = x < y if relation in ("less than", "fewer than") else x > y
        derived = "neutral" if consistent else "contradiction"

    rule = {
        ("entailment", True, False): "entailment",
        ("contradiction", False, False): "contradiction-changed",
        ("contradiction", True, True): "contradiction-prefixed",
        ("neutral", True, False): "neutral-flipped",
    }.get((derived, relation is not None, y == x))
    assert rule == p["rule"], (derived, p["rule"], row)
    return derived


# ---------------------------------------------------------------------------
# Real data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("split", SPLITS)
def test_set_is_built_and_counted(built, split):
    result = built[split]
    rows, counts, problems, stats = (
        result["rows"],
        result["counts"],
        result["problems"],
        result["stats"],
    )
    counts.check()
    problems.check()
    assert counts.unit == "sentence" and counts.kept > 0
    assert len(rows) == 3 * counts.kept == stats["rows"]
    assert stats["premises"] == counts.kept and stats["sentences_read"] == counts.input
    assert problems.input == result["table"].num_rows == stats["problems_read"]
    assert problems.dropped[DROP_ANSWER] == NOT_NUMERICAL[split]
    filters = {f"filter: {name}" for name in FILTERS}
    assert set(counts.dropped) - filters <= {
        "answer not numerical",
        "rationale longer than 5 sentences",
        "no number",
        "no changeable number (only fractions, ratios, times, ordinals, zero, names)",
        "no PERSON/GPE/LOC/ORG entity",
    }
    assert {"filter: question", "filter: source_grammar"} <= set(counts.dropped)
    # Sentence units: every sentence of a dropped problem is dropped under the problem's reason.
    assert counts.dropped[DROP_ANSWER] >= problems.dropped[DROP_ANSWER]
    assert (
        stats["sentences_in_kept_problems"]
        == counts.input
        - counts.dropped[DROP_ANSWER]
        - (counts.dropped["rationale longer than 5 sentences"])
    )
    assert (
        stats["premises"] <= stats["sentences_with_number"] <= stats["sentences_in_kept_problems"]
    )


def test_the_committed_census_judges_exactly_the_rows_that_build_today(built):
    """reviews/ judges every row of both sets: a filter change must come with its judgements."""
    judged = read_csv(ROOT / "reviews/stress/numerical/aqua_rat_dev+test.csv")
    assert {(r["uid"], r["premise"], r["hypothesis"]) for r in judged} == {
        (r.uid, r.premise, r.hypothesis) for split in SPLITS for r in built[split]["rows"]
    }


@pytest.mark.parametrize("split", SPLITS)
def test_input_is_every_question_sentence(built, params, split):
    """counts.input is the number of spaCy sentences of all questions, counted independently."""
    nlp = spacy_pipeline(params, disable=("tagger", "attribute_ruler", "lemmatizer"))
    questions = [" ".join(q.split()) for q in built[split]["table"]["question"].to_pylist()]
    total = sum(len(list(doc.sents)) for doc in nlp.pipe(questions, batch_size=256))
    assert built[split]["counts"].input == total


@pytest.mark.parametrize("split", SPLITS)
def test_every_label_is_verified_by_parsing(built, params, split):
    change_range = _settings(params)["change_range"]
    rows = built[split]["rows"]
    derived = [check_row(row, change_range) for row in rows]
    assert derived == [row.label for row in rows]
    assert all(
        row.label_id == {"entailment": 0, "neutral": 1, "contradiction": 2}[row.label]
        for row in rows
    )


@pytest.mark.parametrize("split", SPLITS)
def test_one_pair_of_each_label_per_premise(built, split):
    rows = built[split]["rows"]
    by_sentence = {}
    for row in rows:
        key = (row.source_uid, row.params["sentence_index"])
        by_sentence.setdefault(key, []).append(row.label)
        assert row.uid == f"numerical:{row.source_uid}:s{row.params['sentence_index']}:{row.label}"
        assert (row.dataset, row.split, row.genre, row.perturbation) == (
            "aqua_rat",
            split,
            None,
            "numerical",
        )
    assert all(
        sorted(labels) == ["contradiction", "entailment", "neutral"]
        for labels in by_sentence.values()
    )
    assert len(by_sentence) == built[split]["counts"].kept
    counts = Counter(row.label for row in rows)
    assert counts["entailment"] == counts["neutral"] == counts["contradiction"] == len(by_sentence)
    assert len({row.uid for row in rows}) == len(rows)
    # The neutral pair is the entailed pair flipped.
    pairs = {(r.source_uid, r.params["sentence_index"], r.label): r for r in rows}
    for source_uid, index in by_sentence:
        ent, neu = pairs[source_uid, index, "entailment"], pairs[source_uid, index, "neutral"]
        assert (neu.premise, neu.hypothesis) == (ent.hypothesis, ent.premise)


@pytest.mark.parametrize("split", SPLITS)
def test_premises_are_question_sentences_with_a_number_and_an_entity(built, params, split):
    labels = set(_settings(params)["entity_labels"])
    questions = {
        uid: " ".join(q.split())
        for uid, q in zip(
            built[split]["table"]["uid"].to_pylist(),
            built[split]["table"]["question"].to_pylist(),
            strict=True,
        )
    }
    for row in built[split]["rows"]:
        original = row.hypothesis if row.label == "neutral" else row.premise
        assert original in questions[row.source_uid]
        assert re.search(r"\d", row.premise)
        assert row.params["entities"]
        for entity in row.params["entities"]:
            label, text = entity.split(":", 1)
            assert label in labels and text in row.premise
        # The changed number is not part of a named entity.
        start, end = row.params["char_start"], row.params["char_end"]
        for entity in row.params["entities"]:
            for occurrence in re.finditer(re.escape(entity.split(":", 1)[1]), original):
                assert not (occurrence.start() <= start and end <= occurrence.end()), row


@pytest.mark.parametrize("split", SPLITS)
def test_problems_kept_have_a_numerical_answer_and_short_rationale(built, split):
    table = built[split]["table"].to_pylist()
    by_uid = {row["uid"]: row for row in table}
    for uid in {row.source_uid for row in built[split]["rows"]}:
        problem = by_uid[uid]
        assert parse_answer(problem["answer"]) is not None
        steps = [
            ln for ln in problem["rationale"].split("\n") if ln.strip() and not is_answer_line(ln)
        ]
        assert len(steps) <= 5  # max_rationale_sentences (the authors' code: 5 lines)


def test_same_seed_same_rows_other_seed_other_numbers(built, params):
    table = built["dev"]["table"]
    again, _ = _run(Numerical("numerical", _settings(params), params), table, "dev", SEED)
    assert [r.as_record() for r in again] == [r.as_record() for r in built["dev"]["rows"]]
    assert rows_to_table(again).equals(rows_to_table(built["dev"]["rows"]))

    other, other_counts = _run(
        Numerical("numerical", _settings(params), params), table, "dev", SEED + 1
    )
    assert other_counts.as_dict() == built["dev"]["counts"].as_dict()  # the same premises
    assert [(r.source_uid, r.params["sentence_index"], r.label) for r in other] == [
        (r.source_uid, r.params["sentence_index"], r.label) for r in built["dev"]["rows"]
    ]
    entailed = [
        (a, b) for a, b in zip(built["dev"]["rows"], other, strict=True) if a.label == "entailment"
    ]
    changed = sum(a.params["number_new"] != b.params["number_new"] for a, b in entailed)
    assert changed >= 0.8 * len(entailed)


def test_subset_gets_the_same_pairs(built, params):
    """Seeding per sentence: building from a subset of the problems gives the same rows for them."""
    table = built["dev"]["table"]
    kept_uids = sorted({r.source_uid for r in built["dev"]["rows"]})[::2]
    indices = [i for i, uid in enumerate(table["uid"].to_pylist()) if uid in set(kept_uids)]
    subset, _ = _run(
        Numerical("numerical", _settings(params), params), table.take(indices), "dev", SEED
    )
    expected = [r for r in built["dev"]["rows"] if r.source_uid in set(kept_uids)]
    assert subset and [r.as_record() for r in subset] == [r.as_record() for r in expected]


def test_manifest_accounting(built, params):
    result = built["dev"]
    output = result["dir"] / "numerical.dev.parquet"
    pq.write_table(rows_to_table(result["rows"]), output)
    manifest = write_manifest(
        output, result["counts"], {"path": "dev.parquet"}, {"test": "numerical"}
    )
    rows = manifest["rows"]
    assert rows["unit"] == "sentence"
    assert rows["input"] == rows["kept"] + sum(rows["dropped"].values())
    assert pq.read_table(output).num_rows == 3 * rows["kept"]
    assert "2,500" in Numerical("numerical", _settings(params), params).card_notes(manifest)


# ---------------------------------------------------------------------------
# The pieces, on small inputs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("32400", 32400), ("250 m", 250), ("$905", 905), ("10,800", 10800), ("50.25%", 50.25),
        ("12,096 pounds of water", 12096), ("Rs.16002", 16002), ("Rs. 1934.40", 1934.40),
        ("88,000$.", 88000), ("3hours", 3), ("17.456 m/sec", 17.456), ("-20%", -20),
        ("130°", 130), (".1011", 0.1011), ("28000 rs.", 28000), ("3% Profit", 3), (" 2", 2),
        ("10 million", 10), ("46.", 46),
    ],
)  # fmt: skip
def test_numerical_answers(text, value):
    assert parse_answer(text) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "1/2", "16:15", "(0,3)", "4^5", "5π", "40*pi", "3000pi", "2500p", "1.21x", "10,8",
        "12000,20000", "59, 43", "-5 and 3", "on the 17th day", "None of these", "7!", "10!/2",
        "46 minutes and 12 seconds", "12 am on the next day", "4 1/3 km/h", "A)59", "", None,
    ],
)  # fmt: skip
def test_non_numerical_answers(text):
    assert parse_answer(text) is None


def test_answer_lines():
    for line in (
        "Answer: C",
        "Correct answer - A",
        "The answer is B.",
        "ANS:D",
        "Option C",
        "Answer (B)",
    ):
        assert is_answer_line(line), line
    for line in ("Answer: 24", "x = 5", "Option A gives 20 apples"):
        assert not is_answer_line(line), line


@pytest.mark.parametrize(
    ("sentence", "numbers"),
    [
        ("Tim has 350 pounds of cement in 100, 50, and 25 pound bags", ["350", "100", "50", "25"]),
        ("It costs $5,000 or Rs.465.50 or Rs 8 in total.", ["5,000", "465.50", "8"]),
        ("Take 1/2 of it and 3:4 of that at 10:30 or 8.15 a.m today.", []),
        ("On the 2nd day x+5 and 3x and 2^5 and 3-4 and -5 and 10am.", []),
        ("A 750m channel, 20 kg, 10km and a 3-letter code.", ["750", "20", "10", "3"]),
        ("It holds 1 1/2 cups and 0 balls and 72π cubic inches.", []),
        ("Version 1.2.3 and list 1,2 and 1990s.", []),
    ],
)
def test_find_numbers(sentence, numbers):
    assert [n.text for n in find_numbers(sentence)] == numbers


def test_numbers_inside_entities_are_kept_as_they_are():
    sentence = "Boeing 747 flies 300 people."
    assert [n.text for n in find_numbers(sentence, [(0, 10)])] == ["300"]


def test_change_value_is_never_x_never_zero_and_keeps_precision():
    rng = random.Random(0)
    for _ in range(5000):
        decimals = rng.choice((0, 0, 1, 2))
        x = Decimal(rng.choice((rng.randint(1, 20), rng.randint(1, 10**6)))).scaleb(-decimals)
        y, direction = change_value(x, decimals, rng.choice((1, -1)), rng.uniform(0.1, 1.0))
        assert y != x and y > 0
        assert y == y.quantize(Decimal(1).scaleb(-decimals))
        assert (y > x) == (direction == 1)


def test_format_like_keeps_the_style():
    assert format_like(Decimal("1234567"), "5,000") == "1,234,567"
    assert format_like(Decimal("900"), "1,000") == "900"
    assert format_like(Decimal("1234"), "750") == "1234"
    assert format_like(Decimal("3.5"), "4.25") == "3.50"
    assert format_like(Decimal("3.456"), "4.2") == "3.5"


def test_apply_edit_puts_the_relation_before_the_currency_and_capitalises():
    sentence = "John paid $200 for 3 books."
    number = find_numbers(sentence)[0]
    edit = apply_edit(sentence, number, "300", "less than")
    assert edit.text == "John paid less than $300 for 3 books."
    assert edit.text[edit.edit_start : edit.edit_end] == "less than $300"
    changed = apply_edit(sentence, number, "150", None)
    assert changed.text == "John paid $150 for 3 books."
    assert changed.text[changed.edit_start : changed.edit_end] == "150"
    first = apply_edit("350 people met John.", Number("350", 0, 3), "300", "more than")
    assert first.text == "More than 300 people met John."


@pytest.mark.parametrize(
    ("sentence", "number", "wording"),
    [
        # things counted take "fewer than" (a judged row read "less than 17 musicians")
        ("Rijon is the bass player in a wedding band which has 9 musicians", "9", "fewer than"),
        ("So far, 12 people have signed up for the trip.", "12", "fewer than"),
        # amounts, units, money and shares keep "less than"
        ("As a result, it arrives 2 hours late than its normal time.", "2", "less than"),
        ("Her faulty spring balance reads 0.9 kg for a KG.", "0.9", "less than"),
        ("Chartering the plane costs $5,000.", "5,000", "less than"),
        ("Solution A has 5% salt concentration and remaining water.", "5", "less than"),
    ],
)
def test_less_than_is_fewer_than_before_things_counted(params, sentence, number, wording):
    assert sentence in " ".join(
        json.loads(line)["question"] for line in (SHARED_DATA / "aqua_rat/dev.json").open(encoding="utf-8")
    )
    generator = Numerical("numerical", _settings(params), params)
    found = next(n for n in find_numbers(sentence) if n.text == number)
    assert generator._wording(sentence, found, "less than") == wording
    assert generator._wording(sentence, found, "more than") == "more than"


@pytest.mark.parametrize(
    "override",
    [
        {"max_rationale_sentences": -1},
        {"entity_labels": []},
        {"change_range": [0.0, 1.0]},
        {"change_range": [0.5, 1.5]},
        {"change_range": [0.6, 0.5]},
        {"batch_size": 0},
    ],
)
def test_bad_settings_are_refused(params, override):
    with pytest.raises(ConfigError, match=r"stress\.tests\.numerical\."):
        Numerical("numerical", {**_settings(params), **override}, params)
