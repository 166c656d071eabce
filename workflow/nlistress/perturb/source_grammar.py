"""Errors a source sentence already has (the ``source_grammar`` precision filter).

A generator that edits one word keeps the rest of the sentence byte for byte,
so a sentence that was ungrammatical before the edit gives ungrammatical rows.
:class:`SourceGrammar` finds such sentences from spaCy's parse and WordNet, and
the antonymy, numerical and swap generators drop them (counted in the manifest
as ``filter: source_grammar``).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..schema import checked_section
from .precision import SPEECH_VERBS, SUBJECT_DEPS, falls_under

#: nouns that go bare after a preposition ("at home", "by car", "on stage", "in bed")
BARE_NOUN_IDIOMS = frozenset(
    {
        *("home", "school", "bed", "work", "church", "college", "class", "town", "foot"),
        *("hand", "car", "bus", "train", "boat", "bike", "bicycle", "horseback", "stage"),
        *("camera", "court", "prison", "jail", "hospital", "university", "office", "sea"),
        *("land", "air", "fire", "board", "duty", "line", "time", "dinner", "lunch"),
        *("breakfast", "night", "day", "top", "front", "back", "side", "television", "tv"),
        *("screen", "paper", "film", "record", "vacation", "holiday", "break", "display"),
        *("sale", "tour", "guard", "hold", "site", "camp", "deck", "shore", "stage", "sight"),
    }
)
#: WordNet classes of nouns that are always countable: a bare singular one lacks its article
#: (artifacts and substances are often mass nouns: "enjoying cake", "in winter gear")
_COUNTABLE_CLASSES = frozenset({"person.n.01", "animal.n.01"})
#: things that lack an article after a preposition ("on the side of hill", "with tool");
#: people and animals are left out there, where bare nouns are roles and kinds ("ran for
#: governor", "the eating of fish")
_COUNTABLE_THINGS = frozenset(
    {"natural_elevation.n.01", "implement.n.01", "vehicle.n.01", "public_transport.n.01",
     "container.n.01", "clothing.n.01"}
)
#: ... except the mass nouns among them
_MASS_THINGS = frozenset(
    {"luggage", "baggage", "pottery", "equipment", "gear", "furniture", "cutlery", "crockery",
     "silverware", "hardware", "tableware", "machinery", "diesel", "transport", "transportation",
     "clothing", "apparel", "attire", "garb", "wear", "underwear", "footwear", "swimwear",
     "sportswear", "outerwear", "knitwear", "headgear", "costume", "dress", "uniform", "camouflage",
     "drag", "denim", "leather", "lingerie", "nightwear", "formalwear", "mourning"}
)
#: trademarks written in lower case as common nouns ("catch a frisbee")
_GENERIC_TRADEMARKS = frozenset({"frisbee", "frisbees", "lego", "legos", "jacuzzi", "velcro", "styrofoam", "popsicle"})
#: adjectives that need a determiner before any noun: "of the total students"
_DEFINITE_ADJECTIVES = frozenset({"total", "entire", "remaining"})
#: words that need "the" before a number: "the remaining 20 students", "the first 3 days"
_DEFINITE_BEFORE_NUMBER = frozenset({"remaining", "first", "last", "next", "following", "same", "other"})
#: nouns a past time names with "last" ("last year"), or "ago" after them ("two days ago")
_TIME_NOUNS = frozenset({"year", "month", "week", "night", "summer", "winter", "spring", "autumn", "season", "time"})
#: verbs whose clause may follow a comma: "I think, it is fine"
_THINKING_VERBS = frozenset({"think", "guess", "suppose", "believe", "mean", "know", "see", "hope", "bet", "reckon"})


def _finite(verb: Any) -> bool:
    """``verb`` or one of its auxiliaries is finite (a tense or a modal)."""
    return verb.tag_ in ("VBZ", "VBP", "VBD", "MD") or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ in ("VBZ", "VBP", "VBD", "MD") for c in verb.children
    )


def _past_time(token: Any) -> bool:
    """``token`` names a time in the past: "last year", "yesterday", "two days ago"."""
    if token.lower_ == "yesterday":
        return True
    if token.lemma_.lower() in _TIME_NOUNS and any(c.lower_ == "last" for c in token.children):
        return True
    return token.lower_ == "ago" or any(c.lower_ == "ago" for c in token.children)


_INDEFINITE_PRONOUNS = frozenset(
    {"someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody", "noone",
     "no-one", "something", "anything", "everything", "nothing"}
)
#: unit symbols, the same after any number ("40 min", "50 km", "55 mph")
_UNIT_SYMBOLS = frozenset(
    {"m", "s", "g", "l", "k", "km", "cm", "mm", "kg", "mg", "ml", "gm", "min", "mins", "hr", "hrs",
     "h", "yr", "yrs", "sec", "secs", "lb", "lbs", "oz", "ft", "mph", "kmph", "kph", "sq", "tv"}
)
_SINGULAR_DETS = frozenset({"a", "an", "this", "that", "each", "every", "another"})
#: singular nouns that may take a plural verb: groups ("The staff are", "A number of people
#: were"), parts and amounts ("The rest are"), and possessive pronouns the tagger reads as nouns
_NOTIONAL_PLURALS = frozenset(
    {"number", "majority", "minority", "lot", "couple", "pair", "group", "variety", "range", "series",
     "percentage", "proportion", "fraction", "portion", "half", "quarter", "third", "rest", "remainder",
     "total", "bulk", "plenty", "set", "kind", "sort", "type", "bunch", "handful", "host", "dozen",
     "hundred", "thousand", "million", "billion", "family", "team", "staff", "crew", "police", "public",
     "government", "audience", "committee", "jury", "board", "class", "crowd", "army", "company",
     "band", "management", "council", "faculty", "personnel", "population", "youth", "clergy", "cattle",
     "people", "media", "data", "none", "all", "each", "either", "neither", "one", "percent", "part",
     "amount", "mass", "mixture", "array", "assortment", "collection", "selection", "sample", "body",
     "community", "congress", "parliament", "party", "union", "club", "firm", "agency",
     "administration", "press", "nation", "herd", "flock", "pack", "fleet", "choir", "orchestra",
     "squad", "troop", "troupe", "cast", "gang", "trio", "duo", "quartet", "quintet", "ensemble",
     "convention", "household", "generation", "mine", "yours", "his", "hers", "ours", "theirs"}
)
#: plurals spelt as the singular ("Fresh fish are for sale") and plurals the tagger reads as
#: singular nouns ("The oxen are", "His headquarters were")
_PLURAL_AS_SINGULAR = frozenset(
    {"fish", "sheep", "deer", "salmon", "trout", "cod", "tuna", "carp", "aircraft", "spacecraft",
     "offspring", "species", "moose", "bison", "buffalo", "swine", "shrimp", "squid", "elk", "oxen",
     "headquarters", "barracks", "means", "crossroads", "alumni", "criteria", "phenomena", "bacteria",
     "fungi", "cacti"}
)
#: verb forms only a plural (or "I"/"you") subject takes
_PLURAL_VERB_FORMS = frozenset({"are", "were", "'re"})
_PLURAL_WORDS = frozenset(
    {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
     "twenty", "hundred", "these", "those", "several", "many", "few", "both", "multiple"}
)
_ARTICLES = frozenset({"a", "an", "the", "this", "that", "these", "those"})
_PREFIXES = ("re", "un", "pre", "co", "non", "over", "under", "out", "mid", "multi", "anti", "mis")
_SUFFIXES = ("s", "es", "ed", "ing", "y", "ly", "er", "ers", "less", "like", "ness", "ee", "ees")
_CAMEL_CASE = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+")
#: compounds whose open spelling is standard too ("Web site"), never a name split in two
_OPEN_SPELLINGS = frozenset({"website"})
#: "from which" after these should be "from whom" ("12 tenants, from which 9 ..."); only a
#: plural common noun after a preposition is checked, where the parse finds the antecedent
_PERSONS = frozenset({"person.n.01"})
#: adverbs that make a simple present a habit ("by the time he arrives, she is usually asleep")
_HABITUAL = frozenset({"usually", "always", "often", "generally", "typically", "normally", "never"})
_SENTENCE_ADVERBS = frozenset({"However", "Therefore", "Moreover", "Furthermore", "Thus", "Hence"})
#: nouns with only a plural form: "a scissors" is wrong
PLURALIA = frozenset({"scissors", "pants", "jeans", "trousers", "shorts", "pliers", "tongs", "glasses"})
#: prepositions that never open a finite clause: "by they are" is "but they are" mistyped
_PREPOSITIONS_ONLY = frozenset({"by", "of", "from", "at", "into", "onto"})
#: subject pronouns that, unlike "we" and "you" ("we Americans"), never stand before a noun
_THIRD_PERSON_SUBJECTS = frozenset({"he", "she", "they"})
#: a number cut from a footnote or list before a sentence's first word: "5 The share of ..."
_FOOTNOTE = re.compile(r"\s*\d+\s+(?:The|A|An|In|It|This|These|Those|There|We|They|He|She)\b")
#: word pairs no English sentence has ("beside of a dog", "since of the pain")
_BAD_BIGRAMS = frozenset({("beside", "of"), ("since", "of"), ("despite", "of"), ("among", "of")})


@functools.cache
def _english_frequencies() -> dict[str, float]:
    """wordfreq's English word frequencies (share of all words), read once per process."""
    from wordfreq import get_frequency_dict

    return get_frequency_dict("en")


@dataclass(frozen=True)
class WordFrequencyBounds:
    """The ``source_grammar`` section of params: where general English's word frequencies
    (wordfreq's Zipf scale, log10 of uses per billion words) tell a word from a slip.

    They decide what the filter calls a typo, so a set's rows depend on them as on
    any other setting; the defaults are those of ``params.yaml``.
    """

    #: a word WordNet lacks that general English uses this often is English ("amidst" 3.9), a
    #: name split in two is a slip when its joined form is this frequent ("Disney land"), and
    #: a WordNet word rarer than this may be a slip for a common one
    rare_zipf: float = 3.0
    #: ... when the common word, one consonant doubled, is at least this much more frequent
    typo_gap: float = 2.0
    #: ... and at least this frequent ("siting" 2.7 for "sitting" 4.9)
    common_zipf: float = 4.5

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> WordFrequencyBounds:
        """The section's bounds (the schema allows only the three, as numbers); defaults for
        a bound it leaves out, or for params with no such section (the Python API)."""
        section = checked_section(params, "source_grammar") if "source_grammar" in params else {}
        return cls(**{name: float(value) for name, value in section.items()})


def _zipf(frequency: float) -> float:
    """A frequency on the Zipf scale (log10 of uses per billion words; 0 for unseen words)."""
    return math.log10(frequency * 1e9) if frequency > 0 else 0.0


class SourceGrammar:
    """Errors a source sentence already has, which every edit of it keeps (``source_grammar``).

    A row whose sentence was ungrammatical before the edit is ungrammatical
    after it, so it cannot count as a well-formed test item. What can be
    told from the parse and a word list:

    - a typo: a lower-case word of six letters or more that is neither a spaCy
      stop word nor a WordNet word (its own form or spaCy's lemma), nor a known
      word with a common prefix or suffix, nor two known words run together,
      but is one edit away from a word attested in SemCor ("seraching",
      "wealthies", "prohobits"), or that general English never uses at all
      (wordfreq's lists: "indescript"); new words ("hoodie", "wetsuit") have
      neither fault and pass, and nor do words common in general English that
      WordNet lacks ("amidst", "versus"). A word of four or five letters counts only when it is
      one edit from a stop word ("beed" for "been"), since short strings are
      one edit from many words. The check reads the word alone, never the rest
      of the input, so a subset of a file is filtered as the whole is;
    - a real word typed for a common one: a rare lower-case word (Zipf below
      ``rare_zipf``) that is a word at least ``typo_gap`` Zipf points more
      frequent, and at least ``common_zipf``, with a doubled consonant
      typed once ("a lady siting on the ground", "commited"). Other one-edit
      neighbours are no evidence: "hissing", "amidst" and "versus" are each one
      edit from a far more common word;
    - a word WordNet knows only as a verb right after "a" ("dressed only in a
      pamper", "A toddle is seated") or only as an adjective heading a noun
      phrase with "a" ("rows a small dingy");
    - words run together in capitals ("near the CityPalace"), a name split from
      the rest of its one-word compound ("a ticket to Disney land"), and "be"
      before a modal ("Harrer was will aware");
    - "which" after a preposition for people ("12 tenants ..., from which 9
      tenants are to be selected"), and a simple present after "by the time" that is no habit
      ("By the time they meet ..., Bob covers 48 km");
    - number disagreement: "a ... villas", "A young women", "Three woman", "grew 2 inch"
      (not in compounds such as "a six-year study", nor "a few days", nor unit
      symbols: "40 min", "70 mph", nor a measure before an adjective: "six foot tall");
    - a present tense with a past time ("Last year ... each has 250 industries");
    - no article before "remaining", "first", "other" ... and a number ("and
      remaining 20 students");
    - a gerund subject with a plural verb ("Flaming are shooting");
    - a bare singular hill, tool, vehicle, container or garment after a preposition
      ("on the side of hill", "cutting something with tool", "with bowler hat"; not
      "by car", "as governor", "in winter gear"), or a bare singular person,
      animal or such thing heading the sentence's first noun phrase ("Street
      performer with ...", "Ugly red car among many"), or after "and" with its
      own modifiers ("a man in a striped shirt and lady in a hat");
    - a word WordNet only knows capitalised, in lower case ("an asian woman");
    - a capitalised person noun after a determiner ("A Man in a blue shirt");
    - a single comma between a subject and its finite verb ("an orange jacket ,
      is sitting"), a sentence ending in a comma, "8% of total students", a
      currency sign after its number ("12$");
    - two articles or demonstratives on one noun with nothing between them
      ("have a done a great job", "the these roles");
    - a person or animal noun (always countable) as subject or object with no
      determiner ("woman drinks a beer"), unless it has a compound modifier
      or a name follows it ("NBA commissioner", "local boy Gates");
    - a sentence adverb capitalised after a comma ("here, However, there is");
    - "it's" for "its" ("popular for it's white sand beach", "It's discount stores are"),
      "'s" on a verb ("If one get's distracted"),
      a bare verb after "be" ("was quickly approve");
    - a second "be" with no "and" ("are wearing striped shirts are in the kitchen");
    - a base-form verb after "he", "she" or "it" ("she also look very weak");
    - a comma splice with no subject ("standing near the water , looks to be
      throwing"), a plural subject with a singular verb ("The elements ... encapsulates"),
      a finite verb used as a modifier ("a newly establishes
      building"), "a" before a plural-only noun ("a scissors"), a comparative
      followed by "that" ("more dangerous that"), "worth of" before an amount,
      and impossible word pairs ("beside of", "since of").
    """

    def __init__(self, wn: Any, bounds: WordFrequencyBounds = WordFrequencyBounds()) -> None:
        from spacy.lang.en.stop_words import STOP_WORDS

        self.wn = wn
        self.bounds = bounds
        self.stop_words = STOP_WORDS
        self._known_words: dict[str, bool] = {}
        self._attested: dict[str, bool] = {}
        self._countable: dict[tuple[str, frozenset[str]], bool] = {}
        self._proper: dict[str, bool] = {}

    def _known(self, word: str) -> bool:
        if word not in self._known_words:
            base = self.wn.morphy(word)
            # (a two-letter base is a detached inflection, not a word: "beed" is not "be" + "ed")
            self._known_words[word] = word in self.stop_words or (
                base is not None and (len(base) > 2 or base in (word, "go", "do"))
            )
        return self._known_words[word]

    def _is_attested(self, word: str) -> bool:
        """A word SemCor has seen (a stop word, or a WordNet lemma with a count)."""
        if word not in self._attested:
            base = self.wn.morphy(word)
            self._attested[word] = word in self.stop_words or (
                base is not None
                and any(
                    lemma.count() > 0
                    for synset in self.wn.synsets(base)
                    for lemma in synset.lemmas()
                    if lemma.name().lower() == base
                )
            )
        return self._attested[word]

    def _derived(self, word: str) -> bool:
        """A known word with an affix ("rehired", "twitchy") or two run together ("waterpark")."""
        if any(word.startswith(p) and self._known(word[len(p):]) for p in _PREFIXES):
            return True
        if any(word.endswith(s) and len(word) - len(s) > 2 and self._known(word[: -len(s)]) for s in _SUFFIXES):
            return True
        return any(
            self._known(word[:i]) and self._known(word[i:]) for i in range(3, len(word) - 2)
        )

    def _typo(self, token: Any) -> bool:
        word = token.lower_
        if len(word) < 4:
            return False
        if self._known(word) or self._known(token.lemma_.lower()):
            return self._common_word_meant(word)
        if self._derived(word) or _zipf(_english_frequencies().get(word, 0.0)) >= self.bounds.rare_zipf:
            return False  # "amidst", "versus": no WordNet lemma, common in general English
        letters = "abcdefghijklmnopqrstuvwxyz"
        splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
        neighbours = {a + b[1:] for a, b in splits if b}
        neighbours |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
        neighbours |= {a + c + b[1:] for a, b in splits if b for c in letters}
        neighbours |= {a + c + b for a, b in splits for c in letters}
        neighbours.discard(word)
        if len(word) < 6:
            # Short strings are one edit from many words; only a misspelt function word
            # ("beed" for "been") is told apart from slang and names.
            return any(n in self.stop_words for n in neighbours)
        return word not in _english_frequencies() or any(self._is_attested(n) for n in neighbours)

    def _common_word_meant(self, word: str) -> bool:
        """A rare real word that is a far more frequent one with a doubled consonant typed once
        ("siting" for "sitting", "commited"): of all one-edit slips this one alone is rarely a
        word of its own, where "pamper" or "hissing" one edit from "paper" or "missing" are."""
        frequencies = _english_frequencies()
        zipf = _zipf(frequencies.get(word, 0.0))
        if len(word) < 5 or word in self.stop_words or zipf >= self.bounds.rare_zipf:
            return False
        floor = max(self.bounds.common_zipf, zipf + self.bounds.typo_gap)
        return any(
            _zipf(frequencies.get(word[:i] + word[i] + word[i:], 0.0)) >= floor
            for i in range(1, len(word))
            if word[i] not in "aeiouy" and word[i - 1] != word[i]
        )

    @staticmethod
    def _comma_splice(verb: Any) -> bool:
        """Two sentences joined by a bare comma: a finite verb with its own subject, after a
        comma, attached to an earlier finite clause with no conjunction, marker or speech verb
        ("..., they're miniature temples")."""
        head = verb.head
        if not (
            verb.dep_ in ("ccomp", "conj", "parataxis") and head.i < verb.i
            and _finite(verb) and _finite(head)
            and any(c.dep_ in ("nsubj", "nsubjpass", "expl") and c.tag_ not in ("WDT", "WP") for c in verb.children)
            and any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in head.children)
            and head.lemma_.lower() not in SPEECH_VERBS | _THINKING_VERBS
        ):
            return False
        start = verb.left_edge.i
        if start == 0 or verb.doc[start - 1].text != ",":
            return False
        between = verb.doc[head.i + 1 : start]
        return not any(w.dep_ in ("cc", "mark") or w.tag_ in ("WDT", "WP", "WRB") for w in between) and not any(
            c.dep_ in ("mark", "cc") for c in verb.children
        )

    def _proper_only(self, word: str) -> bool:
        """Every WordNet lemma spelled ``word`` is capitalised ("Asian", "Christmas")."""
        if word not in self._proper:
            names = [lemma.name() for synset in self.wn.synsets(word) for lemma in synset.lemmas()]
            self._proper[word] = bool(names) and not any(n[:1].islower() for n in names)
        return self._proper[word]

    def _is_countable(self, lemma: str, classes: frozenset[str] = _COUNTABLE_CLASSES) -> bool:
        """The lemma's first WordNet noun sense falls under one of ``classes``."""
        key = (lemma, classes)
        if key not in self._countable:
            senses = self.wn.synsets(lemma, "n")
            self._countable[key] = bool(senses) and falls_under(senses[0], classes)
        return self._countable[key]

    @staticmethod
    def _in_compound(token: Any) -> bool:
        """Part of a hyphenated modifier ("six-year", "15-minute")."""
        doc = token.doc
        return (token.i > 0 and doc[token.i - 1].text == "-") or (
            token.i + 1 < len(doc) and doc[token.i + 1].text == "-"
        )

    def faults(self, span: Any) -> list[str]:
        """What is wrong with ``span`` before any edit (empty when nothing is found)."""
        out = self._text_faults(span)
        words = [t for t in span if not t.is_punct]
        # the head of the sentence's first noun phrase ("Ugly red car among many", "Street performer")
        first_word = next(
            (t.i for t in words[:4] if t.pos_ == "NOUN" and t.dep_ != "compound"), -1
        ) if words and words[0].text[:1].isupper() and words[0].pos_ in ("ADJ", "NOUN") else -1
        for t in span:
            out += self._spelling_faults(t)
            if not t.is_alpha or self._in_compound(t):
                continue
            out += self._agreement_faults(t)
            out += self._determiner_faults(t, first_word)
            out += self._capital_faults(t)
            out += self._clause_faults(t, span)
        return out

    @staticmethod
    def _text_faults(span: Any) -> list[str]:
        """A sentence ending in a comma, a currency sign after its number, a quotation mark
        left open or closed alone, a footnote number before the first word."""
        out = []
        text = span.text
        if text.rstrip().endswith(","):
            out.append("ends in a comma")  # "A girl stands near a clothing rack ,"
        if re.search(r"\d\$", text):
            out.append("currency sign after the number")  # "give 3$ to Christopher"
        if text.count('"') % 2 or text.count("\u201c") != text.count("\u201d"):
            out.append("unmatched quotation mark")  # "Anyway, she was found dead this morning.\""
        if _FOOTNOTE.match(text):
            out.append("footnote number before the sentence")  # "5 The share of gross national saving"
        return out

    def _spelling_faults(self, t: Any) -> list[str]:
        """Typos, words that are no noun where a noun stands, and words run together or split
        (read before compounds are skipped)."""
        out: list[str] = []
        if t.is_alpha and t.is_lower and t.pos_ not in ("PROPN", "INTJ", "X", "PRON") and self._typo(t):
            out.append(f"typo {t.text!r}")
        if t.lower_ in ("'s", "’s") and t.tag_ == "PRP" and t.i > 0 and not t.doc[t.i - 1].whitespace_ \
                and t.doc[t.i - 1].lower_ != "let":
            out.append(f"{t.doc[t.i - 1].text + t.text!r} for a verb")  # "If one get's distracted"; "let's" is English
        if t.is_alpha and self._not_a_noun(t):
            out.append(f"{t.text!r} is no noun")  # "dressed only in a pamper", "rows a small dingy"
        if t.is_alpha and len(t) >= 20 and not self._known(t.lower_):
            out.append(f"words run together in {t.text!r}")  # "deitiesinEgyptianmythologyandthis"
        elif (
            _CAMEL_CASE.fullmatch(t.text) and t.lower_ not in _english_frequencies()
            and all(self._known(part.lower()) for part in re.findall("[A-Z][a-z]+", t.text))
        ):
            out.append(f"words run together in {t.text!r}")  # "near the CityPalace"
        following = t.doc[t.i + 1] if t.i + 1 < len(t.doc) else None
        if (
            following is not None and t.i > t.sent.start and t.doc[t.i - 1].is_alpha
            and t.is_title and t.is_alpha and len(t) > 2
            and following.is_lower and following.is_alpha and following.lower_ not in self.stop_words
            and (joined := t.lower_ + following.lower_) not in _OPEN_SPELLINGS
            and _zipf(_english_frequencies().get(joined, 0.0)) >= self.bounds.rare_zipf
        ):
            out.append(f"{t.text} {following.text!r} for {joined!r}")  # "a ticket to Disney land"
        if self._hyphenated_noun_phrase(t):
            out.append(f"hyphen in the noun phrase {t.doc[t.i - 2].text + '-' + t.text!r}")  # "a boy with blond-hair"
        return out

    def _hyphenated_noun_phrase(self, t: Any) -> bool:
        """``t`` is a noun heading its phrase, joined by a hyphen to an adjective before it:
        "a boy with blond-hair" for "blond hair". A hyphen makes such a pair one modifier
        ("blond-haired", "a long-sleeve shirt"), which heads nothing; the compounds WordNet
        lists ("high-five", "hot-dog") are left alone."""
        if t.i < 2 or t.tag_ not in ("NN", "NNS") or t.dep_ in ("compound", "amod", "npadvmod"):
            return False
        hyphen, first = t.doc[t.i - 1], t.doc[t.i - 2]
        if hyphen.text != "-" or hyphen.whitespace_ or first.whitespace_ or not first.is_alpha:
            return False
        return (
            bool(self.wn.synsets(first.lower_, "a"))
            and not self.wn.synsets(f"{first.lower_}_{t.lower_}")
            and not self.wn.synsets(f"{first.lower_}-{t.lower_}")
            and not self.wn.synsets(f"{first.lower_}{t.lower_}")
        )

    def _not_a_noun(self, t: Any) -> bool:
        """A word WordNet knows only as a verb right after "a"/"an" ("dressed only in a pamper",
        "on a marry go round"), or only as an adjective heading a noun phrase with "a"/"an"
        ("rows a small dingy", "A teenage is on a surfboard"): a wrong word, not a noun use
        ("a successful skydive" has its adjective between and is not read, and "a thank you"
        is a verb and its object made a noun)."""
        word = t.lower_
        if t.tag_ != "NN" or not t.is_lower or word in self.stop_words or self.wn.synsets(word, "n"):
            return False
        if t.i > 0 and t.doc[t.i - 1].lower_ in ("a", "an") and self.wn.synsets(word, "v"):
            return not (t.i + 1 < len(t.doc) and t.doc[t.i + 1].tag_ == "PRP")  # "a thank you"
        return (
            t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj")
            and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in t.children)
            and not any(c.lower_ in ("little", "bit") for c in t.children)  # "feel a little insecure"
            and not self.wn.synsets(word, "v")
            and bool(self.wn.synsets(word, "a") or self.wn.synsets(word, "s"))
        )

    def _agreement_faults(self, t: Any) -> list[str]:
        """Number and tense that do not agree: "Three woman", "Flaming are", "Last year ... has"."""
        out: list[str] = []
        children = list(t.children)
        if (
            t.tag_ in ("NNS", "NNPS")
            and any(c.dep_ == "det" and c.lower_ in _SINGULAR_DETS for c in children)
            and not any(c.dep_ == "compound" or c.lower_ in ("few", "couple", "lot", "number", "great", "good") for c in children)
        ):
            out.append(f"singular determiner on {t.text!r}")  # not "A pirate boards", "a few days"
        if t.tag_ == "NN" and t.dep_ not in ("compound", "nmod", "amod") and t.lower_ not in _UNIT_SYMBOLS and not (
            t.dep_ == "npadvmod" and t.head.pos_ in ("ADJ", "NOUN", "ADV")
        ) and (
            t.lower_ not in ("percent", "ft", "cent", "pm", "am")
        ) and any(
            c.i < t.i
            and (
                (c.dep_ == "nummod" and (c.lower_ in _PLURAL_WORDS or (c.text.isdigit() and int(c.text) > 1)))
                or (c.dep_ in ("det", "amod") and c.lower_ in _PLURAL_WORDS)
            )
            for c in children
        ):
            out.append(f"plural number on {t.text!r}")
        following = t.doc[t.i + 1] if t.i + 1 < len(t.doc) else None
        if (
            t.lower_ in _THIRD_PERSON_SUBJECTS and following is not None
            and following.tag_ in ("NN", "NNS")
            # the noun hangs on the pronoun, or the pronoun on it as its determiner ("he camera");
            # a pronoun that is the subject of the "noun" has a mistagged verb ("He gestures")
            and (following.head.i == t.i or (t.head.i == following.i and t.dep_ not in SUBJECT_DEPS))
        ):
            out.append(f"{t.text!r} before the noun {following.text!r}")  # "They volunteers were"
        if t.lower_ in PLURALIA and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in children):
            out.append(f"'a' before {t.text!r}")
        if t.tag_ == "VBZ" and not any(c.dep_ == "conj" for c in t.children):
            # (a plural verb is often a mistagged bare infinitive: "did Lewis commit")
            subjects = [c for c in children if c.dep_ == "nsubj"]
            if len(subjects) == 1 and subjects[0].tag_ == "NNS" and not subjects[0].lower_.endswith(
                ("series", "news", "species")
            ) and not any(
                c.dep_ in ("conj", "cc") for c in subjects[0].children
            ):
                out.append(f"{subjects[0].text!r} does not agree with {t.text!r}")
        if self._plural_verb_for_singular(t):
            out.append(f"singular {t.text!r} with the plural verb of {t.head.text!r}")  # "My choice of dishes were"
        if t.tag_ in ("VBZ", "VBP") and any(_past_time(c) for c in children) and not any(
            w.tag_ == "VBD" for w in t.sent
        ):
            out.append(f"present {t.text!r} with a past time")  # "Last year ... each has"
        if (
            t.dep_ == "nsubj" and t.tag_ == "VBG" and not children
            and any(a.lower_ in ("are", "were") for a in (t.head, *t.head.children) if a.i > t.i)
        ):
            out.append(f"gerund {t.text!r} with a plural verb")  # "Flaming are shooting"
        return out

    @staticmethod
    def _plural_verb_for_singular(t: Any) -> bool:
        """``t`` is a singular common noun, the subject of "are"/"were"/"have": "My choice of
        dishes were", "Concentration of greenhouse gases ... have increased", "The man are
        pulling". Left alone: a subject after its verb or in a clause with "and"/"or" (the
        parser often takes one conjunct for the subject), a noun before another noun (a
        compound it split), a group or amount (``_NOTIONAL_PLURALS``), a plural the tagger
        reads as a singular ("fish", "oxen": ``_PLURAL_AS_SINGULAR``) and a condition ("if it
        were")."""
        doc, verb = t.doc, t.head
        if t.dep_ != "nsubj" or t.tag_ != "NN" or t.lower_ in _NOTIONAL_PLURALS:
            return False
        forms = [verb, *(c for c in verb.children if c.dep_ in ("aux", "auxpass"))]
        plural = [f for f in forms if f.lower_ in _PLURAL_VERB_FORMS or (f.lower_ == "have" and f.tag_ == "VBP")]
        if not plural or any(f.i < t.i or f.tag_ == "MD" for f in plural):
            return False
        if any(w.dep_ == "cc" or w.lower_ in ("and", "or", "&") for w in doc[t.sent.start : verb.i]):
            return False
        if any(c.dep_ in ("conj", "nummod") for c in t.children) or any(
            c.dep_ == "mark" and c.lower_ in ("if", "though", "as") for c in verb.children
        ):
            return False
        if t.i + 1 < len(doc) and doc[t.i + 1].pos_ in ("NOUN", "PROPN"):
            return False
        return t.lower_ not in _PLURAL_AS_SINGULAR

    def _determiner_faults(self, t: Any, first_word: int) -> list[str]:
        """Articles missing or doubled: "on the side of hill", "the these roles", "remaining 20 students"."""
        out: list[str] = []
        children = list(t.children)
        articles = sorted(c.i for c in children if c.dep_ == "det" and c.lower_ in _ARTICLES)
        if len(articles) > 1 and not any(
            t.doc[i].is_punct or t.doc[i].dep_ == "cc" for i in range(articles[0], articles[-1])
        ):
            out.append(f"two determiners on {t.text!r}")
        if (
            t.tag_ == "NN"
            and t.lower_ not in _INDEFINITE_PRONOUNS
            and t.dep_ in ("nsubj", "nsubjpass", "dobj")
            and not any(c.dep_ in ("det", "poss", "nummod", "predet", "quantmod", "compound") for c in children)
            and not (t.i + 1 < len(t.doc) and t.doc[t.i + 1].pos_ == "PROPN")
            and self._is_countable(t.lemma_.lower())
        ):
            out.append(f"no determiner on {t.text!r}")
        if (
            t.lower_ in _DEFINITE_BEFORE_NUMBER
            and t.tag_ not in ("VB", "VBP", "VBZ", "VBD", "MD")
            and t.i + 1 < len(t.doc) and t.doc[t.i + 1].like_num
            and not (t.i > 0 and (t.doc[t.i - 1].tag_ in ("DT", "PRP$", "POS", "WP$") or t.doc[t.i - 1].lower_ == "'s"))
        ):
            out.append(f"no article before {t.text!r}")  # "and remaining 20 students"
        if (
            t.tag_ == "NN" and t.dep_ == "pobj" and t.head.lower_ not in ("per", "by", "as", "for")
            and not (t.head.lower_ == "of" and t.head.head.lemma_.lower() in ("kind", "sort", "type"))
            and t.lower_ not in _MASS_THINGS
            # an idiom's noun goes bare only as the idiom has it ("on stage", "in bed"), not
            # described ("of fairly full tour bus")
            and (t.lower_ not in BARE_NOUN_IDIOMS or any(c.dep_ in ("amod", "compound") for c in children))
            and not any(c.dep_ in ("det", "poss", "nummod", "predet", "quantmod", "cc", "conj") for c in children)
            and not (t.i + 1 < len(t.doc) and t.doc[t.i + 1].pos_ in ("PROPN", "NUM"))
            and self._is_countable(t.lemma_.lower(), _COUNTABLE_THINGS)
        ):
            out.append(f"no determiner on {t.text!r}")  # "on the side of hill", "with bowler hat"
        if (
            t.i == first_word and t.tag_ == "NN" and t.dep_ in ("nsubj", "ROOT")
            and t.lower_ not in _MASS_THINGS
            and not any(c.dep_ in ("det", "poss", "nummod", "predet", "quantmod") for c in children)
            and t.lower_ not in _INDEFINITE_PRONOUNS
            and self._is_countable(t.lemma_.lower(), _COUNTABLE_CLASSES | _COUNTABLE_THINGS)
        ):
            out.append(f"no determiner on the subject {t.text!r}")  # "Street performer with ..."
        if (
            t.lower_ in _DEFINITE_ADJECTIVES and t.dep_ == "amod"
            and t.head.dep_ == "pobj" and t.head.head.lower_ == "of"
            and not any(c.dep_ in ("det", "poss", "nummod") for c in t.head.children)
        ):
            out.append(f"no article before {t.text!r}")  # "8% of total students"
        if (
            t.tag_ == "NN" and t.dep_ == "conj" and t.lower_ not in _INDEFINITE_PRONOUNS
            and not (t.i + 1 < len(t.doc) and t.doc[t.i + 1].pos_ == "NOUN")  # "graduate school"
            and not any(c.dep_ in ("det", "poss", "nummod", "compound", "amod") for c in children)
            and self._is_countable(t.lemma_.lower())
            # "a man and woman" shares its article; "a shirt and lady" or "a man in red and
            # lady in blue" does not
            and (any(c.dep_ == "prep" for c in children) or not self._is_countable(t.head.lemma_.lower()))
        ):
            out.append(f"no determiner on {t.text!r}")  # "a man in a striped shirt and lady in a hat"
        return out

    def _capital_faults(self, t: Any) -> list[str]:
        """Capitals where none belong and none where one does: "A Man", "an asian woman"."""
        out: list[str] = []
        if (
            t.is_lower and t.is_alpha and len(t) > 3 and t.i > t.sent.start
            and t.pos_ in ("ADJ", "NOUN", "PROPN") and t.lower_ not in _GENERIC_TRADEMARKS
            and self._proper_only(t.lower_)
        ):
            out.append(f"lower-case {t.text!r}")  # "an asian woman"
        if (
            t.tag_ in ("NN", "NNS") and t.text[:1].isupper() and t.text[1:].islower()
            and t.i > t.sent.start and t.ent_type_ == "" and t.doc[t.i - 1].tag_ in ("DT", "CD")
            and not (t.i + 1 < len(t.doc) and t.doc[t.i + 1].text[:1].isupper())
            and self._is_countable(t.lemma_.lower())
        ):
            out.append(f"capital on the common noun {t.text!r}")  # "A Man in a blue shirt"
        return out

    @staticmethod
    def _second_verb(t: Any) -> bool:
        """A finite "be" with no subject of its own right after the phrase of another "be"
        ("Two men ... are wearing striped shirts are in the kitchen", "A man is in a purple
        bathrobe is inside his home"): two predicates with no "and". A "be" after a verb
        of saying or thinking ("a CPI everyone knows is inaccurate") has its subject
        extracted, and one right after the first ("is is") is a repetition (``disfluent``)."""
        head = t.head
        return (
            t.dep_ == "ccomp" and t.lemma_ == "be" and t.tag_ in ("VBP", "VBZ", "VBD")
            and head.i + 1 < t.i
            and not any(c.dep_ in (*SUBJECT_DEPS, "mark") for c in t.children)
            and (head.lemma_ == "be" or any(c.dep_ in ("aux", "auxpass") and c.lemma_ == "be" for c in head.children))
            and not any(w.pos_ in ("VERB", "AUX") for w in t.doc[head.i + 1 : t.i])
        )

    def _clause_faults(self, t: Any, span: Any) -> list[str]:
        """Clauses joined or built wrongly: comma splices, "more dangerous that", "worth of $5"."""
        out: list[str] = []
        children = list(t.children)
        if t.text in _SENTENCE_ADVERBS and t.i > span.start and t.doc[t.i - 1].text == ",":
            out.append(f"{t.text!r} capitalised after a comma")
        if t.i + 1 < span.end and (t.lower_, t.doc[t.i + 1].lower_) in _BAD_BIGRAMS:
            out.append(f"{t.text!r} followed by {t.doc[t.i + 1].text!r}")
        if (
            t.tag_ in ("VBZ", "VBD")
            and t.dep_ == "conj"
            and t.i > 0 and t.doc[t.i - 1].text == ","
            and not any(c.dep_ in SUBJECT_DEPS for c in children)
            and not any(c.dep_ == "cc" for c in t.head.children)
        ):
            out.append(f"comma splice before {t.text!r}")  # "near the water , looks to be"
        if self._comma_splice(t):
            out.append(f"comma splice before {t.text!r}")  # "rated alphabetically, the ones ... are"
        if t.tag_ in ("NN", "NNS") and t.dep_ == "compound" and any(c.dep_ == "advmod" for c in children):
            out.append(f"adverb on the modifier {t.text!r}")  # "a newly establishes building"
        if t.tag_ == "VBP" and self.wn.morphy(t.lower_, "v") == t.lower_ and not any(
            c.dep_ in ("aux", "auxpass") for c in children
        ) and any(c.dep_ == "nsubj" and c.lower_ in ("he", "she", "it") for c in children):
            out.append(f"{t.text!r} after a singular pronoun")  # "she also look very weak"
        if self._second_verb(t):
            out.append(f"a second verb {t.text!r} with no 'and'")  # "are wearing striped shirts are in"
        if t.tag_ == "VBZ" and t.dep_ in ("amod", "compound"):
            out.append(f"finite verb {t.text!r} used as a modifier")  # "newly establishes building"
        if t.tag_ in ("JJR", "RBR") or (t.lower_ in ("more", "less") and t.dep_ == "advmod"):
            nxt = t.doc[t.i + 1] if t.i + 1 < len(t.doc) else None
            after = t.doc[t.i + 2] if t.i + 2 < len(t.doc) else None
            if (nxt is not None and nxt.lower_ == "that") or (
                t.tag_ not in ("JJR", "RBR") and after is not None and after.lower_ == "that"
                and nxt is not None and nxt.pos_ == "ADJ"
            ):
                out.append(f"comparative {t.text!r} followed by 'that'")  # "more dangerous that"
        subjects = [c for c in children if c.dep_ in ("nsubj", "nsubjpass") and c.i < t.i]
        if t.pos_ in ("VERB", "AUX") and subjects and subjects[0].tag_ in ("NN", "NNS"):
            first = min([t.i, *(c.i for c in children if c.dep_ in ("aux", "auxpass") and c.i > subjects[0].i)])
            if t.doc[first].tag_ in ("VBZ", "VBP", "VBD", "MD") and t.doc[first - 1].text == "," and not any(
                w.text == "," for w in t.doc[subjects[0].i : first - 1]
            ):
                out.append(f"a comma between the subject and {t.doc[first].text!r}")  # "an orange jacket , is"
        if t.lower_ == "worth" and t.i + 2 < len(t.doc) and t.doc[t.i + 1].lower_ == "of" and (
            t.doc[t.i + 2].like_num or t.doc[t.i + 2].text in ("$", "£", "€", "₹", "Rs", "Rs.")
        ):
            out.append("'worth of' before an amount")  # "a property worth of $1023.65"
        if t.tag_ == "VB" and t.is_lower and any(
            c.dep_ in ("aux", "auxpass") and c.lemma_ == "be" and c.i < t.i for c in children
        ) and not any(c.dep_ == "aux" and c.tag_ in ("TO", "MD") for c in children):
            out.append(f"bare {t.text!r} after 'be'")  # "The motion was quickly approve"
        if t.tag_ == "MD" and t.i > span.start and t.doc[t.i - 1].lemma_ == "be" and t.doc[t.i - 1].tag_ in (
            "VBZ", "VBP", "VBD"
        ):
            out.append(f"{t.doc[t.i - 1].text!r} before the modal {t.text!r}")  # "Harrer was will aware"
        if t.lower_ == "which" and t.tag_ == "WDT" and t.dep_ == "pobj":
            clause = next((a for a in t.ancestors if a.dep_ == "relcl"), None)
            if clause is not None and clause.head.tag_ == "NNS" and self._is_countable(
                clause.head.lemma_.lower(), _PERSONS
            ):
                out.append(f"'which' for the people {clause.head.text!r}")  # "12 tenants, from which 9"
        if t.lower_ == "time" and self._by_the_time_present(t):
            out.append("simple present after 'by the time'")  # "By the time they meet, Bob covers"
        if (
            t.text == "No" and t.i > span.start and not t.doc[t.i - 1].is_punct
            and not (t.i + 1 < len(t.doc) and t.doc[t.i + 1].like_num)
        ):
            out.append("a capital 'No' inside a clause")  # "afraid of losing he's No." (not "No. 1")
        if t.dep_ == "mark" and t.lower_ in _PREPOSITIONS_ONLY and _finite(t.head):
            out.append(f"preposition {t.text!r} before a clause")  # "the best team, by they are not"
        if t.lower_ == "it" and self._possessive_its(t):
            out.append("\"it's\" for \"its\"")  # "popular for it's white sand beach"
        return out

    @staticmethod
    def _by_the_time_present(time: Any) -> bool:
        """"By the time <clause>" before a simple present that is no habit: the main clause
        needs a perfect ("By the time they meet, Bob will have covered 48 km")."""
        by, verb = time.head, time.head.head
        if not (
            by.lower_ == "by" and any(c.lower_ == "the" for c in time.children)
            and any(c.dep_ in ("relcl", "acl") for c in time.children)
        ):
            return False
        return (
            verb.tag_ in ("VBZ", "VBP") and not any(c.dep_ == "aux" for c in verb.children)
            and not any(c.lower_ in _HABITUAL for c in verb.children)
        )

    @staticmethod
    def _possessive_its(it: Any) -> bool:
        """``it`` and the ``'s`` after it stand for "its": parsed as a possessive ("continue
        it's planning efforts"), after a preposition ("at the time of it's birth"), or before
        the subject of another verb ("It's discount stores are very popular")."""
        doc = it.doc
        if it.i + 1 >= len(doc) or doc[it.i + 1].lower_ not in ("'s", "\u2019s"):
            return False
        clitic = doc[it.i + 1]
        if it.dep_ == "poss" or clitic.dep_ == "case" or clitic.tag_ == "POS":
            return True
        if it.i > 0 and doc[it.i - 1].dep_ == "prep":
            return True
        return any(
            c.dep_ == "ccomp" and any(
                s.dep_ in ("nsubj", "nsubjpass") and s.left_edge.i == clitic.i + 1 for s in c.children
            )
            for c in clitic.children
        )
