"""Hypothesis words as (row, word) pairs, counted per label with vectorised numpy.

Give-away statistics are counts over hundreds of thousands of hypotheses, so
the text is split once by pyarrow (whitespace) or a per-language tokenizer,
every word is dictionary-encoded, and all counting is ``np.unique`` and
``np.bincount`` over integer arrays: no Python loop per word.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..permutations.tokenize import tokenizer as word_tokenizer


@dataclass(frozen=True)
class Occurrences:
    """Which word occurs in which row: each (row, word) pair once, sorted by row then word.

    A word repeated inside one hypothesis counts once: the statistic is "how
    many hypotheses of label l contain w", which is also what the coverage
    curve (Figure 6) counts.
    """

    rows: np.ndarray  # int64, row index of each pair
    words: np.ndarray  # int64, index into ``vocabulary``
    vocabulary: np.ndarray  # str, in order of first appearance
    n_rows: int


def _token_lists(texts: pa.Array, tokenizer: str, lowercase: bool) -> pa.ListArray:
    if lowercase:
        texts = pc.utf8_lower(texts)
    if tokenizer == "whitespace":
        return pc.utf8_split_whitespace(texts)
    tokenize, _ = word_tokenizer(tokenizer)
    return pa.array([tokenize(text) for text in texts.to_pylist()], pa.list_(pa.string()))


def hypothesis_words(texts: pa.Array | pa.ChunkedArray, tokenizer: str, lowercase: bool) -> Occurrences:
    """Tokenise ``texts`` and return their distinct (row, word) pairs."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    lists = _token_lists(texts.cast(pa.string()), tokenizer, lowercase)
    rows = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    encoded = pc.dictionary_encode(pc.list_flatten(lists))
    vocabulary = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    words = encoded.indices.to_numpy().astype(np.int64)
    size = max(len(vocabulary), 1)
    pairs = np.unique(rows * size + words)  # sorted by row, then word id
    return Occurrences(pairs // size, pairs % size, vocabulary, len(texts))


def label_counts(occ: Occurrences, codes: np.ndarray, n_labels: int) -> np.ndarray:
    """``counts[w, l]``: rows with label code ``l`` (``codes[row]``) that contain word ``w``."""
    flat = occ.words * n_labels + codes[occ.rows]
    return np.bincount(flat, minlength=len(occ.vocabulary) * n_labels).reshape(-1, n_labels)


def row_max(occ: Occurrences, values: np.ndarray, empty: float = -1.0) -> np.ndarray:
    """Per row, the largest of ``values`` (one per pair); ``empty`` for rows without words."""
    out = np.full(occ.n_rows, empty, dtype=np.float64)
    if len(occ.rows):
        starts = np.flatnonzero(np.r_[True, occ.rows[1:] != occ.rows[:-1]])
        out[occ.rows[starts]] = np.maximum.reduceat(values.astype(np.float64), starts)
    return out
