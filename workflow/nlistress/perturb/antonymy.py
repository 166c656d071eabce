"""Antonymy (Naik et al. 2018, section 3.1): a sentence against itself with one word flipped.

Every premise and hypothesis sentence is taken independently (each distinct
sentence once). spaCy tags and parses it; for each word of the configured
parts of speech (adjectives by default), the Lesk algorithm (NLTK) picks a
WordNet sense, and if that sense's lemma has antonyms one is chosen (a verb
only among ``verb_pairs``: most WordNet verb antonyms are converses or
undoings, "buy"/"sell", "tie"/"untie", which one sentence can state together;
:meth:`Antonymy._verb_reason` keeps a listed verb only where it states its
clause in its own frame, with no range, degree, reason, generic or partial
subject, or clause set beside it). The
original sentence and the sentence with the word replaced by its antonym
(inflected and capitalised like the word) form a new pair labelled
contradiction.

That label is only right where the word is asserted of one thing and its
antonym cannot hold of the same thing at the same time. The precision filters
(``filters`` setting, each counted in the manifest) keep only such words:

- the sentence filters of :mod:`.precision` (questions, imperatives,
  fragments, negation, modals, conditionals, and for ``conditional`` also a
  reported claim, "Dealers say everyone is smart"), and ``conditional`` also for a
  goal ("the first step to building a more effective government" asserts no
  property of any government) and for a clause that holds only under a condition
  ("When his colleagues aren't sadistic, they are successful");
- ``passage``: the text holds more than one sentence, whose others may restate,
  presuppose or rank the word (:func:`.precision.is_passage`);
- ``source_grammar``: the sentence was ungrammatical before the edit (a typo,
  number disagreement, a missing article: :class:`.source_grammar.SourceGrammar`),
  so the edited pair would be too;
- ``excluded_lemma``: quantifiers, determiners and ordinals (``many``/``few``,
  ``more``/``less``, ``other``/``same``, ``first``/``last``, ...) and lemmas
  whose antonym depends on what they modify (``exclude_lemmas`` setting);
- ``named_entity``: the word is inside a named entity, modifies a proper noun,
  or is capitalised inside a sentence ("a random House spokesman");
- ``wordnet_compound``: the word and its neighbour or head form a WordNet
  multiword lemma ("public health", "high school", "first place");
- ``rare_sense``: Lesk's sense is not the lemma's most frequent sense (SemCor
  counts, ``lemma.count()``), or every antonym has a SemCor frequency below
  ``min_sense_count`` ("random" -> "nonrandom", "whole" -> "fractional") and
  is not the word with or without a negative prefix ("typical" -> "atypical",
  "unemployed" -> "employed");
- ``ambiguous_antonym``: the lemma's antonyms differ by sense ("old" ->
  "young" or "new") and no single antonym holds ``min_antonym_share`` of the
  lemma's SemCor frequency, or Lesk's sense does not have the dominant one;
- ``rare_antonym``: the antonym is rarer in general English than
  ``min_antonym_zipf`` (wordfreq's Zipf scale): "incorrupt", "impermanent",
  "uneager" are WordNet antonyms that read as mistakes;
- ``position``: the adjective is predicative ("the room was dark"; only after
  a linking verb such as *be*, *seem*, *become*, *get* or *make*, not a
  depictive or resultative: "stands tall", "died young", "comes alive",
  "shake themselves dry"; with an infinitive only
  when the antonym is the word with a negative prefix or both take such an
  infinitive: "able to" -> "unable to", "easy to set up" -> "difficult to set
  up", not "careful to" -> "careless to" or "sure to invest", nor "prepared to
  fight" (willing) -> "unprepared to fight" (not ready); never "sure"
  or "certain" with a clause: "I'm sure they did" -> "I'm unsure they did"; not
  "a big fan" -> "a little fan", read as the quantifier "a little") or an
  attributive adjective of a gradable property (a WordNet attribute such as
  temperature or size: "a long walk") with no relational sense (a WordNet
  pertainym: "a legal aid center") in a predicate noun phrase ("it was a big
  step"; elsewhere the noun phrase may name another thing once changed: "A
  conventional siege was useless", "has a senior division", "the evil sergeant");
  classifying adjectives ("local government", "foreign policy") and other
  positions are dropped, and so are "early"/"late" before a noun, which name a
  period ("an early material") or a former state ("the late president"), and
  "true of/about/for" and "especially true" ("false of" is not English, and
  "especially false" has no sense of applying), and a complement the
  adjective selects ("full of", "busy with", "powerless over", "dangerous to",
  "separate from") unless the antonym is the word with or without a negative
  prefix ("empty of energy", "idle with shipping" and "joint from one another"
  are not English); and a restrictive relative clause of a definite or
  universally quantified noun phrase or of an indefinite pronoun is attributive
  too: it says which thing is meant ("all of the problems that were available",
  "The one we thought was timid", "Everybody that is visible", "Someone who is
  visible"), where one after a comma or on an indefinite noun describes it ("a
  drug that works very quickly"); a feeling
  "for" someone or something ("happy for Dave", "felt bad for Dave") is dropped
  too, as its antonym takes no "for"; so are "get older" (age only grows), a
  rank before a superlative ("the second tallest building ..., after the 102 m
  tower" -> "second shortest") and an adjective right after a prepositional
  object, which is a noun the parser split off ("at the county fair");
- ``existential_scope``: the noun the adjective describes is a bare plural,
  subject or not ("Drinks are expensive" and "Drinks are cheap" may each hold of
  different drinks), has a number, or is quantified existentially ("some", "many", "several"):
  "some cheap hotels" and "some expensive hotels" are compatible; so are two
  relative clauses that pick out such a group ("Women who have become rich"
  and "Women who have become poor"), and two things said to exist ("There is
  an old woman in the village" and "There is a young woman in the village"); a
  number said to be so ("300 dead" and "300 alive"), and a property held over
  a quantified domain ("available in many shops"), a property of some
  occasions ("sometimes available", "successfully invaded hundreds of times"),
  a view reported of some of a group ("According to some professionals, ...
  are the best"),
  a noun singled out by "only" ("Only one of the two plants is able": the
  other is unable), a bare plural "parts" or "areas" ("Parts of Europe are
  still illiterate": other parts may be literate), "half" ("Half of the
  children are male": the other half are female),
  and a state an event comes before or after ("She smiled after being
  satisfied", "named after India became independent", "resigned quickly
  after"), which held at some time while its antonym may have held at another;
- ``comparison_standard``: the word is in the standard of a comparison
  ("better than the old one", "much like a large account", "the difference
  between an economy with a high standard ..."), in an equative, degree or focus construction
  ("as good as new", "strong enough to move", "almost impossible", "only
  available"), in a sentence with a scalar "even" ("but even that is useless" ->
  "useful": the series "even" ranks turns against its polarity), or in an embedded degree question
  ("how successful someone is") or a measure phrase ("a mile long"), or
  in a sentence that has its own antonym ("an even male, female ratio" would become
  "male, male"; "not bad, it is actually pretty good" would say "pretty bad"),
  or graded by "less" ("less educated" -> "less uneducated"), by "more"/"most"
  where the antonym adds a negative prefix ("more unimportant"), or by a degree of
  absence where it drops one ("completely unrelated" -> "completely related"), or
  by an "-ly" adverb that collocates with the word alone ("acutely aware" ->
  "acutely unaware", "firmly closed" -> "firmly open"; general degree adverbs
  such as "really" or "extremely" grade either word and are kept);
- ``coordination``: the word is coordinated with another ("available and
  expensive"), its predicate shares its subject with another ("independent
  and do not need me at all", "strong, yet brittle"), another predicate says
  it again of the same subject ("that's good, that's great"), its clause is
  set against another ("important, but there are also other worthy causes",
  "older even though she was only eighteen", also from a clause above it) or is
  joined to another by "so" as its reason or result ("extremely bright, so
  bring a camera"), or "yes" agrees with it ("Yes, that's absolutely true"),
  or the sentence gives a cause ("easy because it takes many hours", "accepted
  defeat, as it was too difficult", "due to"), which was written to fit the word
  and mostly no longer fits its antonym, or it is the state something gets into
  and the sentence says what put it there ("gets wet from a splash of water" -> "gets dry"):
  the other part may presuppose, restate or follow from the word, and the
  edited sentence then contradicts itself;
- ``abstract_subject``: a physical adjective (its WordNet attribute is a
  physical or visual property: temperature, weight, brightness, colour)
  describes something that is not a physical thing in its first WordNet
  sense ("the game is hot", "something very dark"): the sense is figurative
  and its antonym is not; and an adjective whose sense shifts when said of a
  person ("a dark man", "a cold woman", "my old friend") describes one; a
  health adjective ("well", "ill") describes no person ("That is unwell"), or a
  danger adjective ("safe", "dangerous") may describe one ("because they were
  dangerous": a person kept out of danger is safe, and may still be dangerous),
  or "possible", "high" or "low" describes a name ("Turin was possible": a place is no
  event; "California is high": in land, prices or spirits?);
- ``inflection``: the word is an inflected form that its tag does not name
  ("colder" tagged as a plain adjective), so the antonym's form is unknown, or
  "more"/"most" grades it while the antonym has its own comparative ("more
  difficult" would become "more easy").
- ``future``: a future modal ("will", "'ll", "shall") or "be going to" has the
  word in its scope ("The budget will increase by 6 billion dollars" ->
  "decrease", "A double sign will be useful", "A dog is going to get wet"):
  the ``modal`` filter lets a prediction through as
  asserted, but judges split on whether two forecasts contradict, and a
  doubtful label is dropped.

Which word (and which antonym, when a sense has several) is replaced is drawn
from ``row_rng(seed, sentence text)``: the same sentence gets the same edit in
any file and any subset. The rest of the sentence is kept byte for byte,
except an indefinite article right before the word when the replacement needs
the other one ("a patient man" -> "an impatient man"); both edits are recorded
in the row's parameters.

Asked for them (``nlistress perturb --dropped``), the generator also keeps every pair a
filter rejected, built the same way and naming the filter: what the filters cost is then
something one can read and judge, not only count. They draw their antonyms from their own
stream (``row_rng(seed, "dropped|" + text)``), so the set is the same with or without them.

The WordNet side (senses, antonyms, prefix twins) is :mod:`.antonym_lexicon`; where
the word stands in its parsed sentence is :mod:`.antonym_syntax`; this module holds
the filters that read both, and the generator.
"""

from __future__ import annotations

import logging
import random
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pyarrow as pa

from ..labels import LABELS
from ..manifest import RowCounts
from ..progress import with_progress
from ..resources import WORDNET_POS, spacy_pipeline, wordnet
from . import antonym_syntax as syntax
from .antonym_lexicon import WORD, AntonymLexicon, Entry, Sense
from .base import Context, Generator, SetRow, row_rng
from .precision import (
    SCOPE_FILTERS,
    SELECTED_PREPOSITIONS,
    SENTENCE_FILTERS,
    FilterSwitch,
    decisive,
    drop_reason,
    has_future,
    in_imperative_clause,
    is_passage,
    scope,
    scope_reasons,
    sentence_reasons,
    wordnet_compound,
)
from .source_grammar import SourceGrammar, WordFrequencyBounds
from .wording import indefinite, match_case, negative_prefix

log = logging.getLogger(__name__)

DROP_DUPLICATE = "duplicate sentence"
DROP_NO_ANTONYM = "no word with a WordNet antonym in its sense"
# WordNet has an antonym for a verb of the sentence, but not one `verb_pairs` lists ("sells" ->
# "buys" is a converse, not a contradiction), and no other word could be replaced.
DROP_UNLISTED_VERB = "only verbs whose WordNet antonym verb_pairs does not list"

# Penn tags whose words are inflected (the antonym gets the same inflection).
_INFLECTED = {"NNS", "NNPS", "JJR", "JJS", "RBR", "RBS", "VBD", "VBG", "VBN", "VBZ"}
# Comparative and superlative tags: "more"/"most" when the antonym has no such form.
_GRADED = {"JJR": "more", "RBR": "more", "JJS": "most", "RBS": "most"}

# Characters that join a word into a compound it should not be cut out of.
_JOINERS = {"-", "/", "_"}
# Comparatives and superlatives lemminflect does not give.
_IRREGULAR = {
    ("many", "JJR"): "more",
    ("many", "JJS"): "most",
    ("much", "JJR"): "more",
    ("much", "JJS"): "most",
    ("little", "JJR"): "smaller",  # "littler" is not standard
    ("little", "JJS"): "smallest",
}

PAPER_PAIRS = {"dev_matched": 1561, "dev_mismatched": 1734}
# Labelled rows of the official MultiNLI dev files, to tell a full build from a sample.
FULL_SPLIT_ROWS = {"dev_matched": 9815, "dev_mismatched": 9832}


# Word-level filters, in the order they are tried (the sentence filters come first).
WORD_FILTERS = (
    "excluded_lemma",
    "named_entity",
    "wordnet_compound",
    "rare_sense",
    "ambiguous_antonym",
    "rare_antonym",
    "position",
    "existential_scope",
    "comparison_standard",
    "coordination",
    "abstract_subject",
    "inflection",
    # last, so that it takes only pairs no other filter drops
    "future",
)
FILTERS = (*SENTENCE_FILTERS, "passage", "source_grammar", *SCOPE_FILTERS, *WORD_FILTERS)
# A rank before a superlative ("the second tallest", "3rd largest"): the ranking is counted
# from the top, so its antonym ranks from the other end, against the thing ranked above.
_RANK = re.compile(r"second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th)")

# Modifiers that make the adjective part of a comparison, a degree or a focus construction
# ("as good as new", "strong enough", "how successful", "almost impossible", "only available").
_DEGREE_WORDS = frozenset(
    {"how", "however", "what", "as", "enough", "almost", "nearly", "virtually", "practically",
     "only", "merely", "just", "barely", "somewhat", "fairly", "quite", "sorely",
     # "perfectly" completes the pole it grades ("perfectly normal", "perfectly safe");
     # said of the other ("perfectly abnormal", "perfectly dangerous") it reads as irony, and
     # "prohibitively" grades only a cost ("prohibitively expensive", not "cheap")
     "perfectly", "prohibitively"}
)
# Adjectives whose sense shifts when said of a person ("a dark man", "a cold woman", "a bright
# student", "way too loud", "soft at heart"), so their antonym no longer contradicts.
_SENSE_SHIFTS_FOR_PEOPLE = frozenset(
    {"dark", "fair", "light", "bright", "hot", "cold", "cool", "warm", "sharp", "dull", "sweet", "sour",
     "loud", "soft"}
)
# Relations an "old" holds in time, not age ("my old friend" is a friend of long standing).
_RELATIONS = frozenset(
    {"friend", "colleague", "acquaintance", "enemy", "rival", "flame", "ally", "classmate",
     "buddy", "pal", "partner", "boss", "habit", "teacher", "student", "neighbor", "neighbour"}
)
# Nouns whose complement describes what is compared, not what is said to be
# ("the difference between an economy with a high standard of living and ...").
_COMPARISON_NOUNS = frozenset({"difference", "comparison", "contrast", "distinction", "gap"})
# Adjectives that take an infinitive with a gap ("easy to set up", "dangerous to cross"),
# so their antonyms do too.
_TOUGH = frozenset(
    {"easy", "difficult", "hard", "simple", "possible", "impossible", "pleasant", "unpleasant",
     "dangerous", "safe", "expensive", "cheap", "interesting", "uninteresting", "comfortable",
     "uncomfortable", "good", "bad", "convenient", "inconvenient"}
)
# Raising adjectives: with an infinitive they state likelihood, and their antonym takes none
# ("we are sure to invest" -> "we are unsure to invest").
_RAISING = frozenset({"sure", "certain", "likely", "bound", "due", "apt", "liable"})
# With an infinitive these mean "willing", and their prefix antonym is not its opposite: "was
# prepared to fight" and "was unprepared to fight" may both hold, and "happy to help" has no
# "unhappy to help" (English says "reluctant to help").
_WILLING = frozenset({"prepared", "happy"})
# Nouns for a piece of a whole: as a bare plural subject ("Parts of Europe"), some pieces.
_PART_NOUNS = frozenset({"part", "area", "region", "section", "portion", "piece"})
# Adjectives that say nothing definite of a name ("Turin was possible", "California is high").
_VAGUE_OF_NAMES = frozenset({"possible", "impossible", "high", "low"})
# Epistemic adjectives: with a clause ("sure he'll be back", "I'm sure, ...") their antonyms
# need "whether" ("unsure he'll be back" is not English).
_EPISTEMIC = frozenset({"sure", "certain", "confident"})
# Nouns whose "to/in/of + gerund" names a goal, not a fact ("the first step in building a more
# effective government", "part of making planes safe").
_GOAL_NOUNS = frozenset(
    {"step", "part", "key", "way", "path", "road", "route", "move", "approach", "effort",
     "attempt", "goal", "aim", "plan", "strategy", "means", "progress"}
)
# Adverbs that grade any adjective of their scale, so they grade its antonym as well ("very
# useful", "very useless"). Any other "-ly" adverb on the word is a collocation of the word
# alone: "acutely aware" -> "acutely unaware", "firmly closed" -> "firmly open",
# "historically old" -> "historically new".
_GENERAL_DEGREES = frozenset(
    {"really", "extremely", "especially", "particularly", "absolutely", "completely", "totally",
     "entirely", "truly", "actually", "surprisingly", "remarkably", "exceptionally", "unusually",
     "incredibly", "highly", "slightly", "wildly", "enormously", "increasingly", "equally",
     "terribly", "awfully", "genuinely", "simply", "generally", "relatively", "fairly",
     "reasonably", "only", "nearly", "mostly", "largely", "fully", "utterly", "wholly",
     "certainly", "definitely", "clearly", "obviously", "seriously", "deeply", "immensely",
     "hugely", "unbelievably", "amazingly", "notably", "exceedingly", "overly", "unduly", "profoundly"}
)
# Degree adverbs that grade an absence ("completely unrelated", "relatively unknown") and
# read oddly on the word without its prefix ("completely related", "relatively known").
_ABSENCE_DEGREES = frozenset(
    {"completely", "totally", "entirely", "utterly", "wholly", "relatively", "largely", "fully"}
)
# Additive adverbs: the clause says again what another part of the text said ("he hated her
# as well", "I agree with that too"), so its antonym leaves the addition without its match.
_ADDITIVE = frozenset({"too", "also", "either"})
# Degrees of a verb that hold of the antonym too ("agree somewhat" and "disagree somewhat"),
# or compare ("like him even more now", "like rock music the best" -> "dislike ... the best").
_VERB_DEGREES = frozenset({"more", "less", "most", "least", "best", "better", "worst", "worse", "somewhat",
                           "partly", "partially", "slightly", "mostly", "largely", "half"})
# Quantifiers the parser reads as adjectives ("won many MMA fights").
_SOME_OF = frozenset({"many", "several", "numerous", "various", "few"})
# Verbs of an attitude: said in the passive without its holder ("where Karl Marx was hated",
# "everybody is approved already"), the attitude may be some people's, and its antonym others'.
_ATTITUDE_VERBS = frozenset({"like", "dislike", "love", "hate", "approve", "disapprove", "respect",
                             "disrespect"})
# Verbs of a contest, whose object must be one ("won the war" / "lost the war", not "won power").
_CONTEST_VERBS = frozenset({"win", "lose"})
# Prepositions of a reason for a feeling ("hated her for her smile", "out of jealousy").
_REASON_PREPOSITIONS = frozenset({"for", "out"})
# Adjectives that before a noun name a period or a former state, not a time relative to another
# ("an important early material", "the late president").
_PERIOD_ADJECTIVES = frozenset({"early", "late"})
# Health adjectives, said only of living things: of anything else "well" is "fine" and "ill" is
# "bad" ("That is unwell" -> "That is well" is no contradiction).
_OF_LIVING_THINGS = frozenset({"well", "ill", "unwell", "sick"})
# Danger adjectives: "safe" of a thing is "not dangerous", of a person "out of danger", so a
# person may be both ("confined because they were dangerous" -> "... because they were safe").
_DANGER = frozenset({"safe", "unsafe", "dangerous"})
# "true of/about/for X" says that something applies to X; "false of X" is not English.
_APPLIES_TO = frozenset({"of", "about", "for"})
# ... and so does "especially true" ("This is especially true on Menorca": it applies most
# there); "especially false" has no such sense.
_FOCUS = frozenset({"especially", "particularly", "equally", "doubly"})
# A WordNet gloss that restricts a sense to people: "(used especially of persons)".
_PERSON_GLOSS = re.compile(r"\b(?:persons?|people)\b")
# Nouns that make an adjective a quantity ("a good amount", "a great deal", "a large number").
_QUANTITY_NOUNS = frozenset(
    {"amount", "deal", "number", "lot", "bit", "majority", "minority", "part", "portion",
     "share", "percentage", "proportion", "quantity", "sum", "total", "range", "variety"}
)


@dataclass(frozen=True)
class _Candidate:
    index: int
    start: int
    end: int
    word: str
    tag: str
    pos: str
    inflected: bool  # the word is an inflected form of its lemma ("days", "happier")
    sense: Sense
    synset: str
    article: tuple[int, int, str] | None  # an indefinite article right before the word
    position: str  # predicative, attributive or other


class Antonymy(Generator):
    name: ClassVar[str] = "antonymy"
    shared_sections: ClassVar[tuple[str, ...]] = ("source_grammar",)
    paper_generator = "antonymy_authors"
    unit: ClassVar[str] = "sentence"
    records_dropped: ClassVar[bool] = True
    tests_for: ClassVar[str] = (
        "Antonymy (a competence test, Naik et al. 2018, section 3.1): whether a model "
        "recognises that replacing a word by its antonym turns a sentence into a "
        "contradiction of itself. Each premise and hypothesis sentence of the source "
        "split is taken on its own; an asserted adjective (or manner adverb, or a verb of "
        "a listed pair such as like/dislike) is replaced by the WordNet antonym of its "
        "most frequent sense (inflection and "
        "capitalisation kept), and the original sentence (premise) is paired with the "
        "edited one (hypothesis) under the label contradiction. A model that relies on "
        "word overlap sees two nearly identical sentences and tends to predict entailment. "
        "Antonym substitution does not always yield a true contradiction (negation, "
        "modality, questions, quantifiers, word senses, names); precision filters drop "
        "every sentence where the label is not certain, and the measured label quality "
        "of this build is under Annotator review."
    )
    paper_quality: ClassVar[str] = (
        "Naik et al. (2018): at least two of three annotators agreed with the generated label on "
        "86% of 100 sampled rows of their (differently built) set."
    )

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        # Each value was checked against the schema (Generator.__init__).
        get = self.settings.get
        self.pos = tuple(dict.fromkeys(get("pos", ["ADJ"])))
        self.max_per_sentence = get("max_per_sentence", 1)
        self.batch_size = get("batch_size", 256)
        self.filters = FilterSwitch(f"stress.tests.{test}", FILTERS, get("filters"))
        self.exclude_lemmas = frozenset(w.lower() for w in get("exclude_lemmas", []))
        self.min_sense_count = get("min_sense_count", 1)
        self.min_antonym_share = float(get("min_antonym_share", 0.85))
        self.min_antonym_zipf = float(get("min_antonym_zipf", 0.0))
        # Most WordNet verb antonyms name the converse or the undoing of an event ("buy"/"sell",
        # "tie"/"untie", "come"/"go"), which the same sentence can state together with the
        # original: a verb is replaced only by a partner listed here, in either direction.
        self.verb_pairs = frozenset(
            (a.lower(), b.lower()) for first, second in get("verb_pairs", []) for a, b in ((first, second), (second, first))
        )
        self.lexicon = AntonymLexicon(self.verb_pairs, get("prefix_antonyms", True))
        self.word_sense = get("word_sense", "lesk")
        self._compounds: dict[str, bool] = {}
        self._grammar: SourceGrammar | None = None
        #: candidate words rejected by each filter in the last ``generate``
        self.rejected: Counter[str] = Counter()

    # -- WordNet -----------------------------------------------------------

    def _personal_sense(self, wn: Any, token: Any, entry: Entry) -> tuple[Any, Sense] | None:
        """The sense an ambiguous adjective has for what it describes, where WordNet tells.

        "old" has two antonym senses: "(used especially of persons) having
        lived for a long time" (young) and "of long duration; not new" (new).
        When exactly one frequent antonym sense is glossed as being of persons,
        it is the sense for a person (a noun under person.n.01, or a personal
        pronoun other than "it"/"they"), and the other senses, if they share one
        antonym, for anything else.
        None when the lemma is not ambiguous or WordNet does not tell.
        """
        if len({a.name().lower() for s in entry.senses.values() for a in s.antonyms}) < 2:
            return None
        synsets = {s.name(): s for s in entry.synsets}
        frequent = {
            name: sense for name, sense in entry.senses.items()
            if sense.lemma.count() >= self.min_sense_count
        }
        personal = [n for n in frequent if _PERSON_GLOSS.search(synsets[n].definition())]
        other = [n for n in frequent if n not in personal]
        other_antonyms = {a.name().lower() for n in other for a in frequent[n].antonyms}
        if len(personal) != 1 or not other or len(other_antonyms) != 1:
            return None
        noun = syntax.described(token)
        if noun is None:
            return None
        chosen = personal[0] if syntax.is_person(wn, noun) else other[0]
        return synsets[chosen], frequent[chosen]


    # -- word-level filters ------------------------------------------------

    def _verb_reason(self, wn: Any, token: Any, position: str, sense: Sense) -> str | None:
        """The first switched-on filter that rejects a listed verb ("likes" -> "dislikes"), or None.

        A verb keeps its frame, so the antonym has to fit it: not a to-infinitive ("likes to
        wear" -> "dislikes to wear", "agreed to hear" -> "disagreed to hear") nor a particle.
        A degree ("I like him even more now"), a range ("increase from 480 tons to 2600
        tons"), the antonym elsewhere in the sentence ("0 (strongly disagree) to 7 (strongly
        agree)"), an additive ("he hated her as well"), a reason ("hated them out of
        jealousy", "loves Eddie, because he is so humble") or a clause set beside or against
        it ("I hate the hot days but we get them", "I never use eggs ..., I hate them",
        "'Okay,' I agreed") agrees with the original verb only, and the edited sentence no
        longer holds together.
        """
        on = self.filters
        children = list(token.children)
        if on("position") and (
            position != "predicative"
            or any(c.dep_ == "xcomp" and any(g.tag_ == "TO" for g in c.children) for c in children)
            or any(c.dep_ == "prt" for c in children)
        ):
            return "position"
        antonyms = {a.name().lower() for a in sense.antonyms}
        degrees = [w for w in token.subtree if w.dep_ in syntax.DEGREE_DEPS and w.lower_ in _VERB_DEGREES]
        if on("comparison_standard") and (
            any(syntax.adverb_of(w, token) for w in degrees)  # "like him even more now", "agree somewhat"
            or any(c.dep_ == "prep" and c.lower_ in ("from", "to") for c in children)
            or any(w.lemma_.lower() in antonyms for w in token.sent)
        ):
            return "comparison_standard"
        # "disliked by some citizens" -> "liked by some citizens": other citizens; "agree with
        # them about certain things" -> "disagree ... about certain things": other things;
        # "Something was approved", "A very big decision strengthens our family", "People hate
        # playing billiards": another thing, decision or person
        subjects = [c for c in children if c.dep_ in ("nsubj", "nsubjpass")]
        actors = subjects + [o for c in children if c.dep_ == "agent" for o in c.children if o.dep_ == "pobj"]
        objects = [c for c in children if c.dep_ == "dobj"]  # "won many MMA fights" -> "lost many"
        objects += [o for c in children if c.dep_ == "prep" for o in c.children if o.dep_ == "pobj"]
        generic = token.tag_ in ("VBZ", "VBP") and not any(c.dep_ in ("aux", "auxpass") for c in children)
        contest = token.lemma_.lower() in _CONTEST_VERBS
        if on("existential_scope") and (
            any((d.dep_ == "det" and d.lower_ in syntax.EXISTENTIAL) or (d.dep_ == "amod" and d.lower_ in _SOME_OF)
                for a in actors + objects for d in a.children)
            # "won more than nine titles" -> "lost more than nine titles"
            or any(d.dep_ == "nummod" for o in children if o.dep_ == "dobj" for d in o.children)
            or any(a.lower_ in syntax.SOME_ONE for a in actors)
            # a bare plural: "People loved Scarlet Days" -> "People hated": other people;
            # "Greenhouse gases have increased": some gases may have decreased
            or any(
                a.pos_ == "NOUN" and a.tag_ == "NNS" and not any(d.dep_ in ("det", "poss", "nummod") for d in a.children)
                for a in subjects
            )
            # "a" before the subject of a generic statement ("A very big decision strengthens our
            # family") or of a contest ("A wrestler won the fight": the other wrestler lost it)
            or ((generic or contest) and any(
                a.pos_ == "NOUN" and any(d.lower_ in ("a", "an") for d in a.children) for a in subjects
            ))
            or (sense.lemma.name().lower() in _ATTITUDE_VERBS and token.tag_ == "VBN"
                and any(c.dep_ == "auxpass" for c in children) and not any(c.dep_ == "agent" for c in children))
        ):
            return "existential_scope"
        # "won power" -> "lost power": one wins or loses a contest, but "loses" power one has; and
        # "The trophy was lost by Nixon" reads as mislaid
        if on("position") and contest and (
            (token.tag_ == "VBN" and any(c.dep_ in ("auxpass", "nsubjpass") for c in children))
            or not all(syntax.is_contest(wn, o) for o in children if o.dep_ == "dobj")
        ):
            return "position"
        if on("imperative") and in_imperative_clause(token):
            return "imperative"
        doc = token.doc
        clause = (token, *token.ancestors)
        if on("coordination") and (
            syntax.reason_or_result(token)
            or syntax.gives_cause(token)
            or any(c.dep_ == "advmod" and (c.lower_ in _ADDITIVE or (c.lower_ == "well" and c.i > 0
                   and doc[c.i - 1].lower_ == "as")) for c in children)
            or any(c.dep_ == "prep" and c.lower_ in _REASON_PREPOSITIONS for c in children)
            or any(
                (c.dep_ == "advcl" and any(m.dep_ == "mark" and m.lower_ in syntax.CONCESSIVE
                                           for m in c.children))
                or (c.dep_ == "conj" and c.pos_ in ("VERB", "AUX"))
                or (c.dep_ == "cc" and c.lower_ in syntax.CONTRAST)
                for v in clause for c in v.children
            )
            or any(v.dep_ == "conj" for v in clause)
            or any(c.dep_ == "conj" or c.dep_ == "intj" or (c.dep_ in ("ccomp", "parataxis") and c.i < token.i)
                   for c in children)
            or token.dep_ == "parataxis" or (token.dep_ == "ccomp" and token.i < token.head.i)
            # another clause the parser split off: "I hate the hot days but we get them"
            or any(t.dep_ == "ROOT" and t.i != token.sent.root.i for t in doc)
        ):
            return "coordination"
        return None


    def _rare_antonym(self, entry: Entry, sense: Sense, resolved: bool) -> bool:
        """Every antonym the word could get is rarer than ``min_antonym_zipf`` in general
        English (wordfreq's Zipf scale: 3 is once per million words): "incorrupt",
        "impermanent", "uneager" read as errors even where WordNet lists them."""
        from wordfreq import zipf_frequency

        names = [a.name().lower() for a in sense.antonyms]
        if self.filters("ambiguous_antonym") and not resolved:
            names = [n for n in names if n == entry.dominant[0]] or names
        return all(
            zipf_frequency(n.replace("_", " "), "en") < self.min_antonym_zipf for n in names
        )


    def _word_reason(self, wn: Any, token: Any, lemma: str, entry: Entry, sense: Sense,
                     synset: Any, position: str, resolved: bool = False) -> str | None:
        """The first switched-on word filter that rejects this candidate, or None."""
        on = self.filters
        if on("excluded_lemma") and (
            {lemma, token.lower_, token.lemma_.lower()} & self.exclude_lemmas
        ):  # (spaCy's lemma too: WordNet lists "greater" apart from "great")
            return "excluded_lemma"
        if on("named_entity"):
            head = token.head
            capitalised = token.text[:1].isupper() and token.i != token.sent.start
            if token.ent_iob_ != "O" or capitalised or (
                position == "attributive" and (head.pos_ == "PROPN" or head.ent_iob_ != "O")
            ):
                return "named_entity"
        if on("wordnet_compound") and wordnet_compound(
            wn, token, self._compounds, tuple(a.name().lower() for a in sense.antonyms)
        ):
            return "wordnet_compound"
        if on("rare_sense") and (
            (synset is not entry.synsets[entry.most_frequent] and not resolved)
            or not any(
                a.count() >= self.min_sense_count
                or negative_prefix(a.name(), lemma) or negative_prefix(lemma, a.name())
                for a in sense.antonyms
            )
        ):
            return "rare_sense"
        if on("ambiguous_antonym") and not resolved:
            top, share = entry.dominant
            if share < self.min_antonym_share or top not in {
                a.name().lower() for a in sense.antonyms
            }:
                return "ambiguous_antonym"
        if on("rare_antonym") and self._rare_antonym(entry, sense, resolved):
            return "rare_antonym"
        if token.pos_ == "VERB":
            return self._verb_reason(wn, token, position, sense)
        if on("position") and (
            (lemma in _PERIOD_ADJECTIVES and position == "attributive")
            or (  # "full of energy" -> "empty of energy", "busy with shipping" -> "idle with"
                any(c.dep_ == "prep" and c.lower_ in SELECTED_PREPOSITIONS for c in token.children)
                and not any(
                    negative_prefix(a.name(), lemma) or negative_prefix(lemma, a.name())
                    for a in sense.antonyms
                )
            )
            or (lemma in ("true", "false") and any(
                (c.dep_ == "prep" and c.lower_ in _APPLIES_TO) or (c.dep_ == "advmod" and c.lower_ in _FOCUS)
                for c in token.children
            ))
            or syntax.on_behalf(wn, token, lemma)
        ):
            return "position"  # "an early material" -> "a late material"; "true of" -> "false of"
        if on("position") and token.tag_ in ("JJS", "RBS") and position == "predicative" and not any(
            c.dep_ in ("det", "poss") for c in token.children
        ):
            return "position"  # "it's best to golf" -> "it's worst to golf"
        if on("position") and lemma == "old" and token.head.lemma_.lower() in syntax.CHANGE_VERBS:
            return "position"  # "as they get older" -> "as they get younger" (or "newer"): age only grows
        if on("position") and token.tag_ in ("JJS", "RBS") and any(_RANK.fullmatch(c.lower_) for c in token.children):
            return "position"  # "the second tallest building ..., after the 102 m tower" -> "second shortest"
        infinitive = any(c.dep_ == "xcomp" for c in token.children)
        to_infinitive = any(  # "happy to help", not "happy being poor"
            c.dep_ == "xcomp" and any(g.tag_ == "TO" for g in c.children) for c in token.children
        )
        if on("position") and infinitive and (
            (lemma in _RAISING | _WILLING and to_infinitive)
            or not any(
                negative_prefix(a.name(), lemma) or negative_prefix(lemma, a.name())
                or (lemma in _TOUGH and a.name().lower() in _TOUGH)
                for a in sense.antonyms
            )
        ):
            return "position"  # "sure to invest", "careful not to shake" -> "careless not to"
        if on("conditional") and any(
            a.lower_ in ("toward", "towards")
            or (a.tag_ == "VBG" and a.dep_ in ("pcomp", "pobj")  # "the first step to building"
                and a.head.head.lemma_.lower() in _GOAL_NOUNS)
            for a in token.ancestors
        ):
            return "conditional"  # a goal: "a step to building a more effective government"
        if on("conditional") and syntax.under_condition(token):
            return "conditional"  # "When his colleagues aren't sadistic, they are successful"
        if on("position") and token.pos_ == "ADJ" and position == "predicative" and token.i > 0 and (
            token.doc[token.i - 1].dep_ == "pobj"
        ):
            return "position"  # "is at the county fair": a noun the parser read as a predicate
        if on("position") and syntax.identifying_clause(token):
            return "position"  # "all of the problems that were available" -> "... unavailable"
        if on("position") and lemma in _EPISTEMIC and syntax.with_clause(token):
            return "position"  # "I'm sure they did" -> "I'm unsure they did"
        if on("position") and not (
            (position == "predicative" and (token.pos_ != "ADJ" or syntax.linked(token)))
            or (
                position == "attributive"
                and synset.attributes()
                and not self.lexicon.relational(wn, lemma)
                and syntax.predicate_nominal(token.head)
            )
        ):
            return "position"
        described = syntax.described(token)  # the noun the word is said of (its head or subject)
        if on("abstract_subject") and self.lexicon.physical(synset) and not syntax.is_physical(wn, described):
            return "abstract_subject"
        if on("abstract_subject") and (
            (lemma in _SENSE_SHIFTS_FOR_PEOPLE or (lemma in ("old", "young") and position == "attributive"
                                                    and token.head.lemma_.lower() in _RELATIONS))
            and syntax.is_person(wn, described)
        ):
            return "abstract_subject"  # "a dark man", "a cold woman", "my old friend"
        if on("abstract_subject") and (
            (token.lower_ in _OF_LIVING_THINGS and not syntax.is_person(wn, described))
            or (lemma in _DANGER and syntax.may_be_person(wn, described))
            # a name is no event ("Turin was possible due to new centralized control"), and a
            # place is high or low in too many ways ("California is high": land, prices?)
            or (lemma in _VAGUE_OF_NAMES and described is not None
                and (described.pos_ == "PROPN" or described.ent_type_ != ""))
        ):
            return "abstract_subject"  # "That is unwell"; "because they were dangerous"
        if on("existential_scope") and (
            any(
                t.dep_ == "det" and t.lower_ in syntax.EXISTENTIAL
                for c in (*token.children, *(token.head.children if token.dep_ == "acomp" else ()))
                if c.dep_ == "xcomp"
                for t in c.subtree
            )  # "It is difficult to catch some bugs"
            or syntax.existential(described, bare_plural=True)
            or (  # "Cultural festivals are the worst place": the subject the predicate noun is said of
                described is not None and described.dep_ == "attr" and any(
                    s.dep_ in ("nsubj", "nsubjpass") and syntax.existential(s, bare_plural=True)
                    for s in described.head.children
                )
            )
            or (position == "attributive" and token.head.lemma_.lower() in _QUANTITY_NOUNS)
            or any(  # "Women who have become rich ...": the clause picks out whom it speaks of
                a.dep_ == "relcl" and syntax.existential(a.head, bare_plural=True)
                for a in (token, *token.ancestors)
            )
            or any(  # "There is an old woman in the village": one of perhaps several
                a.pos_ == "NOUN" and a.dep_ in ("attr", "nsubj")
                and any(c.dep_ == "expl" for c in a.head.children)
                for a in (token, *token.ancestors)
            )
            # "Only one of the two plants is able", "only something wrong": the word holds of
            # one and its antonym of the rest; "Parts of Europe are still illiterate": and other
            # parts literate
            or (described is not None and (
                any(c.lower_ == "only" and c.tag_ == "RB" for c in described.children)
                or (described.tag_ == "NNS" and described.lemma_.lower() in _PART_NOUNS
                    and not any(c.dep_ in ("det", "poss") for c in described.children))
            ))
            or syntax.on_some_occasions(token)
            or syntax.at_another_time(token)
            or syntax.reported_by_some(token)
            or any(  # "available in many shops": and unavailable in many others
                c.dep_ == "prep" and any(syntax.some_places(o) for o in c.children if o.dep_ == "pobj")
                for c in (*token.children, *(token.head.children if token.dep_ == "acomp" else ()))
            )
        ):
            return "existential_scope"
        if on("comparison_standard") and (
            any(
                a.lower_ == "than"
                or (a.lower_ in ("as", "like", "unlike") and a.dep_ == "prep")
                or (a.pos_ == "NOUN" and a.lemma_.lower() in _COMPARISON_NOUNS)
                for a in token.ancestors
            )
            or any(c.lower_ in _DEGREE_WORDS for c in token.children)
            # "less educated" -> "less uneducated": a degree below, doubly negated
            or any(c.dep_ == "advmod" and c.lower_ in ("less", "least") for c in token.children)
            # "more important" -> "more unimportant" (English says "less important")
            or (any(c.dep_ == "advmod" and c.lower_ in ("more", "most") for c in token.children)
                and any(negative_prefix(a.name(), lemma) for a in sense.antonyms))
            # "completely unrelated" -> "completely related": these grade an absence only
            or (any(c.dep_ == "advmod" and c.lower_ in _ABSENCE_DEGREES for c in token.children)
                and any(negative_prefix(lemma, a.name()) for a in sense.antonyms))
            or (token.dep_ in syntax.PREDICATIVE and any(  # "are sorely absent"
                c.lower_ in _DEGREE_WORDS and c.dep_ == "advmod" and c.i < token.i for c in token.head.children
            ))
            or any(c.dep_ == "npadvmod" for c in token.children)  # "a mile long"
            # "acutely aware" -> "acutely unaware": an adverb that grades this word only
            or any(c.dep_ == "advmod" and c.lower_.endswith("ly") and c.lower_ not in _GENERAL_DEGREES
                   for c in token.children)
            # "so grateful ... that he sent flowers": the result clause follows from the degree
            or (any(c.dep_ == "advmod" and c.lower_ == "so" for c in token.children)
                and any(w.lower_ == "that" or w.dep_ == "ccomp" for w in token.sent if w.i > token.i))
            # ... and the word in that clause: "so long that he will be successful eventually"
            or any(
                a.dep_ in ("ccomp", "advcl") and any(c.dep_ == "mark" and c.lower_ == "that" for c in a.children)
                and any(c.dep_ == "advmod" and c.lower_ in ("so", "such") for c in a.head.children)
                for a in (token, *token.ancestors)
            )
            or any(  # its own antonym in the sentence: "an even male, female ratio", "not bad, ... good"
                w.lemma_.lower() in {a.name().lower() for a in sense.antonyms} for w in token.sent
            )
        ):
            return "comparison_standard"
        if on("imperative") and in_imperative_clause(token):
            return "imperative"  # "We are having a conversation, please be respectful."
        if on("coordination") and syntax.coordinated(token):
            return "coordination"
        if on("position") and token.i > 0 and token.doc[token.i - 1].lower_ in ("a", "an") and any(
            a.name() == "little" for a in sense.antonyms
        ):
            return "position"  # "a big step" -> "a little step" reads as the quantifier "a little"
        return None

    def _candidates(
        self, wn: Any, lesk: Any, doc: Any
    ) -> tuple[list[_Candidate], list[tuple[_Candidate, str]], bool]:
        """The replaceable words of ``doc``, the words a filter rejected (each with the filter's
        name), and whether a verb was passed over only because ``verb_pairs`` does not list
        its antonym."""
        text = doc.text
        context = None
        out: list[_Candidate] = []
        rejected: list[tuple[_Candidate, str]] = []
        unlisted = False
        sentence_reasons_of: dict[int, list[str]] = {}
        # The row is the whole text, so transcripts and source errors anywhere in it count.
        text_reasons = (
            sentence_reasons(doc[:], self.filters, ("disfluent",))
            or (["passage"] if self.filters("passage") and is_passage(doc) else [])
            or (["source_grammar"] if self._grammar is not None and self._grammar.faults(doc[:]) else [])
        )
        for token in doc:
            wn_pos = WORDNET_POS.get(token.pos_)
            if token.pos_ not in self.pos or not WORD.fullmatch(token.text):
                continue
            start, end = token.idx, token.idx + len(token.text)
            if text[start - 1 : start] in _JOINERS or text[end : end + 1] in _JOINERS:
                continue  # part of a compound: "9-month-old", "debt-free"
            found = self.lexicon.lookup(wn, token, wn_pos)
            if found is None:
                unlisted = unlisted or (wn_pos == "v" and self.lexicon.unlisted_verb(wn, token))
                continue
            lemma, entry = found
            if context is None:
                context = [t.lower_ for t in doc]
            # The candidate senses are the lemma's senses of this part of speech, adjective
            # satellites included (NLTK's own pos="a" filter would drop them, forcing a head
            # sense onto words used in a satellite sense; satellites have no antonyms).
            if self.word_sense == "lesk":
                synset = lesk(context, lemma.replace(" ", "_"), None, synsets=entry.synsets)
            else:
                synset = entry.synsets[entry.most_frequent]
            sense = entry.senses.get(synset.name()) if synset is not None else None
            personal = self._personal_sense(wn, token, entry)
            if personal is not None:
                synset, sense = personal  # "an old man" -> young, "an old house" -> new
            if sense is None:
                continue
            sent = token.sent
            if sent.start not in sentence_reasons_of:
                sentence_reasons_of[sent.start] = text_reasons or sentence_reasons(
                    sent, self.filters, ("question", "imperative", "fragment")
                )
            position = syntax.position(token)
            reasons = sentence_reasons_of[sent.start] or scope_reasons(token, self.filters)
            reason = reasons[0] if reasons else self._word_reason(
                wn, token, lemma, entry, sense, synset, position, resolved=personal is not None
            )
            if reason is None and self.filters("comparison_standard") and syntax.focus_even(sent):
                reason = "comparison_standard"  # a scalar "even" anywhere in the sentence
            if reason is None and self.filters("inflection") and (
                (token.lower_ != lemma and token.tag_ not in _INFLECTED)
                or self.lexicon.analytic_degree(token, sense)
            ):
                reason = "inflection"  # "colder" tagged JJ; "more difficult" -> "more easy"
            if reason is None and self.filters("ambiguous_antonym") and personal is None:
                dominant = entry.dominant[0]
                sense = Sense(sense.lemma, tuple(a for a in sense.antonyms
                                                  if a.name().lower() == dominant))
            if reason is None and self.filters("future") and has_future(scope(token)):
                reason = "future"  # "The budget will increase": a forecast, not a fact
            article = None
            if token.i > 0:
                before = doc[token.i - 1]
                if before.lower_ in ("a", "an") and before.whitespace_:
                    article = (before.idx, before.idx + len(before.text), before.text)
            cand = _Candidate(
                index=token.i,
                start=start,
                end=end,
                word=token.text,
                tag=token.tag_,
                pos=token.pos_,
                inflected=token.lower_ != lemma,
                sense=sense,
                synset=synset.name(),
                article=article,
                position=position,
            )
            if reason is None:
                out.append(cand)
            else:
                rejected.append((cand, reason))
        return out, rejected, unlisted

    # -- generation --------------------------------------------------------

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        # Distinct sentences in table order (row by row, premise then hypothesis).
        uids = table.column("uid").to_pylist()
        genres = (
            table.column("genre").to_pylist()
            if "genre" in table.column_names
            else [None] * table.num_rows
        )
        sides = {side: table.column(side).to_pylist() for side in ("premise", "hypothesis")}
        sentences: list[tuple[str, str, str, str | None]] = []  # text, source uid, side, genre
        seen: set[str] = set()
        for i, uid in enumerate(uids):
            for side in ("premise", "hypothesis"):
                text = sides[side][i]
                counts.input += 1
                if text in seen:
                    counts.drop(DROP_DUPLICATE)
                    continue
                seen.add(text)
                sentences.append((text, uid, side, genres[i]))
        del seen, sides
        self.rejected = Counter()
        if not sentences:
            return

        from nltk.wsd import lesk

        wn = wordnet(self.params)
        nlp = spacy_pipeline(self.params)
        self._grammar = (
            SourceGrammar(wn, WordFrequencyBounds.from_params(self.params))
            if self.filters("source_grammar")
            else None
        )
        docs = with_progress(nlp.pipe((s[0] for s in sentences), batch_size=self.batch_size), self.test,
                             "sentences parsed", log, total=len(sentences))  # fmt: skip
        for (text, source_uid, side, genre), doc in zip(sentences, docs, strict=True):
            candidates, rejected, unlisted = self._candidates(wn, lesk, doc)
            self.rejected.update(reason for _, reason in rejected)
            source = (text, source_uid, side, genre)
            rng = row_rng(context.seed, text)
            chosen = rng.sample(candidates, min(self.max_per_sentence, len(candidates)))
            rows = [row for cand in sorted(chosen, key=lambda c: c.index)
                    if (row := self._row(cand, rng, source, context)) is not None]  # fmt: skip
            if self.dropped is not None:
                # their own random stream, so the set is the same with or without them
                dropped_rng = row_rng(context.seed, f"dropped|{text}")
                self.dropped += [row for cand, reason in rejected
                                 if (row := self._row(cand, dropped_rng, source, context, reason)) is not None]  # fmt: skip
            if rows:
                counts.kept += 1
                yield from rows
            elif rejected:
                counts.drop(drop_reason(decisive([reason for _, reason in rejected], FILTERS)))
            else:
                counts.drop(DROP_UNLISTED_VERB if unlisted else DROP_NO_ANTONYM)

    def _row(
        self, cand: _Candidate, rng: random.Random, source: tuple[str, str, str, str | None],
        context: Context, dropped_by: str | None = None,
    ) -> SetRow | None:
        """The pair that replaces ``cand`` by an antonym (None where the antonym is the same
        word); ``dropped_by`` names the filter that rejected it, for ``dropped``."""
        text, source_uid, side, genre = source
        antonym = rng.choice(cand.sense.antonyms)
        tag = cand.tag if cand.inflected else ""
        replacement = match_case(cand.word, _inflect(antonym.name(), tag, cand.pos))
        if replacement == cand.word:
            return None
        hypothesis = text[: cand.start] + replacement + text[cand.end :]
        article = _article_fix(cand, replacement)
        if article is not None:
            start, end = article["char_start"], article["char_end"]
            hypothesis = hypothesis[:start] + article["replacement"] + hypothesis[end:]
        return SetRow(
            uid=f"antonymy:{source_uid}:{side}:{cand.index}",
            dataset=context.dataset,
            split=context.split,
            premise=text,
            hypothesis=hypothesis,
            label="contradiction",
            label_id=LABELS.index("contradiction"),
            genre=genre,
            source_uid=source_uid,
            perturbation=self.test,
            params={
                "side": side,
                "word": cand.word,
                "replacement": replacement,
                "lemma": cand.sense.lemma.name(),
                "antonym_lemma": antonym.name(),
                "pos": cand.pos,
                "tag": cand.tag,
                "position": cand.position,
                "synset": cand.synset,
                "antonym_synset": antonym.synset().name(),
                "token_index": cand.index,
                "char_start": cand.start,
                "char_end": cand.end,
                "article": article,
                **({"filter": dropped_by} if dropped_by else {}),
            },
        )

    def extra_stats(self) -> dict[str, Any]:
        return {
            "filters": self.filters.active(),
            "candidate_words_rejected": dict(sorted(self.rejected.items())),
        }

    def card_notes(self, manifest: Mapping[str, Any]) -> str:
        rows = manifest.get("rows") or {}
        ours = manifest.get("output_rows", rows.get("kept"))
        split = manifest.get("split") or (manifest.get("source") or {}).get("split")
        paper = None
        if manifest.get("dataset", "mnli") == "mnli" and split in PAPER_PAIRS:
            paper = PAPER_PAIRS[split]
        lines = ["### Comparison with the paper", ""]
        if ours is not None:
            built = f"This set has **{ours:,}** pairs"
            if rows.get("input"):
                built += f", from {rows['input']:,} sentences ({rows['input'] // 2:,} source pairs)"
            lines.append(built + ".")
        if paper is not None:
            full = rows.get("input", 0) // 2 == FULL_SPLIT_ROWS[split]
            lines.append(
                f"Naik et al. (2018) report {paper:,} pairs for the full MultiNLI "
                f"{split.replace('_', '-')} set"
                + (
                    " (the same source rows as here)."
                    if full
                    else "; this set was built from a sample of it, so the counts are not comparable."
                )
            )
        else:
            lines.append(
                "Naik et al. (2018) report 1,561 pairs for MultiNLI dev-matched and 1,734 for "
                "dev-mismatched (the full sets); they built no antonymy set for other data."
            )
        pos = ", ".join(self.pos)
        sense = (
            "the lemma's most frequent sense in SemCor (WordNet's lemma counts)"
            if self.word_sense == "most_frequent"
            else "NLTK's simplified Lesk, kept only where it agrees with the most frequent sense"
        )
        lines += [
            "",
            "The counts are not expected to agree: this is the high-precision construction, "
            "which keeps a pair only where the contradiction is certain (the paper-exact "
            "construction is a separate mode). Each choice moves the count:",
            "",
            f"- **Words replaced**: words that spaCy `en_core_web_sm` tags as {pos} "
            "(adverbs only as manner adverbs of a verb; verbs only as a pair of `verb_pairs`, "
            "heading their own clause); spaCy's lemma (WordNet's morphy as a "
            "fallback) is looked up in WordNet. Words inside hyphenated or slashed compounds "
            "are left alone.",
            f"- **Word senses**: {sense}; the antonym is the one that holds most of the lemma's "
            "frequency across its senses (`min_antonym_share`), or, for an adjective WordNet "
            "glosses as being of persons (\"old\"), the sense that fits what it describes.",
            "- **Precision filters** (`filters`, each counted above as `filter: <name>`): "
            + ", ".join(f"`{name}`" for name in self.filters.active())
            + ". They drop questions, imperatives, transcripts, source errors, words under "
            "negation, modals, conditionals or in non-asserted clauses, quantifiers and "
            "excluded lemmas, names, fixed compounds, rare or ambiguous senses, antonyms too "
            "rare in general English to read as English (wordfreq, `min_antonym_zipf`), classifying "
            "and definite attributive uses, existential or generic scope, comparisons, "
            "sentences that give a cause, and figurative physical adjectives; the module documentation of "
            "`nlistress.perturb.antonymy` defines each.",
            f"- **Pairs per sentence**: at most {self.max_per_sentence} per distinct sentence "
            "(setting `max_per_sentence`), each replacing a different word.",
            "- **Deduplication**: each distinct sentence is used once, however many source "
            "pairs contain it (in MultiNLI one premise usually comes with several hypotheses); "
            "the sentence's first source pair is its `source_uid`.",
            "- **Source text**: sentences are used as released (not lower-cased or "
            "re-tokenised); only the replaced word changes, keeping its inflection and "
            "capitalisation, plus `a`/`an` before it where the replacement needs the other.",
            "- **The authors' released script** (`make_antonym_adv_samples.py` in "
            "AbhilashaRavichander/NLI_StressTest) differs from the paper's description: it "
            "read MultiNLI 0.9, ran Lesk on the lower-cased tokens of the binary parse over "
            "all parts of speech, and kept a word only when the chosen sense was a noun or an "
            "adjective satellite. In WordNet 3.0 adjective satellites have no antonym links, "
            "so by that rule only nouns could be replaced. It then kept every antonym of every "
            "lemma of the sense (skipping multi-word antonyms and a short list of words) and "
            "removed duplicate pairs.",
            "- **Quality on text the filters were not written from**: the filters were "
            "written from judged rows of MultiNLI dev-matched. Three sets none of them had been "
            "written from were judged before any rule was added for them: the 63 pairs from "
            "the 1,000-row dev-mismatched sample (sha256 `85ec7302…`, every row) had 85.7% of "
            "their labels right and 68.3% of their rows grammatical, 100 of the 165 pairs "
            "from SNLI test (sha256 `6541ebab…`) 92.0% and 83.0%, and 100 of the 269 pairs "
            "from ANLI dev (Wikipedia and news passages) 74.0% and 64.0%. After the rules the "
            "ANLI rows called for (`passage` and four others), the 89 pairs of the new ANLI "
            "build that no one had judged had 86.5% of their labels right (95% interval "
            "77.9 to 92.1%) and 76.4% of their rows grammatical. On SNLI dev, 100 of 198 pairs "
            "had 92.0% and 87.0% before the rules they called for, and the 96 that no one "
            "had judged of the rebuild's 189 (sha256 `c9deb0f2…`) 92.7% and 85.4% after them; "
            "after every rule, the 65 adjective and adverb pairs of the SNLI test build "
            "(sha256 `252d6cd3…`) that no one had judged had 89.2% and 92.3% (before the one "
            "rule they called for). "
            "Those figures are of adjectives and adverbs; the 55 verb pairs (`verb_pairs`) "
            "of those ANLI and SNLI builds had 81.8% of their labels right and 90.9% of their "
            "rows grammatical before the rules they called for (contests with other "
            "participants, bare plurals, \"somewhat\"). "
            "Every held-out row was later judged a second time by a strict blind judge; counting "
            "a row right only if both said so, 83.6% of 73 ANLI pairs, 95.6% of 90 SNLI dev pairs "
            "(93.4% before a fix of the age sense of \"old\" two of them called for) "
            "and 95.1% of 164 SNLI test pairs are right (92.6% of all 353); the cause rule "
            "(2026-11-25) then dropped 9 of them, 2 wrong labels and 5 ungrammatical rows among them "
            "(93.0% of the 344 left), the `future` filter 6 more (93.2% of the 338 left), and "
            "three rules written from these rows (2026-11-25: an adjective after a verb that "
            "does not link it, \"be going to\", \"the idea of being healthy\") 6 more, 5 of "
            "them wrong labels (94.6% of the 332 left, in-sample for those rules). "
            "Expect 80 to 93% on other text; a rate measured on the rows the filters were "
            "then written from overstates it. About half the ungrammatical rows of those "
            "held-out reviews repeat a fault of the source text; the faults the edit itself "
            "made leave 88 to 95% of their rows free of one (README, \"Where the grammar "
            "faults lie\").",
            "- **Judged strictly**: every row of the MultiNLI dev-matched build (498 pairs, sha256 "
            "`8c1bc5d0…`) was judged a second time, blind, by annotators who count a reported, "
            "conditional or generic word as no contradiction, and counts as right only if both "
            "judgements said so: 95.6% of the labels (95% interval 93.4 to 97.1%), in-sample for "
            "the last rules these checks called for (reported claims and direct speech, bare plural "
            "subjects, clauses under a condition, hedges, charges, agentless attitudes, a scalar "
            "\"even\"); a fresh strict sample of 100 rows had found 93.9% before them (README, "
            "\"A strict blind recheck\"), and a third strict blind judge found 99.0% of 100 "
            "fresh rows right (99 of them still built). "
            "A fourth judge then read the edited sentence of every row both had passed for "
            "coherence and found 48 incoherent (counted as faults of the edit). A fifth, strict "
            "judge (a \"will\" prediction counts as a modal, an unidiomatic edit as a fault) read "
            "the 374 rows every judge had passed and took 24 (16 of them for the label), and a "
            "sixth, a copy-editor judging grammar alone, took 5 more: counting every judge, "
            "92.4% of the labels are right (460 of 498; 95% interval 89.7 to 94.4%) and 75.1% of "
            "the rows grammatical. A last rule (2026-11-25, `coordination`) drops a sentence that "
            "gives a cause (\"Driving is easy because it takes many hours\"), 17 of whose "
            "30 pairs had been judged ungrammatical: on the 468 pairs left, 92.3% of the labels are right "
            "(432; 95% interval 89.5 to 94.4%) and 77.1% of the rows grammatical (361), in-sample "
            "for that rule. The `future` filter (2026-11-25) then dropped the 14 predictions "
            "(\"The budget will increase by 6 billion dollars\"), 12 of whose labels the fifth "
            "judge had taken while the other judges who read them passed 18 of 19: a label in "
            "doubt. On the 454 pairs left, 94.7% of the labels are right (430; 95% interval 92.3 "
            "to 96.4%) and 76.9% of the rows grammatical (349), in-sample for that rule and below "
            "the 95% target on both. Four fresh blind judges who had read no earlier build then "
            "judged every one of the 454 (two under the brief, two strict; right only where all "
            "four said so): 93.2% of the labels right (95% interval 90.5 to 95.1%) and 77.1% of "
            "the rows grammatical, below the target too. The three held-out rules above took one "
            "more pair, right but ungrammatical (\"It works pretty good\"): on the 453 left, 94.7% "
            "of the labels are right (429; 95% interval 92.2 to 96.4%) and 77.0% of the rows "
            "grammatical (349), and 93.2% and 77.3% by the fresh judges. The census counts the "
            "fresh judges' no's too: 91.4% of the labels right (414; 95% interval 88.4 to 93.6%) "
            "and 73.7% of the rows grammatical (334). "
            "The rows every judge passed, with the pairs the filters "
            "dropped that every judge passed, are released as `antonymy_reviewed` (1,069 pairs; "
            "four fresh blind judges read every row: 97.8% of the labels right and 97.8% of the "
            "rows grammatical, a row right only where all four said so).",
            "- **Resources**: WordNet 3.0 through NLTK; other WordNet versions differ in "
            "senses, glosses and antonym links. Word frequencies are wordfreq's English "
            "lists (the version pinned in `constraints.txt`).",
        ]
        return "\n".join(lines) + "\n"


def _inflect(antonym: str, tag: str, pos: str) -> str:
    """The antonym lemma (underscores as spaces) in the inflection ``tag`` of the original word."""
    words = antonym.replace("_", " ").split(" ")
    if tag not in _INFLECTED:
        return " ".join(words)
    from lemminflect import getInflection

    target = "NNS" if tag == "NNPS" else tag
    if (antonym, tag) in _IRREGULAR:
        return _IRREGULAR[antonym, tag]
    if tag in _GRADED:
        forms = getInflection(words[0], target, inflect_oov=False) if len(words) == 1 else ()
        return forms[0] if forms else f"{_GRADED[tag]} {' '.join(words)}"
    # Nouns inflect their head (last word), verbs their first word ("take off" -> "took off").
    at = 0 if pos == "VERB" else len(words) - 1
    forms = getInflection(words[at], target, inflect_oov=True)
    if forms:
        words[at] = forms[0]
    elif target == "NNS":
        words[at] += "s"
    return " ".join(words)


def _article_fix(cand: _Candidate, replacement: str) -> dict[str, Any] | None:
    """The a/an change a replacement needs ("a patient" -> "an impatient"), or None.

    Only an article that agrees with the original word by the spelling rule is
    changed, so idiomatic uses ("an hour", "a university") are left alone.
    """
    if cand.article is None:
        return None
    start, end, text = cand.article
    if text.lower() != indefinite(cand.word):
        return None
    wanted = indefinite(replacement)
    if wanted == text.lower():
        return None
    return {
        "word": text,
        "replacement": match_case(text, wanted),
        "char_start": start,
        "char_end": end,
    }
