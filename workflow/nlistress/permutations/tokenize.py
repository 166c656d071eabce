"""Word tokenizers for permutation: what counts as one movable word, per language.

English text is split on whitespace (SNLI is distributed pre-tokenised, so
punctuation is already its own token there); Chinese has no spaces and is
segmented into words with jieba, or into characters with the `char` option.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..errors import ConfigError

Tokenizer = Callable[[str], list[str]]


def _whitespace(text: str) -> list[str]:
    return text.split()


def _jieba(text: str) -> list[str]:
    import jieba

    jieba.setLogLevel(logging.WARNING)  # its dictionary-loading chatter is not progress
    return [token for token in jieba.lcut(text) if token.strip()]


def _characters(text: str) -> list[str]:
    return [ch for ch in text if not ch.isspace()]


TOKENIZERS: dict[str, Tokenizer] = {"whitespace": _whitespace, "jieba": _jieba, "char": _characters}
# How permuted tokens are joined back into a sentence.
JOINERS = {"whitespace": " ", "jieba": "", "char": ""}


def tokenizer(name: str) -> tuple[Tokenizer, str]:
    """The tokenizer called ``name`` and the string that joins its tokens."""
    if name not in TOKENIZERS:
        raise ConfigError(f"permute tokenizer {name!r}: expected one of {', '.join(TOKENIZERS)}")
    return TOKENIZERS[name], JOINERS[name]
