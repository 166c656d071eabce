"""Competence test: numerical reasoning on AQuA-RAT sentences (Naik et al. 2018, 3.1).

Following the paper:

1. Problems whose correct answer is not a number, or whose rationale is longer
   than ``max_rationale_sentences`` sentences, are discarded.
2. The questions of the remaining problems are split into sentences (spaCy);
   a sentence is a premise when it holds at least one number and at least one
   named entity of ``entity_labels`` (spaCy NER).
3. Every premise gives three pairs:

   * entailment: one number x, chosen at random, is changed to y and prefixed
     with "less than" when y > x, "more than" when y < x ("Tim has 350
     pounds" -> "Tim has less than 750 pounds");
   * contradiction: with equal probability a randomly chosen number is changed
     (no prefix), or it is kept and prefixed with "less than"/"more than";
     before a plural noun that counts separate things, "less than" is
     written "fewer than" ("fewer than 17 musicians"; "less than 10 kg",
     "less than 3 hours", "less than $300" keep it);
   * neutral: the entailed pair flipped (from "less than 750" one cannot
     conclude "350").

Definitions this module adds to the paper's description:

* **Numerical answer**: the text of the correct option is one integer or
  decimal literal (thousands separators allowed), optionally with a leading or
  trailing currency sign (``$ £ € ₹ ¥ Rs Rs. INR``), a sign, a trailing ``%`` or
  ``°``, up to three trailing unit words (``12,096 pounds of water``,
  ``17.456 m/sec``) and a final full stop. Fractions (``1/2``), ratios and
  times (``16:15``), lists, expressions (``40*pi``, ``2500p``), ordinals and
  words (``None of these``) are not numerical.
* **Rationale sentences**: the rationale is cut at newlines (AQuA-RAT writes
  one step per line, mostly equations without final stops) and every
  non-empty line is split into spaCy sentences; the count is the total. A
  line that only names the chosen option (``Answer: C``, ``Correct answer -
  A``) is not counted: it is the solution's label, not a reasoning step.
  A missing rationale counts as zero sentences.
* **Question sentences**: whitespace runs (including the line wraps some
  questions have) are collapsed to one space, then spaCy splits the text;
  ``sentence_index`` numbers all sentences of the question from 0.
* **Numbers**: unsigned integer and decimal literals with optional thousands
  separators (``350``, ``5,000``, ``0.6``, ``Rs.465.50``). Not numbers to
  change: parts of fractions, mixed numbers, ratios, times, powers, ranges
  and lists (``1/2``, ``1 1/2``, ``3:4``, ``8.15 a.m``, ``2^5``, ``3-4``,
  ``1,2``), operands glued to an operator (``x+5``, ``2*3``, ``-5``),
  ordinals and clock times (``2nd``, ``10am``), numbers glued to a letter
  variable (``3x``, ``72π``; ``750m``, ``5h``, ``20g`` and longer unit
  suffixes such as ``10km`` are kept), numbers inside an entity of
  ``entity_labels`` (``Boeing 747``), and zero (x(1 ± r) would stay 0).
* **Changing a number**: y = x(1 + r) or x(1 - r), the direction and r ~
  U(change_range) drawn per edit, rounded half-up to x's number of decimals.
  When rounding gives back x, y moves one unit of that precision in the drawn
  direction; when a decrease would reach 0 (x of one unit, or r near 1) the
  increase is used instead ("1 part" never becomes "more than 0 part"). So
  y != x and y > 0 always. y is written in x's style: same number of
  decimals, thousands separators only when x had them.
* **Prefix placement**: a currency sign right before the number stays with it
  and the phrase goes in front ("$200" -> "less than $300"); at the start of
  a sentence the phrase is capitalised ("Less than 300 people ...").

Precision filters (``filters`` setting; each drop counted as ``filter: <name>``)
keep only premises whose three labels the rules decide:

* the sentence filters of :mod:`.precision`: ``disfluent``, ``question``
  (any ``?`` in the sentence: "How far can Bill travel in 21 minutes?"),
  ``imperative`` ("Find the loss percentage"), ``fragment``;
* the scope filters ``negation``, ``modal`` and ``conditional`` on the
  changed number ("If he pays 12 installments", "wants to find 10 people"):
  a number that is not asserted cannot be compared;
* ``source_grammar``: the sentence was ungrammatical to begin with (a typo,
  "2 inch", a missing article: :class:`.source_grammar.SourceGrammar`);
* ``entity_quality``: an entity counts only when it looks like a name: words
  of letters only, at least one of them capitalised and longer than one
  letter, none a single capital or a two-letter capital pair (geometry's
  "AC", "Hose A"), a unit or an abbreviation with periods ("Rs.465.50",
  "p.a.", "x=18P6", "cubic meters" are NER mistakes);
* ``number_context``: the number is one whose "less than" reading is not
  the sentence's: after an approximator ("about 15 mph", "at least"), in a
  coordination ("are 50 and 100 respectively"), in a hyphen compound
  ("3-letter codes"), after a determiner or adjective ("the first 2 hours",
  "a 60 percent increase"), after the word "ratio" or "proportion", in a
  sentence with "respectively", the number 1 (any other number needs a
  plural noun: "2 part bleach"), or a year ("in 1990").

Counts are in sentence units (``unit = "sentence"``): every sentence of every
question read is one input unit, so a problem dropped for its answer or its
rationale drops all its sentences under that reason; a kept sentence yields
exactly three rows. Problem-level counts are kept in ``problem_counts`` and
``stats`` after ``generate``.

All random choices of a premise come from ``row_rng(seed, "<source uid>:s<i>")``,
so any subset of the problems gets the same pairs as the whole set.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pyarrow as pa

from ..errors import ConfigError
from ..labels import LABELS
from ..manifest import RowCounts
from ..progress import with_progress
from ..resources import spacy_pipeline, wordnet
from .base import Context, Generator, SetRow, row_rng
from .precision import (
    SCOPE_FILTERS,
    SENTENCE_FILTERS,
    FilterSwitch,
    decisive,
    drop_reason,
    falls_under,
    scope_reasons,
    sentence_reasons,
)
from .source_grammar import SourceGrammar, WordFrequencyBounds

log = logging.getLogger(__name__)

LABEL_IDS = {label: i for i, label in enumerate(LABELS)}
LESS, MORE = "less than", "more than"
FEWER = "fewer than"  # LESS before a plural count noun
_PLURAL_COLLECTIVES = frozenset({"people", "persons", "cattle", "police"})
#: WordNet classes of amounts, which take "less than" in the plural ("less than 10 hours")
_AMOUNT_CLASSES = frozenset({"unit_of_measurement.n.01", "measure.n.02"})

# Why a sentence was dropped (manifest `dropped` keys); the rationale reason is
# formatted with max_rationale_sentences, the entity reason with the labels.
DROP_ANSWER = "answer not numerical"
DROP_RATIONALE = "rationale longer than {n} sentences"
DROP_NO_NUMBER = "no number"
DROP_NO_CHANGEABLE = "no changeable number (only fractions, ratios, times, ordinals, zero, names)"
DROP_NO_ENTITY = "no {labels} entity"

NUMBER_FILTERS = ("number_context",)
FILTERS = (*SENTENCE_FILTERS, "source_grammar", "entity_quality", *SCOPE_FILTERS, *NUMBER_FILTERS)
# Words before a number that make it approximate or a bound ("about 15", "at least 5").
_APPROXIMATORS = frozenset(
    {"about", "approximately", "around", "nearly", "almost", "roughly", "over", "under",
     "least", "most", "up", "exactly", "only", "just", "some", "circa", "within", "than"}
)
# A number coordinated with another ("50 and 100", "$850, and $705", "5 to 7").
_NUMBER_AHEAD = r"(?:[$£€₹¥]|Rs\.?\s?)?\d"
_COORDINATED_AFTER = re.compile(r"\S*?\s*(?:,\s*)?(?:and|or|to|,)\s*" + _NUMBER_AHEAD)
_COORDINATED_BEFORE = re.compile(r"\d\S*\s*(?:,\s*)?(?:and|or|,)\s*(?:[$£€₹¥]|Rs\.?\s?)?$")
# A sentence that spaCy started after an abbreviation's period ("... Rs. 140 from Ranchi").
_ABBREVIATION_END = re.compile(
    r"\b(?:Rs|Mr|Mrs|Ms|Dr|St|No|Jr|Sr|Co|Inc|Ltd|vs|etc|approx|[ap]\.m|[A-Z])\.\s*$", re.IGNORECASE
)
# Units and abbreviations that NER takes for names.
_NOT_NAMES = frozenset({"rs", "inr", "cm", "km", "kg", "mph", "kmph", "sq", "ft", "hr", "hrs",
                        "min", "sec", "cubic", "meters", "metres", "percent"})

# A number literal in running text: 1,234,567.89 | 1234.5 | 12; answers may also be ".5".
_LITERAL = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
NUMBER = re.compile(_LITERAL)
_CURRENCY = r"(?:\$|£|€|₹|¥|Rs\.?|INR)"
# A currency sign right before a number in running text ("$200", "Rs. 700").
_CURRENCY_BEFORE = re.compile(_CURRENCY + r"\s?$")

_ANSWER = re.compile(
    rf"^\s*(?:{_CURRENCY}\s*)?(?P<sign>[-+]?)\s*(?P<num>{_LITERAL}|\.\d+)\s*(?:%|°|\$)?(?P<tail>.*?)\s*$",
    re.DOTALL,
)
# Trailing unit words of an answer: "pounds", "m/sec", "kmph.", "Min"
_UNIT_WORD = re.compile(r"^[A-Za-z]+(?:/[A-Za-z]+)?\.?$|^%$")
_SINGLE_LETTER_UNITS = frozenset("mhsglL")
_NOT_UNITS = frozenset({"pi"})
_MAX_UNIT_WORDS = 3

# A rationale line that only names the answer: "Answer: C", "Correct answer - A",
# "The answer is B.", "Ans: E", "Option D", "hence, answer is (C)"
_ANSWER_LINE = re.compile(
    r"^\W*(?:so|thus|hence|therefore)?\W*(?:the\s+)?(?:correct\s+|right\s+)?"
    r"(?:answer|ans|option|choice)\s*(?:is|will\s+be|should\s+be)?\s*(?:option\s*)?"
    r"[:\-=.]*\s*\(?[A-Ea-e]\)?\W*$",
    re.IGNORECASE,
)

_ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
_GLUED_UNITS = frozenset("mgh")  # "750m", "20g", "5h"; other single letters are variables
# multiplication, division and minus signs spelled out so that ruff does not flag them
_OPERATORS = "*+-=<>/:^_" + "\u00d7\u00f7\u2212"
_LETTERS = re.compile(r"[^\W\d_]+")
# Clock times and mixed numbers after a number: "10am", "8.15 a.m", "10 o'clock", "1 1/2"
_CLOCK_OR_MIXED = re.compile(r"\s?(?:[ap]\.\s?m\b|[ap]m\b|o['’]clock\b)|\s\d+/\d", re.IGNORECASE)


def parse_answer(text: str | None) -> float | None:
    """The number of a numerical answer text, or None when the answer is not one number.

    The value is the literal's, signed: units (scale words such as "million"
    included) are checked for form but not applied.
    """
    if not text:
        return None
    match = _ANSWER.match(text)
    if not match:
        return None
    tail = match.group("tail").strip()
    if tail.endswith("."):
        tail = tail[:-1].strip()
    if tail:
        # Glued units ("3hours", "40cm") and separate ones ("15 years") alike.
        words = tail.split()
        if len(words) > _MAX_UNIT_WORDS:
            return None
        for word in words:
            if not _UNIT_WORD.match(word):
                return None
            bare = word.rstrip(".").split("/")[0]
            if bare.lower() in _NOT_UNITS:
                return None
            if len(bare) == 1 and bare not in _SINGLE_LETTER_UNITS and bare != "%":
                return None
    value = float(match.group("num").replace(",", ""))
    return -value if match.group("sign") == "-" else value


def is_answer_line(line: str) -> bool:
    """True for a rationale line that only names the chosen option ("Answer: C")."""
    return bool(_ANSWER_LINE.match(line.strip()))


def number_value(literal: str) -> Decimal:
    return Decimal(literal.replace(",", ""))


def decimals_of(literal: str) -> int:
    return len(literal.split(".", 1)[1]) if "." in literal else 0


def format_like(value: Decimal, original: str) -> str:
    """``value`` written in ``original``'s style: number of decimals, thousands separators."""
    decimals = decimals_of(original)
    spec = f"{',' if ',' in original else ''}.{decimals}f"
    return format(value.quantize(Decimal(1).scaleb(-decimals)), spec)


def change_value(x: Decimal, decimals: int, direction: int, ratio: float) -> tuple[Decimal, int]:
    """x(1 + ratio) or x(1 - ratio), rounded half-up to ``decimals``; never x, never <= 0.

    When rounding gives back x, y moves one unit of the precision in
    ``direction``; when a decrease would reach 0 (a positive x, ratio near 1 or
    x of one unit), the increase is used instead. Returns y and the direction used.
    """
    unit = Decimal(1).scaleb(-decimals)
    for sign in (direction, -direction):
        y = (x * (1 + sign * Decimal(repr(ratio)))).quantize(unit, rounding=ROUND_HALF_UP)
        if y == x:
            y = x + sign * unit
        if y > 0:
            return y, sign
    raise AssertionError(f"cannot change {x}")  # unreachable for x > 0: the increase is > x


@dataclass(frozen=True)
class Number:
    """One changeable number of a sentence: its literal and character span."""

    text: str
    start: int
    end: int

    @property
    def value(self) -> Decimal:
        return number_value(self.text)


def find_numbers(sentence: str, protected: Sequence[tuple[int, int]] = ()) -> list[Number]:
    """The changeable numbers of ``sentence`` (see the module docstring for what is skipped).

    ``protected`` spans (named entities) hold no changeable number.
    """
    found = []
    for match in NUMBER.finditer(sentence):
        start, end = match.span()
        literal = match.group()
        before, after = sentence[:start], sentence[end:]
        prev = before[-1:] if before else ""
        if prev and (prev.isalnum() or prev == "_") and not _CURRENCY_BEFORE.search(before):
            continue  # "x2", "a1" (but "Rs16002" is money)
        if prev and prev in _OPERATORS:
            continue  # "1/2" denominator, "3:4", "2^5", "x-5", "3-4", "x+5", "-5"
        if prev == "." and not before[-2:-1].isalpha():
            continue  # "1.2.3", ".5" (but "Rs.700" is money)
        if prev == "," and before[-2:-1].isdigit():
            continue  # "1,2": a list without spaces
        if after[:1] in (":", "-", ",", ".") and after[1:2].isdigit():
            continue  # "3:4", "3-4", "1,2", "1.2.3"
        if after[:1].isdigit() or after[:1] in ("/", "^", "!"):
            continue  # fractions ("1/2", "1/X"), powers, factorials
        if _CLOCK_OR_MIXED.match(after):
            continue
        letters = _LETTERS.match(after)
        if letters:
            suffix = letters.group()
            if suffix.lower() in _ORDINAL_SUFFIXES:
                continue  # "2nd", "17th"
            if len(suffix) == 1 and suffix not in _GLUED_UNITS:
                continue  # "3x", "2y", "1990s", "72π"
        if any(s < end and start < e for s, e in protected):
            continue
        if number_value(literal) == 0:
            continue
        found.append(Number(literal, start, end))
    return found


@dataclass(frozen=True)
class Edit:
    """One edited copy of a sentence and where the edit is."""

    text: str
    number: Number
    new_literal: str
    new_value: Decimal
    relation: str | None
    edit_start: int
    edit_end: int


def apply_edit(sentence: str, number: Number, new_literal: str, relation: str | None) -> Edit:
    """Replace ``number`` by ``new_literal``, prefixed with ``relation`` when given.

    The relation phrase goes before a currency sign that precedes the number,
    and is capitalised at the start of the sentence.
    """
    start = number.start
    replacement = new_literal
    if relation is not None:
        currency = _CURRENCY_BEFORE.search(sentence[: number.start])
        if currency:
            start = currency.start()
        phrase = relation[0].upper() + relation[1:] if start == 0 else relation
        replacement = f"{phrase} {sentence[start : number.start]}{new_literal}"
    text = sentence[:start] + replacement + sentence[number.end :]
    return Edit(
        text=text,
        number=number,
        new_literal=new_literal,
        new_value=number_value(new_literal),
        relation=relation,
        edit_start=start,
        edit_end=start + len(replacement),
    )


def _is_percent(sentence: str, number: Number) -> bool:
    """``number`` is a percentage ("40%", "60 percent", "5 per cent")."""
    return re.match(r"\s?(?:%|percent\b|per cent\b)", sentence[number.end :]) is not None


def _setting(settings: Mapping[str, Any], key: str, test: str) -> Any:
    if key not in settings:
        raise ConfigError(f"stress.tests.{test}.{key}: missing")
    return settings[key]


class Numerical(Generator):
    """Entailed, contradictory and neutral hypotheses from AQuA-RAT question sentences."""

    name = "numerical"
    paper_generator = "numerical_authors"
    shared_sections = ("source_grammar",)
    reads = "aqua"
    unit = "sentence"
    tests_for = (
        "Competence in numerical reasoning. Premises are sentences of AQuA-RAT algebra word "
        "problems (problems with a numerical answer and a short rationale) that mention a "
        "number and a named person, place or organisation. For each premise one number is "
        "changed and prefixed with 'less than' or 'more than' so that the hypothesis is "
        "entailed ('Tim has 350 pounds' -> 'Tim has less than 750 pounds'); a contradiction "
        "either changes a number or puts 'less than'/'more than' before an unchanged one "
        "('fewer than' before things counted: 'fewer than 17 musicians'); a "
        "neutral pair is the entailed pair flipped. Every premise gives one pair of each "
        "label, so a model must compare the quantities rather than rely on word overlap."
    )
    paper_quality = (
        "Naik et al. (2018): at least two of three annotators agreed with the generated label on "
        "91% of 100 sampled rows of their set (built from AQuA-RAT train), and found 92% "
        "grammatical."
    )

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        # Each value was checked against the schema (Generator.__init__); these three are
        # required of this generator and the range must be ordered.
        where = f"stress.tests.{test}"
        max_sentences = _setting(self.settings, "max_rationale_sentences", test)
        labels = _setting(self.settings, "entity_labels", test)
        low, high = _setting(self.settings, "change_range", test)
        if low > high:
            raise ConfigError(f"{where}.change_range: expected [low, high] with low <= high, got {[low, high]}")
        self.filters = FilterSwitch(where, FILTERS, self.settings.get("filters"))
        self.max_rationale_sentences = max_sentences
        self.entity_labels = tuple(labels)
        self.change_range = (float(low), float(high))
        self.batch_size = self.settings.get("batch_size", 256)
        self.drop_rationale = DROP_RATIONALE.format(n=max_sentences)
        self.drop_no_entity = DROP_NO_ENTITY.format(labels="/".join(self.entity_labels))
        #: problem-level counts of the last ``generate`` (unit "problem")
        self.problem_counts = RowCounts(unit="problem")
        #: sizes of each stage of the last ``generate`` (problems, sentences, rows)
        self.stats: dict[str, int] = {}

    # -- stage 1: problem filters -----------------------------------------

    def _nlp(self) -> Any:
        nlp = spacy_pipeline(self.params)
        if not {"ner", "parser", "tagger"} <= set(nlp.pipe_names):
            raise ConfigError(
                "resources.spacy_model: the numerical test needs a pipeline with a tagger, a "
                f"parser and ner; {nlp.pipe_names} has not"
            )
        return nlp

    # -- precision filters --------------------------------------------------

    @staticmethod
    def is_name(ent: Any) -> bool:
        """The entity looks like a name, not an NER mistake on a unit, a variable or a point."""
        words = ent.text.split()
        if not words or any(not w.isalpha() for w in words):
            return False  # digits, periods, "=": "Rs.465.50", "p.a.", "x=18P6"
        if any(w.lower() in _NOT_NAMES for w in words):
            return False
        if any(len(w) <= 2 and w.isupper() for w in words):
            return False  # "A", "AC", "BD": points, variables, hoses and ants
        return any(w[:1].isupper() and len(w) > 1 for w in words)

    @staticmethod
    def number_context(sentence: Any, number: Number) -> bool:
        """The number reads as exact and can take "less than" / "more than" in front of it."""
        text = sentence.text
        before = text[: number.start].rstrip()
        after = text[number.end :]
        if after[:1] == "-" and after[1:2].isalpha():
            return False  # "3-letter codes"
        if _COORDINATED_AFTER.match(after) or _COORDINATED_BEFORE.search(before):
            return False  # "50 and 100", "$850, and $705", "5 to 7"
        if re.search(r"\brespectively\b", text, re.IGNORECASE):
            return False  # "speeds of 20m/s and 40m/s, respectively"
        if number.value == 1:
            return False  # "1 part": any other number needs a plural noun
        if "." not in number.text and "," not in number.text and 1000 <= int(number.text) <= 2100:
            return False  # a year
        if re.search(r"\b(?:ratio|proportion)\b", before, re.IGNORECASE):
            return False  # "in the ratio: 1 part bleach for every 4 parts"
        previous = re.findall(r"[A-Za-z]+|\S", _CURRENCY_BEFORE.sub("", before))
        if previous and previous[-1].lower() in _APPROXIMATORS:
            return False
        token = next((t for t in sentence if t.idx <= sentence.start_char + number.start < t.idx + len(t)), None)
        if token is not None and token.i > sentence.start:
            prev = token.doc[token.i - 1]
            if prev.text in ("$", "£", "€", "₹", "¥") or prev.lower_ in ("rs", "rs.", "inr"):
                prev = token.doc[token.i - 2] if token.i - 2 >= sentence.start else None
            if prev is not None and (
                prev.pos_ in ("DET", "ADJ", "NUM") or prev.dep_ == "amod" or prev.tag_ in ("VBG", "VBN")
            ):
                return False  # "the first 2 hours", "a 60 percent increase", "remaining 20"
        return True

    def number_reasons(self, sentence: Any, number: Number) -> list[str]:
        """The switched-on number filters (context, then scope) that reject changing ``number``."""
        if self.filters("number_context") and not self.number_context(sentence, number):
            return ["number_context"]
        start = sentence.start_char + number.start
        token = next((t for t in sentence if t.idx <= start < t.idx + len(t)), None)
        return scope_reasons(token, self.filters) if token is not None else []

    def rationale_sentences(self, rationales: Sequence[str | None], nlp: Any) -> list[int]:
        """Sentences per rationale (newline-separated lines, each split by spaCy, answer lines not counted).

        A rationale with more non-empty lines than the limit is not parsed: each
        line has at least one sentence, so its line count already exceeds it.
        """
        lines_of = [
            [ln.strip() for ln in (r or "").split("\n") if ln.strip() and not is_answer_line(ln)]
            for r in rationales
        ]
        counts = [len(lines) for lines in lines_of]
        todo = [i for i, n in enumerate(counts) if 0 < n <= self.max_rationale_sentences]
        flat = [(i, line) for i in todo for line in lines_of[i]]
        docs = with_progress(nlp.pipe((line for _, line in flat), batch_size=self.batch_size), self.test,
                             "rationale lines parsed", log, total=len(flat))  # fmt: skip
        for i in todo:
            counts[i] = 0
        for (i, _), doc in zip(flat, docs, strict=True):
            counts[i] += sum(1 for _ in doc.sents)
        return counts

    # -- stage 3: the three pairs of one premise ---------------------------

    def _change(self, number: Number, rng: Any, percent: bool = False) -> tuple[str, int, float]:
        """A changed literal for ``number``; a percentage stays at most 100 ("106% enrolled")."""
        direction = rng.choice((1, -1))
        ratio = rng.uniform(*self.change_range)
        new, used = change_value(number.value, decimals_of(number.text), direction, ratio)
        if (percent and new > 100 and number.value < 100) or new == 1:
            # A percentage stays a share; "1" would need a singular noun ("1 hours").
            new, used = change_value(number.value, decimals_of(number.text), -used, ratio)
        return format_like(new, number.text), used, ratio

    def _wording(self, sentence: str, number: Number, relation: str) -> str:
        """``relation`` as written before ``number``: "fewer than" for things counted.

        A number counts separate things when a plural noun follows it whose
        first WordNet sense is not a unit or measure ("17 musicians", "100,000
        votes"); money, percentages and units ("$300", "40%", "10 kg", "3
        hours") are amounts and keep "less than".
        """
        if relation != LESS or _CURRENCY_BEFORE.search(sentence[: number.start]) or _is_percent(sentence, number):
            return relation
        following = re.match(r"\s+([A-Za-z]+)", sentence[number.end :])
        if following is None:
            return relation
        word = following.group(1).lower()
        wn = wordnet(self.params)
        base = wn.morphy(word, "n")
        if word in _PLURAL_COLLECTIVES:
            return FEWER
        if base is None or base == word:
            return relation  # not a plural noun
        senses = wn.synsets(base, "n")
        counted = bool(senses) and not falls_under(senses[0], _AMOUNT_CLASSES)
        return FEWER if counted else relation

    def pairs(
        self, sentence: str, numbers: Sequence[Number], rng: Any
    ) -> list[tuple[str, str, str, Edit, dict[str, Any]]]:
        """(label, premise, hypothesis, edit, extra params) for the three pairs of one premise."""
        # Entailment: change one number, prefix the relation that makes the original true.
        number = numbers[rng.randrange(len(numbers))]
        new_literal, direction, ratio = self._change(number, rng, _is_percent(sentence, number))
        relation = LESS if number_value(new_literal) > number.value else MORE
        entailed = apply_edit(sentence, number, new_literal, self._wording(sentence, number, relation))
        change_info = {"change_direction": direction, "change_ratio": ratio}
        # Contradiction: change a number, or prefix an unchanged one.
        number_c = numbers[rng.randrange(len(numbers))]
        if rng.random() < 0.5:
            literal_c, direction_c, ratio_c = self._change(
                number_c, rng, _is_percent(sentence, number_c)
            )
            contradicted = apply_edit(sentence, number_c, literal_c, None)
            rule_c = "contradiction-changed"
            info_c = {"change_direction": direction_c, "change_ratio": ratio_c}
        else:
            relation_c = rng.choice((LESS, MORE))
            contradicted = apply_edit(
                sentence, number_c, number_c.text, self._wording(sentence, number_c, relation_c)
            )
            rule_c = "contradiction-prefixed"
            info_c = {"change_direction": None, "change_ratio": None}
        return [
            (
                "entailment",
                sentence,
                entailed.text,
                entailed,
                {"rule": "entailment", **change_info},
            ),
            (
                "contradiction",
                sentence,
                contradicted.text,
                contradicted,
                {"rule": rule_c, **info_c},
            ),
            (
                "neutral",
                entailed.text,
                sentence,
                entailed,
                {"rule": "neutral-flipped", **change_info},
            ),
        ]

    # -- the generator -----------------------------------------------------

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        nlp = self._nlp()
        columns = set(table.column_names)
        n = table.num_rows
        uids = table["uid"].to_pylist()
        questions = [" ".join((q or "").split()) for q in table["question"].to_pylist()]
        answers = table["answer"].to_pylist() if "answer" in columns else [None] * n
        rationales = table["rationale"].to_pylist() if "rationale" in columns else [None] * n

        problems = RowCounts(unit="problem", input=n)
        reasons: list[str | None] = [None] * n
        for i, answer in enumerate(answers):
            if parse_answer(answer) is None:
                reasons[i] = DROP_ANSWER
        candidates = [i for i in range(n) if reasons[i] is None]
        sentence_counts = self.rationale_sentences([rationales[i] for i in candidates], nlp)
        for i, n_sentences in zip(candidates, sentence_counts, strict=True):
            if n_sentences > self.max_rationale_sentences:
                reasons[i] = self.drop_rationale

        stats = {
            "problems_read": n,
            "problems_numerical_short": sum(r is None for r in reasons),
            "sentences_read": 0,
            "sentences_in_kept_problems": 0,
            "sentences_with_number": 0,
            "premises": 0,
            "rows": 0,
        }
        grammar = (
            SourceGrammar(wordnet(self.params), WordFrequencyBounds.from_params(self.params))
            if self.filters("source_grammar")
            else None
        )
        labels = set(self.entity_labels)
        docs = nlp.pipe(questions, batch_size=self.batch_size)
        for i, doc in enumerate(docs):
            sentences = list(doc.sents)
            counts.input += len(sentences)
            stats["sentences_read"] += len(sentences)
            if reasons[i] is not None:
                counts.drop(reasons[i], len(sentences))
                problems.drop(reasons[i])
                continue
            stats["sentences_in_kept_problems"] += len(sentences)
            kept_here = 0
            for index, sent in enumerate(sentences):
                text = sent.text
                if not any(ch.isdigit() for ch in text):
                    counts.drop(DROP_NO_NUMBER)
                    continue
                labelled = [e for e in sent.ents if e.label_ in labels]
                spans = [
                    (e.start_char - sent.start_char, e.end_char - sent.start_char)
                    for e in labelled
                ]
                numbers = find_numbers(text, spans)
                if not numbers:
                    counts.drop(DROP_NO_CHANGEABLE)
                    continue
                stats["sentences_with_number"] += 1
                why = sentence_reasons(sent, self.filters)
                if not why and grammar is not None and grammar.faults(sent):
                    why = ["source_grammar"]
                if self.filters("fragment") and index and _ABBREVIATION_END.search(
                    sentences[index - 1].text
                ):
                    why = ["fragment", *why]  # split after "Rs.": "140 from Ranchi to Patna"
                if self.filters("question") and "?" in text:
                    why = ["question"]
                if why:
                    counts.drop(drop_reason(why[0]))
                    continue
                ents = [e for e in labelled if not self.filters("entity_quality") or self.is_name(e)]
                if not ents:
                    counts.drop(drop_reason("entity_quality") if labelled else self.drop_no_entity)
                    continue
                rejected = {n: self.number_reasons(sent, n) for n in numbers}
                numbers = [n for n in numbers if not rejected[n]]
                if not numbers:
                    counts.drop(drop_reason(decisive([r[0] for r in rejected.values()], FILTERS)))
                    continue
                counts.kept += 1
                kept_here += 1
                stats["premises"] += 1
                yield from self._rows(uids[i], index, text, ents, numbers, context)
                stats["rows"] += 3
            if kept_here:
                problems.kept += 1
            else:
                problems.drop("no premise sentence")
        problems.check()
        self.problem_counts = problems
        self.stats = stats

    def _rows(
        self,
        source_uid: str,
        index: int,
        sentence: str,
        ents: Sequence[Any],
        numbers: Sequence[Number],
        context: Context,
    ) -> Iterator[SetRow]:
        rng = row_rng(context.seed, f"{source_uid}:s{index}")
        entities = sorted({f"{e.label_}:{e.text}" for e in ents})
        for label, premise, hypothesis, edit, extra in self.pairs(sentence, numbers, rng):
            params = {
                "sentence_index": index,
                "number_original": edit.number.text,
                "number_new": edit.new_literal,
                "value_original": float(edit.number.value),
                "value_new": float(edit.new_value),
                "relation": edit.relation,
                # the number in the original sentence
                "char_start": edit.number.start,
                "char_end": edit.number.end,
                # the replacement ("less than $300", "300") in the edited sentence
                "edited_side": "premise" if label == "neutral" else "hypothesis",
                "edit_start": edit.edit_start,
                "edit_end": edit.edit_end,
                "entities": entities,
                **extra,
            }
            yield SetRow(
                uid=f"{self.test}:{source_uid}:s{index}:{label}",
                dataset=context.dataset,
                split=context.split,
                premise=premise,
                hypothesis=hypothesis,
                label=label,
                label_id=LABEL_IDS[label],
                genre=None,
                source_uid=source_uid,
                perturbation=self.test,
                params=params,
            )

    def extra_stats(self) -> dict[str, Any]:
        return {
            "problems": self.problem_counts.as_dict(),
            "stages": dict(self.stats),
            "filters": self.filters.active(),
        }

    def card_notes(self, manifest: Mapping[str, Any]) -> str:
        rows = manifest.get("rows") or {}
        problems = (manifest.get("stats") or {}).get("problems") or {}
        dropped = "; ".join(f"{n:,} {why}" for why, n in (problems.get("dropped") or {}).items()) or "none"
        by_problem = (
            f" In problems (a problem is one question with its options and rationale): "
            f"{problems['input']:,} read, {problems['kept']:,} gave at least one premise; dropped: "
            f"{dropped}." if problems.get("input") is not None else ""
        )
        return (
            "The paper built this set from the AQuA-RAT training set (about 40,000 sentences "
            "with numbers, 2,500 premises, 7,596 pairs). The Counts table is in sentences (every "
            f"sentence of every problem's question): {rows.get('input', '?')} read, "
            f"{rows.get('kept', '?')} kept as premises, each giving one entailed, one contradictory "
            "and one neutral pair; the sentences of a problem dropped as a whole (a non-numerical "
            f"answer, a long rationale) are counted under that reason.{by_problem} Rationales of "
            f"up to {self.max_rationale_sentences} sentences are kept "
            "(the paper says 3, the authors' released code 5 lines). The precision filters ("
            + ", ".join(f"`{name}`" for name in self.filters.active())
            + ") keep only statements whose numbers are asserted exact amounts next to a real "
            "name, so that all three labels hold; each drop is counted above."
        )
