"""Naik et al.'s distraction tests as ``make_distraction_adv_samples_jsonl.py`` built them.

The original appends the addition (" and true is true", five times for length
mismatch, ...) to a sentence as follows:

1. It looks at the sentence's binary parse for a ".", "!" or "?" followed by
   whitespace or a closing bracket, i.e. a token that ends in one of them.
   If there is none, the addition goes at the very end of the text.
2. Otherwise it cuts the *text* at its first ".", "!" or "?" (with any
   whitespace after it), wherever that is, even inside a word or a number,
   and keeps only the text before the cut, the addition, and the cut mark
   with its whitespace: everything after the first mark is dropped
   ("Are you from the U.S.?" becomes "Are you from the U and true is true.").

The released script edits the hypothesis; the paper applies length mismatch to
the premise, so ``side`` says which sentence gets it. Where the source has no
binary parse, the Treebank tokens of :mod:`.tokens` stand in for step 1, and
each row's ``decided_by`` says whether the text alone decided the result (no
mark at all, or a mark ending the text, which ends a token in any parse) or
the stand-in did. Labels are the source's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ..perturb.tautology import Tautology
from .tokens import ptb_tokens

_MARK_IN_PARSE = re.compile(r"[.!?][\s)]+")
_MARK_IN_TEXT = re.compile(r"([.!?]\s*)")


def distract(text: str, addition: str, binary_parse: str | None = None) -> tuple[str, str]:
    """``text`` with ``addition`` put where the original script puts it, and what decided it.

    Returns the new text and ``"text"`` or ``"parse"`` / ``"treebank tokens"``.
    """
    if binary_parse is not None:
        has_mark, decided = bool(_MARK_IN_PARSE.search(binary_parse)), "parse"
    else:
        has_mark = any(token[-1] in ".!?" for token in ptb_tokens(text))
        decided = "treebank tokens"
    if not re.search(r"[.!?]", text) or text.rstrip()[-1:] in (".", "!", "?"):
        decided = "text"
    if not has_mark:
        return text + addition, decided
    parts = _MARK_IN_TEXT.split(text, maxsplit=1)
    if len(parts) == 1:
        return text + addition, decided
    return parts[0] + addition + parts[1], decided


class AuthorsTautology(Tautology):
    """Conjoin a tautology the way the authors' script did (see the module docstring)."""

    name = "tautology_authors"
    mode: ClassVar[str] = "paper"
    settings_keys = ("tautology", "side", "repeat", "keep_original")
    tests_for = Tautology.tests_for + (
        " Built in paper mode: the text is cut at its first sentence mark and the rest "
        "dropped, as the authors' released script did."
    )

    def edit(
        self, row: Mapping[str, Any], sides: tuple[str, ...], addition: str, language: str
    ) -> tuple[dict[str, str], dict[str, Any]]:
        edited = {"premise": row["premise"], "hypothesis": row["hypothesis"]}
        decided = {}
        for side in sides:
            edited[side], decided[side] = distract(edited[side], addition, row.get(f"{side}_binary_parse"))
        return edited, {"decided_by": decided, "mode": self.mode}

    def card_notes(self, manifest: Any) -> str:
        return (
            "Paper mode: built as Naik et al.'s released `make_distraction_adv_samples_jsonl.py` "
            "did it (see `nlistress.authors.distraction`): the addition goes before the text's "
            "first sentence mark and what follows that mark is dropped. Where the source has no "
            "binary parse, Penn-Treebank tokens stand in for it; each row's `decided_by` says "
            "whether the text alone decided the result."
        )
