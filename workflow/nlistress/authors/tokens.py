"""What the authors' scripts read instead of the raw text: binary-parse tokens, and Lesk.

Naik et al.'s scripts read each sentence's ``*_binary_parse`` field from the
official MultiNLI files: Stanford PTB tokens wrapped in brackets. Where a
source has no parse (the shared MultiNLI copy, user files), the same tokens are
approximated with NLTK's Treebank word tokenizer, which splits words, clitics
("do n't") and punctuation the Penn Treebank way and writes quotes as `` and
''. The two can differ on rare tokens (a sentence-final abbreviation is "U.S."
"." in Stanford's tokens and "U.S" "." here), which each generator records.

NLTK's ``lesk`` changed its tie-breaking after 2018: it then returned the
maximum of (overlap, synset) pairs, so among synsets with the same overlap the
one whose name sorts last won; now the first listed wins. ``lesk_2018`` is the
former.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any


def ptb_tokens(text: str) -> list[str]:
    """Penn-Treebank tokens of ``text`` (the stand-in for a binary parse's leaves)."""
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer().tokenize(text)


def parse_tokens(text: str, binary_parse: str | None) -> list[str]:
    """The lower-cased tokens the authors' ``tokenize`` gives: brackets removed from the
    binary parse, split on whitespace; the Treebank stand-in when there is no parse."""
    if binary_parse:
        return re.sub(r"\(|\)", "", binary_parse).lower().split()
    return [t.lower() for t in ptb_tokens(text)]


def lesk_2018(context: Iterable[str], word: str, wn: Any) -> Any | None:
    """NLTK's simplified Lesk as released in 2018: all parts of speech, ties to the last name."""
    synsets: Sequence[Any] = wn.synsets(word)
    if not synsets:
        return None
    words = set(context)
    return max(synsets, key=lambda ss: (len(words.intersection(ss.definition().split())), ss.name()))
