"""Which occurrences of a word pair may be swapped: precision filters read off spaCy.

A lexicon pair matches by spelling (``tokens.WORD``), but a swap only makes a
coherent sentence, and a rule only decides its label, when each occurrence is
the word the lexicon means, used on its own. Every occurrence of w1 in the
premise and of w2 in the hypothesis (the swap replaces them all) must pass the
switched-on filters (``swap.filters``); a pair that fails one is dropped with
all its rows, and an example left without pairs is counted in the manifest as
``filter: <name>``.

``part_of_speech``
    spaCy's part of speech is one in which WordNet relates the two words
    (nouns for hypernym pairs): "up"/"down" as particles ("patching up a hut"),
    "standing" as a verb for the adjective pair standing/running water.
``compound``
    the word is split by spaCy (a hyphenated compound), is a compound
    modifier or has one ("soccer ball" -> "game ball", "baseball game"), or
    forms a WordNet multiword lemma with a neighbour ("hot dog").
``named_entity``
    the word is a proper noun or inside a named entity.
``bare_noun``
    a singular common noun with no determiner, possessive or number ("play
    football" -> "play game", "at night" -> "at day"): a count noun in its
    place is ungrammatical.
``agreement``
    the sentence already disagrees in number around the word ("Three woman
    are standing"), which any edit would keep, or the swap would put "a"
    before a plural-only noun ("uses a tool" -> "uses a scissors").
``fixed_expression``
    "old"/"young" measured in years ("forty years old" -> "forty years young"),
    a complement only the adjective selects ("a room full of pictures" -> "a
    room empty of pictures"; not when one word is the other with a negative
    prefix), and "same ... as" ("the same direction as him" -> "the other
    direction as him").
``gendered_pronoun``
    a gendered noun (man, woman, girl, ...) would change in a sentence with a
    gendered pronoun ("A man brushes her teeth"), or one would stand where
    "female"/"male" already says the gender ("a female adult" -> "a female
    woman").
``question``, ``negation``, ``modal``, ``conditional``
    the checks of :mod:`nlistress.perturb.precision` on the occurrence: a
    pair under negation or a modal does not keep the contradiction a rule
    asserts ("is not sitting").
``source_grammar``
    the premise or hypothesis was ungrammatical before any swap (a typo, "A
    young women", "woman drinks a beer": :class:`~nlistress.perturb.source_grammar.SourceGrammar`);
    every row built from it would be too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from ..perturb.precision import (
    SELECTED_PREPOSITIONS,
    FilterSwitch,
    scope_reasons,
    sentence_reasons,
    wordnet_compound,
)
from ..perturb.source_grammar import PLURALIA, SourceGrammar, WordFrequencyBounds
from ..perturb.wording import negative_prefix
from ..progress import with_progress
from ..resources import WORDNET_POS, spacy_pipeline, wordnet
from .tokens import WORD

log = logging.getLogger(__name__)

FILTERS = (
    "part_of_speech",
    "compound",
    "named_entity",
    "bare_noun",
    "agreement",
    "fixed_expression",
    "gendered_pronoun",
    "question",
    "negation",
    "modal",
    "conditional",
    "source_grammar",
)
#: nouns whose swap changes a referent's gender
GENDERED = frozenset(
    {
        *("man", "woman", "boy", "girl", "male", "female", "husband", "wife", "mother"),
        *("father", "brother", "sister", "son", "daughter", "king", "queen", "gentleman"),
        *("lady", "guy", "gal", "mom", "dad", "mum", "grandmother", "grandfather", "aunt"),
        *("uncle", "nephew", "niece", "bride", "groom", "actor", "actress", "waiter"),
        *("waitress", "boyfriend", "girlfriend", "sir", "madam", "mister", "policeman"),
        *("policewoman", "businessman", "businesswoman", "grandma", "grandpa", "lad", "lass"),
    }
)
PRONOUNS = frozenset({"he", "him", "his", "himself", "she", "her", "hers", "herself"})
_NUMBER_WORDS = frozenset(
    {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "several",
     "many", "few", "these", "those", "both", "multiple", "various", "numerous"}
)
_AGE_UNITS = frozenset({"year", "years", "month", "months", "week", "weeks", "day", "days"})
#: parts of speech whose words say what a sentence is about (shared context, below)
_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})


class OccurrenceFilter:
    """Parses sentences once and says why a word's occurrences in one may not be swapped."""

    def __init__(self, params: Mapping[str, Any], where: str, settings: Mapping[str, Any] | None):
        self.params = params
        self.switch = FilterSwitch(where, FILTERS, settings)
        self._docs: dict[str, Any] = {}
        self._compounds: dict[str, bool] = {}
        self._pair_pos: dict[tuple[str, str, str], frozenset[str]] = {}
        self._grammar: SourceGrammar | None = None
        self._faulty: dict[str, bool] = {}

    def check_grammar(self) -> None:
        """Check each source sentence for errors of its own (``source_grammar``)."""
        if self.switch("source_grammar"):
            self._grammar = SourceGrammar(wordnet(self.params), WordFrequencyBounds.from_params(self.params))

    def parse(self, texts: Iterable[str], batch_size: int = 256) -> None:
        """Parse every distinct text not parsed yet (one ``nlp.pipe`` pass)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._docs]
        if not todo:
            return
        nlp = spacy_pipeline(self.params)
        docs = with_progress(nlp.pipe(todo, batch_size=batch_size), "swap", "sentences parsed", log, total=len(todo))
        for text, doc in zip(todo, docs, strict=True):
            self._docs[text] = doc

    def doc(self, text: str) -> Any:
        if text not in self._docs:
            self.parse([text])
        return self._docs[text]

    def _content_lemmas(self, text: str, leave_out: frozenset[str]) -> set[str]:
        """Lower-cased lemmas of ``text``'s content words that are not stop words, without the
        words of ``leave_out`` (matched as written or as lemma)."""
        return {
            t.lemma_.lower()
            for t in self.doc(text)
            if t.pos_ in _CONTENT_POS and not t.is_stop
            and t.lower_ not in leave_out and t.lemma_.lower() not in leave_out
        }

    def shares_context(self, premise: str, hypothesis: str, pair: frozenset[str]) -> bool:
        """Premise and hypothesis share a content word besides the swapped ``pair``.

        Without one ("A woman is roller-skating down the wall" / "A man is paying for
        lunch"), SNLI's contradiction rests on its annotators reading both captions as one
        photo: a reader of the text alone may take them for two people, and strict judges
        split on such rows, so no rule decides the swapped row's label.
        """
        return bool(self._content_lemmas(premise, pair) & self._content_lemmas(hypothesis, pair))

    def pair_pos(self, a: str, b: str, relation: str) -> frozenset[str]:
        """WordNet parts of speech in which ``a`` and ``b`` stand in ``relation``.

        Hypernym pairs are nouns. An antonym pair not in WordNet (a user's
        list) may be any content word.
        """
        key = (a, b, relation)
        if key not in self._pair_pos:
            if relation != "antonym":
                found = frozenset({"n"})
            else:
                wn = wordnet(self.params)
                found = frozenset(
                    "a" if synset.pos() == "s" else synset.pos()
                    for synset in wn.synsets(a)
                    for lemma in synset.lemmas()
                    if lemma.name().lower() == a
                    and any(x.name().lower() == b for x in lemma.antonyms())
                ) or frozenset({"n", "a", "v"})
            self._pair_pos[key] = found
        return self._pair_pos[key]

    def pos_of(self, text: str, word: str) -> set[str]:
        """WordNet parts of speech of ``word``'s occurrences in ``text`` (spaCy's tags)."""
        doc = self.doc(text)
        return {
            WORDNET_POS[t.pos_] for t in doc if t.lower_ == word and t.pos_ in WORDNET_POS
        }

    def reasons(self, text: str, word: str, allowed_pos: frozenset[str], swapped_with: str) -> list[str]:
        """Switched-on filters that reject some occurrence of ``word`` in ``text``.

        ``allowed_pos`` are WordNet parts of speech the occurrence may have;
        ``swapped_with`` is the word that takes its place (for gender checks).
        """
        doc = self.doc(text)
        out: list[str] = []
        if self._grammar is not None:
            if text not in self._faulty:
                self._faulty[text] = bool(self._grammar.faults(doc[:]))
            if self._faulty[text]:
                out.append("source_grammar")
        for match in WORD.finditer(text):
            if match.group().lower() != word:
                continue
            out += self._occurrence_reasons(doc, match.start(), match.end(), allowed_pos, swapped_with)
        return list(dict.fromkeys(out))

    def _occurrence_reasons(self, doc: Any, start: int, end: int, allowed_pos: frozenset[str],
                            swapped_with: str) -> list[str]:
        on = self.switch
        token = next((t for t in doc if t.idx == start and t.idx + len(t) == end), None)
        if token is None:
            return ["compound"] if on("compound") else []  # spaCy splits it: "t-shirt"
        out: list[str] = []
        if on("part_of_speech") and WORDNET_POS.get(token.pos_) not in allowed_pos:
            out.append("part_of_speech")
        if on("compound") and (
            token.dep_ == "compound"
            or any(c.dep_ == "compound" for c in token.children)
            or wordnet_compound(wordnet(self.params), token, self._compounds)
        ):
            out.append("compound")
        if on("named_entity") and (token.pos_ == "PROPN" or token.ent_iob_ != "O"):
            out.append("named_entity")
        if on("bare_noun") and token.tag_ == "NN" and token.dep_ != "compound" and not any(
            c.dep_ in ("det", "poss", "nummod", "predet") for c in token.children
        ):
            out.append("bare_noun")
        if on("agreement") and token.tag_ == "NN" and any(
            (c.dep_ == "nummod" and c.lower_ not in ("one", "1")) or c.lower_ in _NUMBER_WORDS
            for c in token.children
        ):
            out.append("agreement")
        elif on("agreement") and PLURALIA & {token.lower_, swapped_with} and any(
            c.dep_ == "det" and c.lower_ in ("a", "an") for c in token.children
        ):
            out.append("agreement")  # "uses a tool" -> "uses a scissors"
        if on("fixed_expression") and (
            (token.lower_ in ("old", "young") and (
                any(c.lower_ in _AGE_UNITS for c in token.children)
                or (token.i > 0 and doc[token.i - 1].lower_ in _AGE_UNITS)
            ))
            # a complement the adjective selects: "a room full of pictures" -> "empty of pictures"
            or (token.pos_ == "ADJ" and any(c.dep_ == "prep" and c.lower_ in SELECTED_PREPOSITIONS for c in token.children)
                and not (negative_prefix(swapped_with, token.lower_) or negative_prefix(token.lower_, swapped_with)))
            # "the same direction as him" -> "the other direction as him"
            or (token.lower_ == "same" and any(t.lower_ == "as" and t.i > token.i for t in token.head.subtree))
        ):
            out.append("fixed_expression")
        if (
            on("gendered_pronoun")
            and (token.lower_ in GENDERED or swapped_with in GENDERED)
            and (
                any(t.lower_ in PRONOUNS for t in doc)
                # "a female adult" -> "a female woman": the gender said twice (or against itself)
                or any(c.dep_ == "amod" and c.lower_ in ("female", "male") for c in token.children)
            )
        ):
            out.append("gendered_pronoun")
        out += sentence_reasons(token.sent, self.switch)
        out += scope_reasons(token, self.switch)
        return out
