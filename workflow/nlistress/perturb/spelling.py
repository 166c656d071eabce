"""Noise test: one spelling error in one word (Naik et al. 2018, 3.3).

One word with letters is sampled from the hypothesis and gets either a swap of
two adjacent, different characters ("the" -> "teh") or one letter replaced by
a neighbouring key on a QWERTY keyboard. Both edits always change the word;
the kind of edit, the word and the position are recorded per row.

The label stays only if the misspelling is not itself a word: "form" -> "from"
changes the meaning. With the ``real_word`` filter on (the default) an edit
that gives an English word is redrawn: a word of the source file's own
vocabulary, a spaCy stop word, or a WordNet word form (any inflection). An
example where ``max_draws`` draws all give words is dropped and counted as
``filter: real_word``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa

from ..errors import ConfigError
from ..manifest import RowCounts
from ..resources import wordnet
from .base import Context, Generator, SetRow, row_rng
from .precision import FilterSwitch, drop_reason

KINDS = ("swap", "keyboard")
_WORD = re.compile(r"[^\W\d_]+")  # a run of letters (any script); digits and "_" excluded
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_ROW_OFFSETS = (0.0, 0.25, 0.75)  # horizontal stagger of the three letter rows, in key widths


def _qwerty_neighbours() -> dict[str, str]:
    """Keys whose centres lie within 1.3 key widths: same-row and diagonal neighbours."""
    centres = {
        key: (i + _ROW_OFFSETS[row], float(row))
        for row, keys in enumerate(_ROWS)
        for i, key in enumerate(keys)
    }
    return {
        key: "".join(
            other
            for other, (ox, oy) in centres.items()
            if other != key and math.dist((x, y), (ox, oy)) < 1.3
        )
        for key, (x, y) in centres.items()
    }


NEIGHBOURS = _qwerty_neighbours()


def swap_positions(word: str) -> list[int]:
    """Positions i where swapping word[i] and word[i+1] changes the word."""
    return [i for i in range(len(word) - 1) if word[i] != word[i + 1]]


def keyboard_positions(word: str) -> list[int]:
    return [i for i, ch in enumerate(word) if ch.lower() in NEIGHBOURS]


def misspell(word: str, kind: str, rng: Any) -> tuple[str, int]:
    """Apply one edit of ``kind`` at a random valid position; return the new word and position."""
    if kind == "swap":
        i = rng.choice(swap_positions(word))
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :], i
    i = rng.choice(keyboard_positions(word))
    new = rng.choice(NEIGHBOURS[word[i].lower()])
    return word[:i] + (new.upper() if word[i].isupper() else new) + word[i + 1 :], i


_POSSIBLE = {"swap": swap_positions, "keyboard": keyboard_positions}


class SpellingError(Generator):
    """One seeded spelling error per example, in a word sampled from one side."""

    name = "spelling_error"
    paper_generator = "spelling_authors"
    tests_for = (
        "Robustness to noise. One word of the hypothesis is misspelled, either by swapping two "
        "adjacent characters or by replacing one letter with a neighbouring key on a QWERTY "
        "keyboard. People read through such typos; the gold label is unchanged."
    )
    paper_quality = (
        "Naik et al. (2018) did not validate the spelling set: the label is the source's, "
        "unchanged by construction."
    )

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        # kinds and max_draws were checked against the schema (Generator.__init__); the side
        # must be one sentence here (the schema also allows "both", for the tautologies).
        side = self.settings.get("side", "hypothesis")
        if side not in ("premise", "hypothesis"):
            raise ConfigError(f"stress.tests.{test}.side: expected premise or hypothesis, got {side!r}")
        self.kinds, self.side = list(self.settings.get("kinds", KINDS)), side
        self.filters = FilterSwitch(f"stress.tests.{test}", ("real_word",), self.settings.get("filters"))
        self.max_draws = self.settings.get("max_draws", 20)

    def _lexicon(self, table: pa.Table) -> Any:
        """``is_word(w)``: ``w`` (lower-cased) is an English word (see the module docstring)."""
        from spacy.lang.en.stop_words import STOP_WORDS

        known = set(STOP_WORDS)
        for side in ("premise", "hypothesis"):
            for text in table.column(side).to_pylist():
                known.update(w.lower() for w in _WORD.findall(text or ""))
        wn = wordnet(self.params)
        return lambda word: word.lower() in known or wn.morphy(word.lower()) is not None

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        is_word = self._lexicon(table) if self.filters("real_word") else (lambda _: False)
        for row in table.to_pylist():
            counts.input += 1
            text = row[self.side]
            words = list(_WORD.finditer(text))
            rng = row_rng(context.seed, row["uid"])
            kind = rng.choice(self.kinds)
            # Try the sampled kind first, then the other; a word qualifies if the edit can change it.
            for candidate_kind in [kind, *(k for k in self.kinds if k != kind)]:
                eligible = [m for m in words if _POSSIBLE[candidate_kind](m.group())]
                if eligible:
                    break
            else:
                counts.drop("no word that a spelling error can change")
                continue
            for _ in range(self.max_draws):
                match = rng.choice(eligible)
                word, (start, end) = match.group(), match.span()
                misspelled, position = misspell(word, candidate_kind, rng)
                if not is_word(misspelled):
                    break
            else:
                counts.drop(drop_reason("real_word"))
                continue
            edited = {"premise": row["premise"], "hypothesis": row["hypothesis"]}
            edited[self.side] = text[:start] + misspelled + text[end:]
            counts.kept += 1
            yield SetRow(
                uid=f"{self.test}:{row['uid']}",
                dataset=context.dataset,
                split=context.split,
                premise=edited["premise"],
                hypothesis=edited["hypothesis"],
                label=row["label"],
                label_id=row["label_id"],
                genre=row.get("genre"),
                source_uid=row["uid"],
                perturbation=self.test,
                params={
                    "kind": candidate_kind,
                    "side": self.side,
                    "word": word,
                    "misspelled": misspelled,
                    "char_start": start,
                    "char_end": end,
                    "position": position,
                },
            )
