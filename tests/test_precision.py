"""The precision filters on real rows: each failure class of issue 13 dropped, good rows kept.

Every sentence here is copied from a file in ../shared/data, and each test
first checks that it is still there, so the cases stay real. A case names the
filter that must drop it (the manifest's ``filter: <name>`` reason), or the
edit it must give.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest

from nlistress.config import deep_merge
from nlistress.manifest import RowCounts
from nlistress.perturb.antonymy import Antonymy
from nlistress.perturb.base import Context
from nlistress.perturb.numerical import Numerical
from nlistress.perturb.precision import SourceGrammar, drop_reason
from nlistress.perturb.runner import read_input
from nlistress.perturb.tautology import conjoin
from nlistress.resources import spacy_pipeline, wordnet
from nlistress.swap.lexicons import substitutes
from nlistress.swap.occurrences import OccurrenceFilter

from .support import SHARED_DATA, canonical_table, project_params, shared_override


@pytest.fixture(scope="module")
def params() -> dict[str, Any]:
    return deep_merge(project_params(), shared_override())


def _in_file(rel: str, text: str) -> None:
    """``text`` occurs (JSON-escaped) in the real file ``../shared/data/<rel>``."""
    assert json.dumps(text)[1:-1] in (SHARED_DATA / rel).read_text(encoding="utf-8"), text


MNLI = "mnli/multinli_1.0_dev_matched.jsonl"
SNLI = "snli/snli_1.0_dev.jsonl"

# -- antonymy ------------------------------------------------------------------

ANTONYMY_DROPPED = [
    # quantifiers and determiners ("A few" -> "A many", "most others" -> "least others")
    ("A few foreigners were left free after the purge on foreigners.", "excluded_lemma"),
    ("For the beginner ' and for most others, too ' Beaune is the place to buy.", "excluded_lemma"),
    # negation and downward-entailing scope
    ("There's really no discernible feeling when to comes to uploading.", "negation"),
    ("James Surowiecki asserts that the equity stock option market contributes nothing to the "
     "smooth functioning of capital markets.", "negation"),
    # questions, imperatives, modals
    ("Is it possible there would be a decline in all the Postal Service volumes?", "question"),
    ("Be careful of the overseer.", "imperative"),
    ("It might take a long time to do that because getting inside a person's head takes time.",
     "modal"),
    # generic statements whose edit is compatible ("fed up with women who have become rich")
    ("The tabs are getting fed up with women who have become rich and famous by telling "
     "everyone else how to be better.", "conditional"),
    # word senses and names ("a random House spokesman" -> "nonrandom", "fine view")
    ("Toobin spoke through a random House spokesman.", "rare_sense"),
    ("A little past the small theater built for local dramatic performances, there's a fine view "
     "across the bay to Basse-Terre.", "position"),
    ("The public health official's version of the line, Take my wife, please, is Tell Americans "
     "to eat kale five times a week.", "position"),
]
ANTONYMY_KEPT = [
    ("The air is warm.", "The air is cool."),
    ("Pollution is very dangerous to our health.", "Pollution is very safe to our health."),
    ("Julius was right that we were incorrect.", "Julius was right that we were correct."),
    ("He was very tall.", "He was very short."),
    ("The phone modem was easy to set up and use.", "The phone modem was difficult to set up and use."),
]


def _antonymy(params: dict[str, Any], text: str) -> tuple[list[str], RowCounts]:
    settings = {k: v for k, v in params["stress"]["tests"]["antonymy"].items() if k != "generator"}
    table = pa.table({"uid": ["mnli:dev_matched:1"], "premise": [text], "hypothesis": [text]})
    counts = RowCounts(unit="sentence")
    rows = Antonymy("antonymy", settings, params).generate(
        table, Context("mnli", "dev_matched", "en", 2018), counts
    )
    hypotheses = [r.hypothesis for r in rows]
    counts.check()
    return hypotheses, counts


@pytest.mark.parametrize(("text", "reason"), ANTONYMY_DROPPED)
def test_antonymy_drops_each_failure_class(params, text, reason):
    _in_file(MNLI, text)
    hypotheses, counts = _antonymy(params, text)
    assert hypotheses == []
    assert counts.dropped[drop_reason(reason)] == 1, counts.dropped


@pytest.mark.parametrize(("text", "edited"), ANTONYMY_KEPT)
def test_antonymy_keeps_asserted_properties(params, text, edited):
    _in_file(MNLI, text)
    hypotheses, counts = _antonymy(params, text)
    assert hypotheses == [edited] and counts.kept == 1


# -- numerical -------------------------------------------------------------------

NUMERICAL_DROPPED = [
    # questions and imperatives kept as premises
    ("test", "How far can Bill travel on a windy day in 21 minutes?"),
    ("dev", "If a cellphone is purchased for Rs.490 and sold for Rs.465.50 find the loss percentage?"),
    # entities that are NER mistakes: amounts, variables, points
    ("dev", "If P represents a single digit in the four digit number x=18P6, how many different "
            "values of P are there such that x is divisible by 8?"),
    ("test", "Minor arc AC is 160°, and minor arc BD is 150°."),
    # numbers in hyphen compounds, coordinated under one "less than", after "about"
    ("dev", "The H.C.F and L.C.M. of two numbers are 50 and 100 respectively."),
    ("test", "On a normal day Bill usually averages about 15 mph when riding his bicycle."),
]
NUMERICAL_KEPT = [("test", "Anna has 4 books."), ("dev", "Scott bought three bags of candy with 75 pieces in each one.")]


@pytest.fixture(scope="module")
def numerical(params, tmp_path_factory):
    """Premises of the numerical sets of the real AQuA-RAT dev and test files."""
    folder = tmp_path_factory.mktemp("precision_numerical")
    settings = {k: v for k, v in params["stress"]["tests"]["numerical"].items() if k != "generator"}
    premises = {}
    for split in ("dev", "test"):
        source = canonical_table(params, "aqua_rat", split, f"aqua_rat/{split}.json", folder)
        table, _ = read_input(source, "aqua", params)
        counts = RowCounts(unit="sentence")
        rows = list(Numerical("numerical", settings, params).generate(
            table, Context("aqua_rat", split, "en", 2018), counts))  # fmt: skip
        premises[split] = {r.premise for r in rows if r.label != "neutral"}
        premises[f"{split}_questions"] = " ".join(table["question"].to_pylist())
    return premises


@pytest.mark.parametrize(("split", "sentence"), NUMERICAL_DROPPED)
def test_numerical_drops_each_failure_class(numerical, split, sentence):
    assert sentence in " ".join(numerical[f"{split}_questions"].split())  # a real question
    assert sentence not in numerical[split]


@pytest.mark.parametrize(("split", "sentence"), NUMERICAL_KEPT)
def test_numerical_keeps_plain_statements(numerical, split, sentence):
    assert sentence in numerical[split]


# -- word-pair swaps ---------------------------------------------------------------


def test_substitutes_come_from_the_antonym_sense_only(params):
    """I_TA2/I_TA3 substitutes: "A wave in all black", "A cat is jumping" are gone."""
    for_man = {word for word, _, _ in substitutes("man", "woman", params)}
    assert {"gentleman", "adult", "guy"} <= for_man and not {"cat", "world", "wave"} & for_man
    for_woman = {word for word, _, _ in substitutes("woman", "man", params)}
    assert {"lady", "girl"} <= for_woman and not {"wave", "son", "wife"} & for_woman
    # "outdoors" stands in for the adverb "outside", never for the noun ("the outdoors of a house")
    for_outside = set(substitutes("outside", "inside", params))
    assert ("outdoors", "synonym", "r") in for_outside and not any(
        word == "outdoors" and pos == "n" for word, _, pos in for_outside
    )


@pytest.mark.parametrize(
    ("text", "word", "other", "reason"),
    [
        # a compound modifier swapped: "soccer field" -> "game field"
        ("Two men in uniforms are in soccer field behind a line waiting to play .", "soccer",
         "game", "compound"),
        # a particle: "patching up a hut" -> "patching down a hut"
        ("A roofer is patching up a hut in a village .", "up", "down", "part_of_speech"),
        # a gendered noun in a sentence with a gendered pronoun
        ("A woman brushes her teeth .", "woman", "man", "gendered_pronoun"),
        # the source's own error ("A young women") stays in every row built from it
        ("A young women , in a black shirt , is holding a bike , while a young boy is holding a "
         "skateboard .", "black", "white", "source_grammar"),
    ],
)
def test_swap_occurrences_that_cannot_be_swapped(params, text, word, other, reason):
    _in_file(SNLI, text)
    occurrences = OccurrenceFilter(params, "swap.filters", {})
    occurrences.check_grammar()
    relation = "hypernym" if other == "game" else "antonym"
    allowed = occurrences.pair_pos(word, other, relation)
    assert reason in occurrences.reasons(text, word, allowed, other)


def test_swap_occurrence_that_can_be_swapped(params):
    text = "A man is jumping over a rock ."
    _in_file(SNLI, text)
    occurrences = OccurrenceFilter(params, "swap.filters", {})
    occurrences.check_grammar()
    assert occurrences.reasons(text, "man", occurrences.pair_pos("man", "woman", "antonym"), "woman") == []


# -- distraction and noise -----------------------------------------------------------


def test_an_abbreviation_keeps_its_period():
    for text, expected in [
        ("Are you from the U.S.?", "Are you from the U.S. and true is true?"),
        ("Benchmarked by U.S.", "Benchmarked by U.S. and true is true."),
    ]:
        _in_file(MNLI, text)
        assert conjoin(text, " and true is true", ".!?;:…\"'”’)]")[0] == expected


def test_a_spelling_error_never_makes_another_word(params, tmp_path):
    """ "form" -> "from" would change the meaning: the real_word filter redraws it."""
    from nlistress.perturb.spelling import SpellingError

    source = canonical_table(params, "mnli", "dev_matched", MNLI, tmp_path)
    table, _ = read_input(source, "nli", params)
    is_word = SpellingError("spelling_error", {}, params)._lexicon(table)
    assert is_word("from") and is_word("form") and is_word("forms") and not is_word("fomr")


# -- source grammar -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("A man is seraching for something", "typo 'seraching'"),
        ("An old women in a purple skirt is gardening with a old tool .", "singular determiner"),
        ("indain woman playing cricket with white woman", "no determiner on 'woman'"),
        ("A brown a dog and a black dog in the edge of the ocean with a wave under them boats are "
         "on the water in the background .", "two determiners"),
    ],
)
def test_source_grammar_finds_errors_the_source_already_has(params, text, fault):
    _in_file(SNLI, text)
    doc = spacy_pipeline(params)(text)
    assert any(f.startswith(fault) for f in SourceGrammar(wordnet(params)).faults(doc[:])), fault


@pytest.mark.parametrize(
    "text",
    [
        "A man wears a green mask that turns him into a superhero .",  # a new word, not a typo
        "A child in winter gear is hiding from his friends in a cave made of snow .",  # mass noun
        "Someone is selling oranges",
        # "a" belongs to the jacket, not to "jeans"
        "A child in a jeans jacket and shorts holding up a white dress as another darker-skinned "
        "child looks at it .",
    ],
)
def test_source_grammar_passes_well_formed_sentences(params, text):
    _in_file(SNLI if "jeans" not in text else "snli/snli_1.0_test.jsonl", text)
    doc = spacy_pipeline(params)(text)
    assert SourceGrammar(wordnet(params)).faults(doc[:]) == []
