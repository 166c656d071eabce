"""The paper's per-row factors of an ordered word pair: polarity and unseen.

Polarity (section 5.4) is the label the ordered pair (premise word,
hypothesis word) occurs with most often in training; a tie is its own joint
category (``entailment-neutral``), labels in the fixed order entailment,
neutral, contradiction, and a pair never seen has polarity ``none`` and is
unseen. Computed from the training split's ``PairIndex``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..labels import LABELS
from .index import PairIndex
from .schema import POLARITY_NONE


def polarity(counts: Sequence[int]) -> str:
    """The most frequent label(s) of ``counts`` (in ``LABELS`` order), ``none`` if all zero."""
    top = max(counts)
    if top == 0:
        return POLARITY_NONE
    return "-".join(label for label, n in zip(LABELS, counts, strict=True) if n == top)


class Factors:
    """Polarity and unseen of ordered pairs against one training index (cached per pair)."""

    def __init__(self, train: PairIndex) -> None:
        self.train = train
        self._cache: dict[tuple[str, str], tuple[str, bool]] = {}

    def of(self, premise_word: str, hypothesis_word: str) -> tuple[str, bool]:
        """(polarity, unseen) of the ordered pair as it stands premise -> hypothesis."""
        key = (premise_word, hypothesis_word)
        if key not in self._cache:
            counts = self.train.label_counts(premise_word, hypothesis_word)
            self._cache[key] = (polarity(counts), sum(counts) == 0)
        return self._cache[key]
