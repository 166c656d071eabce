"""Distraction tests: conjoin a tautology to the premise or hypothesis (Naik et al. 2018, 3.2).

For a premise p and hypothesis h, ``p ∧ True`` has the same relation to h as
p, so appending "and true is true" (word overlap), "and false is not true"
(negation) or five copies of "and true is true" to the premise (length
mismatch) must not change the gold label. The text is inserted before the
sentence's final punctuation, as in the paper's Table 2, and the rest of the
sentence is kept byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa

from ..errors import ConfigError
from ..manifest import RowCounts
from .base import Context, Generator, SetRow

# A sentence that ends in an abbreviation's period: "the U.S.", "Mr.", "etc.".
_ABBREVIATION = re.compile(
    r"(?:\b[A-Za-z]\.){2,}$|\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Inc|Ltd|Co|Corp|etc|vs|Gen|Gov|Sen|Rep|Rev|Mt|Ft)\.$"
)


def conjoin(sentence: str, addition: str, final_punctuation: str) -> tuple[str, int]:
    """Insert ``addition`` after the last word, before trailing punctuation and spaces.

    Returns the new sentence and the character offset where ``addition`` went.
    ``"It was turbulent."`` + ``" and true is true"`` gives
    ``"It was turbulent and true is true."``; tokenised text keeps its space
    before the final stop (``"packages ."`` -> ``"packages and true is true ."``).
    An abbreviation keeps its period: ``"Are you from the U.S.?"`` gives
    ``"Are you from the U.S. and true is true?"``, and where that period also
    ended the sentence (``"in the U.S."``) a final stop follows the addition.
    """
    end = len(sentence)
    while end and (sentence[end - 1].isspace() or sentence[end - 1] in final_punctuation):
        if sentence[end - 1] == "." and _ABBREVIATION.search(sentence[:end]):
            break
        end -= 1
    rest = sentence[end:]
    if sentence[end - 1 : end] == "." and end and not any(c in ".!?" for c in rest):
        rest = "." + rest  # the abbreviation's period was also the sentence's
    return sentence[:end] + addition + rest, end


class Tautology(Generator):
    """Conjoin a tautology ``repeat`` times to one or both sides; labels are unchanged."""

    name = "tautology"
    paper_generator = "tautology_authors"
    tests_for = (
        "Robustness to distraction. A tautology (a statement true in every world, e.g. "
        '"true is true") is conjoined to the premise or the hypothesis. Since p ∧ True ≡ p, '
        "the gold label cannot change; a model that relies on word overlap, sentence length "
        'or strong negation words ("not") changes its prediction anyway.'
    )
    paper_quality = (
        "Naik et al. (2018) did not validate the distraction sets: the label is the source's, "
        "unchanged by construction."
    )

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        self.languages = params.get("stress", {}).get("languages", {})
        if not self.settings.get("tautology"):
            raise ConfigError(f"stress.tests.{test}.tautology: missing")
        # side and repeat (at most MAX_REPEAT) were checked against the schema (Generator.__init__).
        self.side, self.repeat = self.settings.get("side", "hypothesis"), self.settings.get("repeat", 1)
        self.keep_original = bool(self.settings.get("keep_original", False))

    def addition(self, language: str) -> tuple[str, str]:
        """The tautology text for ``language`` and the full text inserted into a sentence."""
        if language not in self.languages:
            known = ", ".join(sorted(self.languages))
            raise ConfigError(
                f"stress.languages: no entry for language {language!r} (known: {known})"
            )
        lang = self.languages[language]
        key = str(self.settings["tautology"])
        # A key of `tautologies`, or the tautology's own text (e.g. --set tautology="sky is sky").
        text = lang.get("tautologies", {}).get(key, key)
        sep = lang.get("separator", " ")
        once = f"{sep}{lang.get('connective', 'and')}{sep}{text}"
        return text, once * self.repeat

    def edit(
        self, row: Mapping[str, Any], sides: tuple[str, ...], addition: str, language: str
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """The row's two sentences with ``addition`` conjoined to ``sides``, and what to record.

        Paper mode overrides this one step (``nlistress.authors.distraction``);
        the rest of :meth:`generate` is shared.
        """
        punctuation = self.languages[language].get("final_punctuation", ".!?")
        edited = {"premise": row["premise"], "hypothesis": row["hypothesis"]}
        offsets = {}
        for side in sides:
            edited[side], offsets[side] = conjoin(edited[side], addition, punctuation)
        return edited, {"char_start": offsets}

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        text, addition = self.addition(context.language)
        sides = ("premise", "hypothesis") if self.side == "both" else (self.side,)
        for row in table.to_pylist():
            counts.input += 1
            counts.kept += 1
            edited, recorded = self.edit(row, sides, addition, context.language)
            common = {
                "dataset": context.dataset,
                "split": context.split,
                "label": row["label"],
                "label_id": row["label_id"],
                "genre": row.get("genre"),
                "source_uid": row["uid"],
                "perturbation": self.test,
            }
            if self.keep_original:
                yield SetRow(
                    uid=f"original:{row['uid']}",
                    premise=row["premise"],
                    hypothesis=row["hypothesis"],
                    params={"original": True},
                    **common,
                )
            yield SetRow(
                uid=f"{self.test}:{row['uid']}",
                premise=edited["premise"],
                hypothesis=edited["hypothesis"],
                params={
                    "tautology": text,
                    "inserted": addition,
                    "repeat": self.repeat,
                    "side": self.side,
                    "language": context.language,
                    **recorded,
                },
                **common,
            )
