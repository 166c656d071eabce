"""Word tokens for pair matching, the pair index and the token-level diff.

One rule everywhere: a word is a maximal run of letters, optionally joined by
single hyphens (``t-shirt``), matched case-insensitively (``WORD`` below).
Digits, punctuation and apostrophes separate words, so ``man's`` holds the
word ``man``. SNLI is whitespace-tokenised already, so this mostly agrees with
its tokens; lexicon entries that are not one such word (multi-word lemmas)
can never match and are skipped when lexicons load.

Replacements edit only the characters of the matched words, so the rest of
the sentence stays byte-for-byte as released.
"""

from __future__ import annotations

import re

from ..perturb.wording import agree_article, match_case

#: a word: letters (any script), optionally hyphen-joined; compared lowercased
WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def words(text: str) -> list[str]:
    """The lowercase words of ``text`` in order (one regex pass over the lowercased text)."""
    return WORD.findall(text.lower())


def is_word(token: str) -> bool:
    """``token`` is exactly one word under ``WORD`` (lexicon entries must be)."""
    return WORD.fullmatch(token) is not None


def positions(text: str, word: str) -> list[int]:
    """Word indices at which ``word`` (lowercase) occurs in ``text``."""
    return [i for i, w in enumerate(words(text)) if w == word]


def replace_word(text: str, old: str, new: str) -> str:
    """Every occurrence of word ``old`` in ``text`` replaced by ``new``, capitalisation kept.

    All occurrences go, as in the paper (footnote 3: a repeated word is
    replaced everywhere), so the old word no longer occurs afterwards. An
    indefinite article right before an occurrence follows the new word ("a
    man" -> "an adult").
    """
    parts, last = [], 0
    for match in WORD.finditer(text):
        if match.group().lower() != old:
            continue
        before = agree_article(text[last : match.start()], old, new)
        parts += [before, match_case(match.group(), new)]
        last = match.end()
    return "".join(parts) + text[last:]
