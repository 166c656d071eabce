"""Words to ids for the encoder models: tokeniser, vocabulary, GloVe vectors, padding.

The tokeniser is chosen by the language of the training data
(``datasets.<name>.language`` of the train table's dataset): ``models.text.tokenizers``
maps a language to its tokeniser (``zh: jieba``), every other language gets
``models.text.tokenizer``. The choice is written into ``vocab.json``, so a
model reads every set the way it read its training data. The tokenisers:

- ``regex`` (default): ``\\w+|[^\\w\\s]``, runs of word characters and every
  other non-space character on its own. SNLI is already whitespace tokenised
  (``packages .``), and MultiNLI/ANLI keep punctuation attached (``enough.``);
  the regex splits both the same way, so a model trained on one reads the
  other, with no download and the same ids on every machine.
- ``nltk``: NLTK's ``word_tokenize`` as Poliak et al. ran it on every sentence
  (Penn-Treebank words: ``do n't``, ``U.S.``, quotes as two backquotes). Its Punkt
  sentence model is a separate download, so an untrained Punkt with a short
  list of English abbreviations (``ABBREVIATIONS``) stands in for it; the two
  differ only on abbreviations outside the list that end a token mid-text.
- ``jieba`` / ``char``: Chinese, which has no spaces, segmented into jieba's
  words or into characters: the tokenisers of ``nlistress.permutations.tokenize``
  (``permute.tokenizers``), so a model's words are the words the permuted sets move.

Words without an id become ``<unk>`` (``unknown: unk``) or are left out of the
sentence (``unknown: drop``: InferSent's handling, where only words with a GloVe
vector exist, used by the paper profile).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..errors import ConfigError, DataError
from ..permutations.tokenize import TOKENIZERS as WORD_TOKENIZERS

PAD, UNK = "<pad>", "<unk>"
# English-style tokenisers of this module, then the Chinese segmenters of the permutations.
CHINESE_TOKENIZERS = ("jieba", "char")
TOKENIZERS = ("regex", "nltk", *CHINESE_TOKENIZERS)
UNKNOWN = ("unk", "drop")
_TOKEN = re.compile(r"\w+|[^\w\s]")
#: abbreviations the stand-in for NLTK's trained Punkt model never ends a sentence after
ABBREVIATIONS = frozenset(
    {"mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "mt", "u.s", "u.k", "e.g", "i.e", "etc",
     "vs", "inc", "co", "corp", "ltd", "no", "jan", "feb", "aug", "sept", "oct", "nov", "dec",
     "a.m", "p.m", "gen", "gov", "sen", "rep", "rev", "ft", "lb", "oz"}
)  # fmt: skip


@functools.cache
def _nltk_tokenizers() -> tuple[Any, Any]:
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    parameters = PunktParameters()
    parameters.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(parameters), NLTKWordTokenizer()


def tokenize(text: str, lowercase: bool, tokenizer: str = "regex") -> list[str]:
    """The words of ``text`` under one of ``TOKENIZERS``."""
    if tokenizer == "nltk":
        sentences, words = _nltk_tokenizers()
        tokens = [w for sentence in sentences.tokenize(text) for w in words.tokenize(sentence)]
        return [t.lower() for t in tokens] if lowercase else tokens
    if tokenizer in CHINESE_TOKENIZERS:
        return list(_segment(tokenizer, text.lower() if lowercase else text))
    return _TOKEN.findall(text.lower() if lowercase else text)


@functools.lru_cache(maxsize=1 << 16)
def _segment(tokenizer: str, text: str) -> tuple[str, ...]:
    """Chinese words of ``text``, cached: jieba takes about 0.2 ms a sentence, and
    training segments every sentence twice (vocabulary, then ids), premises once per hypothesis."""
    return tuple(WORD_TOKENIZERS[tokenizer](text))


def tokenizer_for(settings: Mapping[str, Any], language: str) -> str:
    """The tokeniser of a model's training language: ``tokenizers[language]``, else ``tokenizer``."""
    return str((settings.get("tokenizers") or {}).get(language, settings.get("tokenizer", "regex")))


class Vocabulary:
    """Token <-> id; id 0 is ``<pad>``, id 1 is ``<unk>``; the rest by frequency, then text."""

    def __init__(
        self, tokens: Sequence[str], lowercase: bool, tokenizer: str = "regex", unknown: str = "unk"
    ) -> None:
        if list(tokens[:2]) != [PAD, UNK]:
            raise ValueError("a vocabulary starts with <pad>, <unk>")
        if tokenizer not in TOKENIZERS or unknown not in UNKNOWN:
            raise ValueError(f"tokenizer {tokenizer!r} / unknown {unknown!r}")
        self.tokens = list(tokens)
        self.lowercase, self.tokenizer, self.unknown = lowercase, tokenizer, unknown
        self.index = {token: i for i, token in enumerate(self.tokens)}

    def __len__(self) -> int:
        return len(self.tokens)

    @classmethod
    def build(
        cls, texts: Iterable[str], lowercase: bool, min_freq: int, max_size: int | None,
        tokenizer: str = "regex", unknown: str = "unk",
    ) -> Vocabulary:  # fmt: skip
        """Count tokens of ``texts``; keep those seen ``min_freq`` times (at most ``max_size``).

        Ties in frequency are broken by the token text, so the ids never depend
        on row order or hash seeds.
        """
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(tokenize(text, lowercase, tokenizer))
        kept = sorted((t for t, n in counts.items() if n >= min_freq), key=lambda t: (-counts[t], t))
        if max_size is not None:
            kept = kept[:max_size]
        return cls([PAD, UNK, *kept], lowercase, tokenizer, unknown)

    def keep(self, ids: Iterable[int]) -> Vocabulary:
        """The vocabulary of only these ids (plus ``<pad>``, ``<unk>``), in their order."""
        kept = sorted(i for i in set(ids) if i > 1)
        return Vocabulary([PAD, UNK, *(self.tokens[i] for i in kept)], self.lowercase,
                          self.tokenizer, self.unknown)  # fmt: skip

    def encode(self, text: str, max_length: int) -> list[int]:
        """Ids of ``text``'s first ``max_length`` tokens; an empty text reads as one ``<unk>``."""
        words = tokenize(text, self.lowercase, self.tokenizer)
        if self.unknown == "drop":
            ids = [i for i in (self.index.get(t) for t in words) if i is not None][:max_length]
        else:
            ids = [self.index.get(t, 1) for t in words[:max_length]]
        return ids or [1]

    def save(self, path: Path) -> None:
        data = {"lowercase": self.lowercase, "tokenizer": self.tokenizer, "unknown": self.unknown,
                "tokens": self.tokens}  # fmt: skip
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Vocabulary:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(data["tokens"], bool(data["lowercase"]), data.get("tokenizer", "regex"),
                       data.get("unknown", "unk"))  # fmt: skip
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(path, f"not a vocabulary file ({exc})") from None


def load_glove(path: Path, vocab: Vocabulary, dim: int) -> tuple[torch.Tensor, set[int]]:
    """Rows of a GloVe text file (``word v1 ... v_dim`` per line) for the words of ``vocab``.

    Words the file lacks keep a small random vector from torch's (seeded)
    generator; returns the matrix and the ids of the words found. Lowercased
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
    return weights, found


def pad_batch(sequences: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded id matrix (batch, longest) and the lengths, as int64 tensors."""
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    ids = np.zeros((len(sequences), int(lengths.max())), dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = seq
    return torch.from_numpy(ids), torch.from_numpy(lengths)
