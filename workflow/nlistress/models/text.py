"""Words to ids for the encoder models: tokeniser, vocabulary, GloVe vectors, padding.

Tokenisation is one regular expression, ``\\w+|[^\\w\\s]``: runs of word
characters, and every other non-space character on its own. SNLI is already
whitespace tokenised (``packages .``), and MultiNLI/ANLI keep punctuation
attached (``enough.``); the regex splits both the same way, so a model trained
on one reads the other. No external tokeniser means no extra download and the
same ids on every machine.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import torch

from ..errors import ConfigError, DataError

PAD, UNK = "<pad>", "<unk>"
_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str, lowercase: bool) -> list[str]:
    return _TOKEN.findall(text.lower() if lowercase else text)


class Vocabulary:
    """Token <-> id; id 0 is ``<pad>``, id 1 is ``<unk>``; the rest by frequency, then text."""

    def __init__(self, tokens: Sequence[str], lowercase: bool) -> None:
        if list(tokens[:2]) != [PAD, UNK]:
            raise ValueError("a vocabulary starts with <pad>, <unk>")
        self.tokens = list(tokens)
        self.lowercase = lowercase
        self.index = {token: i for i, token in enumerate(self.tokens)}

    def __len__(self) -> int:
        return len(self.tokens)

    @classmethod
    def build(
        cls, texts: Iterable[str], lowercase: bool, min_freq: int, max_size: int | None
    ) -> Vocabulary:
        """Count tokens of ``texts``; keep those seen ``min_freq`` times (at most ``max_size``).

        Ties in frequency are broken by the token text, so the ids never depend
        on row order or hash seeds.
        """
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(tokenize(text, lowercase))
        kept = sorted((t for t, n in counts.items() if n >= min_freq), key=lambda t: (-counts[t], t))
        if max_size is not None:
            kept = kept[:max_size]
        return cls([PAD, UNK, *kept], lowercase)

    def encode(self, text: str, max_length: int) -> list[int]:
        """Ids of ``text``'s first ``max_length`` tokens; an empty text reads as one ``<unk>``."""
        ids = [self.index.get(t, 1) for t in tokenize(text, self.lowercase)[:max_length]]
        return ids or [1]

    def save(self, path: Path) -> None:
        path.write_text(
            json.dumps({"lowercase": self.lowercase, "tokens": self.tokens}, ensure_ascii=False),
            encoding="utf-8",
        )

    @classmethod
    def load(cls, path: Path) -> Vocabulary:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(data["tokens"], bool(data["lowercase"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(path, f"not a vocabulary file ({exc})") from None


def load_glove(path: Path, vocab: Vocabulary, dim: int) -> tuple[torch.Tensor, int]:
    """Rows of a GloVe text file (``word v1 ... v_dim`` per line) for the words of ``vocab``.

    Words the file lacks keep a small random vector from torch's (seeded)
    generator; returns the matrix and how many words were found. Lowercased
    vocabularies look up the file's words lowercased (first occurrence wins).
    """
    if not path.is_file():
        raise ConfigError(f"models glove: file not found: {path}")
    weights = torch.empty(len(vocab), dim).uniform_(-0.1, 0.1)
    weights[0] = 0.0
    found = set()
    with open(path, encoding="utf-8", errors="strict") as fh:
        for lineno, line in enumerate(fh, 1):
            word, _, rest = line.rstrip("\n").partition(" ")
            if vocab.lowercase:
                word = word.lower()
            i = vocab.index.get(word)
            if i is None or i in found:
                continue
            values = rest.split(" ")
            if len(values) != dim:
                raise DataError(
                    path, f"{len(values)} values for {word!r}, expected embedding_dim {dim}", lineno
                )
            try:
                weights[i] = torch.from_numpy(np.asarray(values, dtype=np.float32))
            except ValueError:
                raise DataError(path, f"non-numeric vector for {word!r}", lineno) from None
            found.add(i)
    return weights, len(found)


def pad_batch(sequences: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded id matrix (batch, longest) and the lengths, as int64 tensors."""
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    ids = np.zeros((len(sequences), int(lengths.max())), dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = seq
    return torch.from_numpy(ids), torch.from_numpy(lengths)
