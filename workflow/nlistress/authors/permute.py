"""Sinha et al.'s word-order permutations as ``codes/word_randomization.py`` made them.

For each example and each permutation index ``s`` from 0 to q - 1 (the
original's ``num_tries``, 100 in ``config.yaml``):

1. the sentence is split by spaCy's rule-based English tokenizer (a blank
   pipeline, no model); tokens that spaCy marks as punctuation keep their
   place (``retain_punct: True``), every other token moves;
2. Python's ``random`` is seeded with ``s`` and the positions of the moving
   tokens are shuffled with ``random.shuffle`` until none keeps its place
   (a derangement by rejection, compared by position);
3. the tokens are joined with single spaces (whitespace runs collapsed).

Premise and hypothesis are permuted independently with the same seed ``s``.
The evaluation (``codes/random_eval.py`` with ``hyp_distinct_perm`` and
``prem_distinct_perm``) then uses an example only when the q orders of each
permuted side are all distinct; an example with fewer than two moving tokens
on a side never is. Each row records both orders (``premise_order``,
``hypothesis_order``: original positions in permuted order), which equal the
original's ``premise_pos`` / ``hypothesis_pos`` for the same example and
index. The original's tokenizer is spaCy 2.3's; spaCy 3.8's rule-based
tokenizer stands in (their rules differ only in rare exceptions). For Chinese
the original loaded ``zh_core_web_lg`` (pkuseg); a blank spaCy Chinese
pipeline with jieba segmentation stands in for it.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa

from ..errors import ConfigError
from ..manifest import RowCounts
from ..permutations.permute import (
    PAPER_TABLE7,
    PERMUTE_SCHEMA,
    SIDES,
    Permute,
    add_example_rows,
    bleu_of,
    q_and_sides,
)  # fmt: skip
from ..perturb.base import Context, Generator, SetRow

DROP_NOT_DISTINCT = "the {q} orders of a permuted side are not all distinct"


@functools.cache
def _tokenizer(language: str) -> Any:
    import spacy

    if language == "en":
        return spacy.blank("en").tokenizer
    if language == "zh":
        nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "jieba"}}})
        return nlp.tokenizer
    raise ConfigError(f"permute_authors: no stand-in for the authors' {language!r} tokenizer")


def authors_order(punct: list[bool], seed: int) -> list[int]:
    """The original's permutation of one sentence for permutation index ``seed``."""
    rng = random.Random(seed)
    order = list(range(len(punct)))
    moving = [i for i, fixed in enumerate(punct) if not fixed]
    shuffled = list(moving)
    if len(shuffled) > 1:
        while True:
            rng.shuffle(shuffled)
            if all(a != b for a, b in zip(shuffled, moving, strict=True)):
                break
    for position, value in zip(moving, shuffled, strict=True):
        order[position] = value
    return order


@functools.lru_cache(maxsize=65536)
def _orders(punct: tuple[bool, ...], q: int) -> tuple[list[list[int]], bool]:
    """The q orders of a sentence with this punctuation mask, and whether all are distinct.

    An order depends only on the mask and the seed, and many sentences share a
    mask (n words, a final full stop), so they are computed once per mask.
    """
    orders = [authors_order(list(punct), s) for s in range(q)]
    return orders, len({tuple(o) for o in orders}) == q


class AuthorsPermute(Generator):
    """q permutations per example, the authors' way, kept when all q are distinct."""

    name = "permute_authors"
    family = "permute"
    unit = "example"
    mode: ClassVar[str] = "paper"
    settings_keys = ("q", "sides")
    schema: ClassVar[pa.Schema] = PERMUTE_SCHEMA
    tests_for = (
        "Sensitivity to word order (Sinha et al. 2021), built in paper mode as the authors' "
        "released code did: punctuation stays in place, every other token moves, and an "
        "example is used only when its 100 permutations are all distinct."
    )
    cites = Permute.cites
    paper_quality = Permute.paper_quality

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        self.q, self.sides = q_and_sides(self.settings)
        self.drop = DROP_NOT_DISTINCT.format(q=self.q)

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        raise NotImplementedError("AuthorsPermute writes columns directly: use generate_batches")

    def plan(self, row: Mapping[str, Any], tokenize: Any) -> tuple[dict[str, list[str]], dict[str, list[list[int]]]] | None:
        """Tokens and the q orders of each permuted side, or None when not all distinct."""
        tokens, orders = {}, {}
        for side in SIDES:
            doc = tokenize(row[side])
            tokens[side] = [t.text for t in doc]
            if side in self.sides:
                orders[side], distinct = _orders(tuple(t.is_punct for t in doc), self.q)
                if not distinct:
                    return None
        return tokens, orders

    def count_used(self, table: pa.Table, context: Context) -> RowCounts:
        """Which examples the set uses, without building it (the paper's Table 7)."""
        tokenize = _tokenizer(context.language)
        counts = RowCounts(unit=self.unit)
        for row in table.to_pylist():
            counts.input += 1
            if self.plan(row, tokenize) is None:
                counts.drop(self.drop)
            else:
                counts.kept += 1
        return counts

    def generate_batches(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[pa.Table]:
        tokenize = _tokenizer(context.language)
        params = json.dumps({"q": self.q, "sides": list(self.sides), "mode": self.mode,
                             "tokenizer": f"spacy blank {context.language}",
                             "seeds": f"0..{self.q - 1}"}, sort_keys=True)  # fmt: skip
        columns: dict[str, list[Any]] = {field.name: [] for field in PERMUTE_SCHEMA}
        for row in table.to_pylist():
            counts.input += 1
            planned = self.plan(row, tokenize)
            if planned is None:
                counts.drop(self.drop)
                continue
            counts.kept += 1
            tokens, orders = planned
            texts = {side: [" ".join(" ".join(tokens[side][i] for i in o).split()) for o in orders[side]]
                     if side in orders else [row[side]] * self.q for side in SIDES}  # fmt: skip
            bleus = {side: bleu_of(tokens[side], np.array(orders[side])) for side in orders}
            add_example_rows(columns, self.test, row, context, params, tokens, texts, orders, bleus)
            if len(columns["uid"]) >= self.batch_rows:
                yield pa.Table.from_pydict(columns, schema=PERMUTE_SCHEMA)
                columns = {field.name: [] for field in PERMUTE_SCHEMA}
        if columns["uid"]:
            yield pa.Table.from_pydict(columns, schema=PERMUTE_SCHEMA)

    def card_notes(self, manifest: Mapping[str, Any]) -> str:
        rows = manifest["rows"]
        lines = [
            "### Used examples (the paper's Table 7)",
            "",
            f"Paper mode: {rows['kept']:,} of {rows['input']:,} examples are used, each with "
            f"{self.q} permutations made as the authors' code made them.",
        ]
        paper = PAPER_TABLE7.get((manifest["dataset"], manifest["split"]))
        if paper is not None:
            lines += ["", f"The paper used {paper[1]:,} of {paper[0]:,} examples."]
        return "\n".join(lines)
