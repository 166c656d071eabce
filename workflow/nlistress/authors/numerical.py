"""Naik et al.'s numerical test as ``gen_num_test.py``, ``quant_ner.py`` and
``quant_example_gen.py`` built it.

1. Problems (``gen_num_test.py``): keep a problem when the text of its correct
   option, after the option letter and its bracket, is a plain number greater
   than 1 ("A)32400"; "A)100 m" and "A)1/2" are not), and its rationale has at
   most ``max_rationale_lines`` lines, counting every line, empty ones and the
   answer line included.
2. Premises: the question is split into sentences and a sentence with a digit
   is a candidate premise (the script that did this for the paper is not
   released; the paper describes this step). Sentences are split by spaCy.
3. Names (``quant_ner.py``): a premise is kept when the first sentence of its
   own annotation holds a PERSON, LOCATION or ORGANIZATION token. The original
   asked Stanford CoreNLP; spaCy's PERSON, GPE, LOC and ORG stand in for it
   here (setting ``entity_labels``).
4. Pairs (``quant_example_gen.py``): the premise is split on whitespace and the
   first token that is an integer is the number. Entailment: its first digit
   becomes a different random digit from 1 to 8, and "less than" goes before
   the new number if it is larger, "more than" if smaller. Contradiction: with
   probability 1/2 the same kind of new number without a phrase; otherwise the
   unchanged number after "more than" or "less than" (1/2 each). Neutral: the
   entailed pair flipped. Hypotheses are the tokens joined by single spaces.

Randomness is seeded per premise (the original used numpy's unseeded global
generator). A premise with no integer token is dropped and counted; the
original would have reused the previous premise's hypotheses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import pyarrow as pa

from ..errors import ConfigError
from ..labels import LABELS
from ..manifest import RowCounts
from ..perturb.base import Context, Generator, SetRow, row_rng
from ..resources import spacy_pipeline

OPTION = re.compile(r"^\s*[A-E]\s*\)\s*")
DROP_ANSWER = "answer not a number above 1"
DROP_RATIONALE = "rationale longer than {n} lines"
DROP_NO_DIGIT = "no digit"
DROP_NO_NAME = "no PERSON/LOCATION/ORGANIZATION name in the first sentence"
DROP_NO_INTEGER = "no integer token"


def answer_number(options: list[str] | None, correct: str | None) -> float | None:
    """The correct option's number when it is a plain number above 1, as the original read it."""
    if not options or not correct or correct not in "ABCDE":
        return None
    index = "ABCDE".index(correct)
    if index >= len(options):
        return None
    try:
        value = float(OPTION.sub("", options[index], count=1))
    except ValueError:
        return None
    return value if value > 1 else None


def new_number(number: str, rng: Any) -> str:
    """``number`` with its first digit replaced by a different random digit from 1 to 8."""
    old = int(number[0])
    new = rng.randrange(1, 9)
    while new == old:
        new = rng.randrange(1, 9)
    return str(new) + number[1:]


def hypotheses(tokens: list[str], index: int, rng: Any) -> tuple[str, str, dict[str, Any]]:
    """The entailed and the contradictory hypothesis for the integer token at ``index``."""
    number = str(int(tokens[index]))
    entailed_number = new_number(number, rng)
    phrase = "less than" if int(number[0]) < int(entailed_number[0]) else "more than"
    entailed = [*tokens[:index], phrase, entailed_number, *tokens[index + 1:]]
    info: dict[str, Any] = {"number": number, "entailed": f"{phrase} {entailed_number}"}
    if rng.random() < 0.5:
        changed = new_number(number, rng)
        contradicted = [*tokens[:index], changed, *tokens[index + 1:]]
        info["contradicted"] = changed
    else:
        prefix = "more than" if rng.random() < 0.5 else "less than"
        contradicted = [*tokens[:index], prefix, number, *tokens[index + 1:]]
        info["contradicted"] = f"{prefix} {number}"
    return " ".join(entailed), " ".join(contradicted), info


def first_integer(tokens: list[str]) -> int | None:
    """Index of the first whitespace token that Python's ``int`` reads, with a digit first."""
    for i, token in enumerate(tokens):
        try:
            int(token)
        except ValueError:
            continue
        if str(int(token))[0].isdigit():
            return i
    return None


class AuthorsNumerical(Generator):
    """Entailed, contradictory and neutral pairs of AQuA-RAT sentences, the authors' way."""

    name = "numerical_authors"
    reads = "aqua"
    unit = "sentence"
    mode: ClassVar[str] = "paper"
    settings_keys = ("max_rationale_lines", "entity_labels")
    tests_for = (
        "Numerical reasoning (Naik et al. 2018, section 3.1), built in paper mode as the "
        "authors' released scripts did: AQuA-RAT sentences with a number and a name; the "
        "first integer's first digit is changed, with 'less than'/'more than', into one "
        "entailed, one contradictory and one neutral hypothesis."
    )

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        where = f"stress.tests.{test}"
        lines = self.settings.get("max_rationale_lines", 5)
        if isinstance(lines, bool) or not isinstance(lines, int) or lines < 1:
            raise ConfigError(f"{where}.max_rationale_lines: expected a positive integer, got {lines!r}")
        labels = self.settings.get("entity_labels", ["PERSON", "GPE", "LOC", "ORG"])
        if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
            raise ConfigError(f"{where}.entity_labels: expected a non-empty list of NER labels")
        self.max_lines, self.entity_labels = lines, frozenset(labels)
        self.drop_rationale = DROP_RATIONALE.format(n=lines)

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        nlp = spacy_pipeline(self.params)
        cols = {c: table[c].to_pylist() if c in table.column_names else [None] * table.num_rows
                for c in ("uid", "question", "options", "correct", "rationale")}  # fmt: skip
        questions = [" ".join((q or "").split()) for q in cols["question"]]
        for i, doc in enumerate(nlp.pipe(questions, batch_size=256)):
            sentences = [s.text for s in doc.sents]
            counts.input += len(sentences)
            if answer_number(cols["options"][i], cols["correct"][i]) is None:
                counts.drop(DROP_ANSWER, len(sentences))
                continue
            if len((cols["rationale"][i] or "").split("\n")) > self.max_lines:
                counts.drop(self.drop_rationale, len(sentences))
                continue
            for index, premise in enumerate(sentences):
                if not any(ch.isdigit() for ch in premise):
                    counts.drop(DROP_NO_DIGIT)
                    continue
                first = next(iter(nlp(premise).sents))
                if not any(e.label_ in self.entity_labels for e in first.ents):
                    counts.drop(DROP_NO_NAME)
                    continue
                tokens = premise.split()
                at = first_integer(tokens)
                if at is None:
                    counts.drop(DROP_NO_INTEGER)
                    continue
                counts.kept += 1
                yield from self._rows(cols["uid"][i], index, premise, tokens, at, context)

    def _rows(self, uid: str, index: int, premise: str, tokens: list[str], at: int,
              context: Context) -> Iterator[SetRow]:
        rng = row_rng(context.seed, f"{uid}:s{index}")
        entailed, contradicted, info = hypotheses(tokens, at, rng)
        for label, p, h in (
            ("entailment", premise, entailed),
            ("contradiction", premise, contradicted),
            ("neutral", entailed, premise),
        ):
            yield SetRow(
                uid=f"{self.test}:{uid}:s{index}:{label}",
                dataset=context.dataset, split=context.split, premise=p, hypothesis=h,
                label=label, label_id=LABELS.index(label), genre=None, source_uid=uid,
                perturbation=self.test,
                params={"sentence_index": index, "token_index": at, **info, "mode": self.mode},
            )  # fmt: skip
