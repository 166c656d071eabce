"""Pair-occurrence index: which examples hold word a in the premise and word b in the hypothesis.

Built once per table: every distinct sentence is tokenised once (``tokens.words``),
and each side gets posting lists (word -> sorted example numbers) stored as
one sorted NumPy array plus offsets. Looking up an ordered pair is then one
intersection of two posting lists, never a scan of the table, so finding all
lexicon pairs in SNLI train (550k examples) and counting their training
labels (polarity, unseen) takes seconds.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from ..labels import LABELS
from .tokens import words

SIDES = ("premise", "hypothesis")


class PairIndex:
    """Posting lists of the premise and hypothesis words of one table, and its labels."""

    def __init__(self, premises: Sequence[str], hypotheses: Sequence[str], labels: Sequence[str | None]):
        self.size = len(premises)
        self.vocab: dict[str, int] = {}
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for side, texts in zip(SIDES, (premises, hypotheses), strict=True):
            self._postings[side] = self._build(texts)
        code = {label: i for i, label in enumerate(LABELS)}
        self.labels = np.array([code.get(label, -1) for label in labels], dtype=np.int8)

    @classmethod
    def from_table(cls, table: pa.Table) -> PairIndex:
        return cls(
            table["premise"].to_pylist(), table["hypothesis"].to_pylist(), table["label"].to_pylist()
        )

    def _build(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(example numbers grouped by word id, offsets): word w's list is ids[off[w]:off[w+1]]."""
        seen: dict[str, list[int]] = {}  # distinct sentence -> its distinct word ids
        word_ids, example_ids = array("i"), array("i")
        for number, text in enumerate(texts):
            ids = seen.get(text)
            if ids is None:
                vocab = self.vocab
                ids = sorted({vocab.setdefault(w, len(vocab)) for w in set(words(text))})
                seen[text] = ids
            word_ids.extend(ids)
            example_ids.extend([number] * len(ids))
        word_arr = np.frombuffer(word_ids, dtype=np.int32)
        order = np.argsort(word_arr, kind="stable")  # examples stay ascending within a word
        offsets = np.searchsorted(word_arr[order], np.arange(len(self.vocab) + 1, dtype=np.int32))
        return np.frombuffer(example_ids, dtype=np.int32)[order], offsets

    def postings(self, word: str, side: str) -> np.ndarray:
        """Sorted example numbers whose ``side`` contains ``word``."""
        ids, offsets = self._postings[side]
        wid = self.vocab.get(word)
        if wid is None or wid + 1 >= len(offsets):
            return ids[:0]
        return ids[offsets[wid] : offsets[wid + 1]]

    def contains(self, number: int, word: str, side: str) -> bool:
        """Example ``number``'s ``side`` contains ``word`` (binary search in the posting list)."""
        ids = self.postings(word, side)
        at = int(np.searchsorted(ids, number))
        return at < len(ids) and int(ids[at]) == number

    def occurrences(self, premise_word: str, hypothesis_word: str) -> np.ndarray:
        """Sorted example numbers with ``premise_word`` in the premise and ``hypothesis_word`` in the hypothesis."""
        a = self.postings(premise_word, "premise")
        if not len(a):
            return a
        return np.intersect1d(a, self.postings(hypothesis_word, "hypothesis"), assume_unique=True)

    def label_counts(self, premise_word: str, hypothesis_word: str) -> tuple[int, int, int]:
        """Training-label counts (entailment, neutral, contradiction) of the ordered pair."""
        labels = self.labels[self.occurrences(premise_word, hypothesis_word)]
        counts = np.bincount(labels[labels >= 0], minlength=len(LABELS))
        return tuple(int(c) for c in counts[: len(LABELS)])  # type: ignore[return-value]

    def frequency(self, word: str) -> tuple[int, int]:
        """Examples whose premise / hypothesis contains ``word``."""
        return len(self.postings(word, "premise")), len(self.postings(word, "hypothesis"))
