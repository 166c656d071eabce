"""English word forms for word substitutions: capitalisation, "a"/"an" and negative prefixes.

Every generator that puts one word in place of another (antonyms, word-pair
swaps, substitutes) keeps the sentence's spelling conventions with the first
two, so an edit never leaves "An young woman" or "a impatient man";
:func:`negative_prefix` tells an antonym that only adds "un-"/"in-" to the word,
which keeps the word's sense and the complements it takes.
"""

from __future__ import annotations

import re

# Spellings whose first sound goes against the first letter.
_CONSONANT_SOUND = (
    *("unic", "unif", "unil", "unio", "uniq", "unis", "unit", "univ"),
    *("usa", "use", "usu", "ura", "uri", "uro", "uti", "uto", "eu", "ewe", "one", "once", "ubiq"),
)
_VOWEL_SOUND = ("hour", "honest", "honor", "honour", "heir")
# An indefinite article and the whitespace after it, at the end of the text before a word.
_ARTICLE_BEFORE = re.compile(r"(?:^|(?<=\W))(an?)(\s+)$", re.IGNORECASE)


def indefinite(word: str) -> str:
    """ "an" before a vowel sound, else "a" (spelling rule with the common exceptions)."""
    lower = word.lower()
    if lower.startswith(_CONSONANT_SOUND):
        return "a"
    if lower.startswith(_VOWEL_SOUND) or lower[:1] in "aeiou":
        return "an"
    return "a"


def match_case(word: str, replacement: str) -> str:
    """``replacement`` capitalised like ``word``: UPPER, Title or lower."""
    if len(word) > 1 and word.isupper():
        return replacement.upper()
    if word[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement.lower()


def agree_article(before: str, old: str, new: str) -> str:
    """``before`` (the text up to a replaced word) with its final "a"/"an" fitted to ``new``.

    Only an article that agrees with ``old`` by the spelling rule is changed,
    so idiomatic uses ("an hour", "a university") are left alone.
    """
    match = _ARTICLE_BEFORE.search(before)
    if match is None:
        return before
    article = match.group(1)
    if article.lower() != indefinite(old) or indefinite(new) == article.lower():
        return before
    return before[: match.start(1)] + match_case(article, indefinite(new)) + match.group(2)


def negative_prefix(antonym: str, lemma: str) -> bool:
    """``antonym`` is ``lemma`` with a negative prefix ("unhappy", "impossible", "dishonest",
    "atypical", "abnormal").

    Such antonyms are rare in SemCor but never a different sense (nor is the
    word without its prefix: "unemployed" -> "employed"); "non-" forms
    ("nonfinancial") are left out: they classify rather than negate a property.
    """
    antonym, lemma = antonym.lower(), lemma.lower()
    return any(antonym == prefix + lemma for prefix in ("un", "in", "im", "il", "ir", "dis", "a", "ab"))
