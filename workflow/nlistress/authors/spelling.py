"""Naik et al.'s spelling test as ``make_grammar_adv_samples_jsonl.py`` built it.

For each example the original (the keyboard-typo branch that its main loop
runs) repeats until it has made an edit:

1. draw a token at random from the hypothesis's lower-cased binary-parse
   tokens, function words and punctuation included;
2. skip it unless it is longer than one character and has a letter on its
   keyboard map (below);
3. replace one such letter, drawn at random, by one of its mapped neighbours,
   drawn at random;
4. write the new word into the hypothesis: if the word with its first letter
   capitalised occurs in the text, the first occurrence of that form is
   replaced by the capitalised new word; otherwise the first occurrence of
   the lower-case word, as a substring (so "form" in "information" can be
   the one that changes).

The keyboard map is the original's: each letter's left and right neighbours
on the same row only. Randomness is seeded per example (the original is not
seeded). Where the source has no binary parse, the Treebank tokens of
:mod:`.tokens` stand in. An example where no token can change after
``max_draws`` draws is dropped (the original would loop for ever).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import pyarrow as pa

from ..errors import ConfigError
from ..manifest import RowCounts
from ..perturb.base import Context, Generator, SetRow, row_rng
from .tokens import parse_tokens

KEYBOARD = {
    "a": "s", "b": "vn", "c": "xv", "d": "sf", "e": "rw", "f": "gd", "g": "fh", "h": "gj",
    "i": "uo", "j": "hk", "k": "jl", "l": "k", "m": "n", "n": "mb", "o": "ip", "p": "o",
    "q": "w", "r": "te", "s": "da", "t": "ry", "u": "yi", "v": "cb", "w": "eq", "x": "zc",
    "y": "tu", "z": "x",
}  # fmt: skip
DROP_NONE = "no token the original script could change"


def typo(text: str, tokens: list[str], rng: Any, max_draws: int) -> dict[str, Any] | None:
    """The original's keyboard typo in ``text`` (see the module docstring), or None."""
    for _ in range(max_draws):
        word = rng.choice(tokens)
        places = [i for i, ch in enumerate(word) if ch in KEYBOARD] if len(word) > 1 else []
        if not places:
            continue
        at = rng.choice(places)
        new = word[:at] + rng.choice(KEYBOARD[word[at]]) + word[at + 1 :]
        proper = word[0].upper() + word[1:]
        if proper in text:
            old, replacement = proper, new[0].upper() + new[1:]
        else:
            old, replacement = word, new
        start = text.find(old)
        edited = text.replace(old, replacement, 1)
        return {
            "text": edited, "word": word, "misspelled": new, "position": at,
            "replaced": old if start >= 0 else None, "char_start": start if start >= 0 else None,
        }  # fmt: skip
    return None


class AuthorsSpelling(Generator):
    """One keyboard typo per hypothesis, drawn as the authors' script drew it."""

    name = "spelling_authors"
    mode: ClassVar[str] = "paper"
    settings_keys = ("max_draws",)
    tests_for = (
        "Robustness to noise (Naik et al. 2018, section 3.3), built in paper mode: one token "
        "of the hypothesis, function words included, gets one letter replaced by a "
        "neighbouring key, as the authors' released script did. The gold label is unchanged."
    )

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        draws = self.settings.get("max_draws", 1000)
        if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
            raise ConfigError(f"stress.tests.{test}.max_draws: expected a positive integer, got {draws!r}")
        self.max_draws = draws

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        has_parse = "hypothesis_binary_parse" in table.column_names
        for row in table.to_pylist():
            counts.input += 1
            text = row["hypothesis"]
            tokens = parse_tokens(text, row.get("hypothesis_binary_parse") if has_parse else None)
            edit = typo(text, tokens, row_rng(context.seed, row["uid"]), self.max_draws) if tokens else None
            if edit is None:
                counts.drop(DROP_NONE)
                continue
            counts.kept += 1
            yield SetRow(
                uid=f"{self.test}:{row['uid']}",
                dataset=context.dataset,
                split=context.split,
                premise=row["premise"],
                hypothesis=edit.pop("text"),
                label=row["label"],
                label_id=row["label_id"],
                genre=row.get("genre"),
                source_uid=row["uid"],
                perturbation=self.test,
                params={**edit, "kind": "keyboard", "side": "hypothesis", "mode": self.mode,
                        "tokens": "binary parse" if has_parse else "treebank"},
            )
