"""Naik et al.'s antonymy test as ``make_antonym_adv_samples.py`` built it.

For each source pair, the premise and then the hypothesis are read as their
lower-cased binary-parse tokens; for each token, in order, that is not on the
original's short stop list:

1. Lesk (NLTK's 2018 tie-breaking, :func:`.tokens.lesk_2018`) picks a sense
   among all of the token's WordNet senses, any part of speech, with the
   token list as context;
2. the token is used only if that sense is a noun or an adjective satellite
   (satellites have no antonym links in WordNet 3.0, so in effect only nouns
   change);
3. for every lemma of the sense and every antonym of that lemma, skipping
   antonyms written with an underscore (multiword) and "civilian": if the
   token occurs in the original sentence (as a substring, case as written),
   its first occurrence is replaced by the antonym's name.

A premise gives the pair (premise, edited premise); a hypothesis gives
(edited hypothesis, hypothesis). Pairs whose two sentences are equal, and
repeated pairs, are dropped; every pair is labelled contradiction. Where the
source has no binary parse, the Treebank tokens of :mod:`.tokens` stand in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pyarrow as pa

from ..labels import LABELS
from ..manifest import RowCounts
from ..perturb.base import Context, Generator, SetRow
from ..resources import wordnet
from .tokens import lesk_2018, parse_tokens

#: tokens the original never replaces
STOP_LIST = frozenset(
    {
        *("here", "goodness", "yes", "no", "decision", "growing", "priority", "cheers"),
        *("volume", "right", "left", "goods", "addition", "income", "indecision", "there"),
        *("parent", "being", "parents", "lord", "lady", "put", "capital", "lowercase", "unions"),
    }
)
SKIPPED_ANTONYMS = frozenset({"civilian"})
DROP_NONE = "no pair"


class AuthorsAntonymy(Generator):
    """Antonym pairs from both sentences of every example, as the authors' script made them."""

    name = "antonymy_authors"
    mode: ClassVar[str] = "paper"
    settings_keys = ()
    tests_for = (
        "Antonymy (Naik et al. 2018, section 3.1), built in paper mode as the authors' "
        "released script did: a noun sense picked by Lesk is replaced by every antonym "
        "WordNet lists for it, and the sentence is paired with its edited copy under the "
        "label contradiction."
    )
    paper_quality = (
        "Naik et al. (2018): at least two of three annotators agreed with the generated label on "
        "86% of 100 sampled rows of this construction."
    )

    def _pairs(self, wn: Any, text: str, tokens: list[str], cache: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
        """(token, antonym, edited text) for every replacement the original makes in ``text``."""
        for token in tokens:
            if token in STOP_LIST:
                continue
            if token not in cache:  # the context is this sentence's tokens
                cache[token] = lesk_2018(tokens, token, wn)
            sense = cache[token]
            if sense is None or sense.pos() not in ("n", "s"):
                continue
            for lemma in sense.lemmas():
                for antonym in lemma.antonyms():
                    name = antonym.name()
                    if "_" in name or name in SKIPPED_ANTONYMS or token not in text:
                        continue
                    yield token, name, text.replace(token, name, 1)

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        wn = wordnet(self.params)
        label_id = LABELS.index("contradiction")
        seen: set[tuple[str, str]] = set()
        parses = {s: f"{s}_binary_parse" in table.column_names for s in ("premise", "hypothesis")}
        for row in table.to_pylist():
            counts.input += 1
            rows = []
            for side in ("premise", "hypothesis"):
                text = row[side]
                parse = row.get(f"{side}_binary_parse") if parses[side] else None
                tokens = parse_tokens(text, parse)
                for n, (token, antonym, edited) in enumerate(self._pairs(wn, text, tokens, {})):
                    premise, hypothesis = (text, edited) if side == "premise" else (edited, text)
                    if premise == hypothesis or (premise, hypothesis) in seen:
                        continue
                    seen.add((premise, hypothesis))
                    rows.append(SetRow(
                        uid=f"{self.test}:{row['uid']}:{side}:{n}", dataset=context.dataset,
                        split=context.split, premise=premise, hypothesis=hypothesis,
                        label="contradiction", label_id=label_id, genre=row.get("genre"),
                        source_uid=row["uid"], perturbation=self.test,
                        params={"side": side, "word": token, "antonym": antonym,
                                "mode": self.mode,
                                "tokens": "binary parse" if parse else "treebank"},
                    ))  # fmt: skip
            if rows:
                counts.kept += 1
                yield from rows
            else:
                counts.drop(DROP_NONE)

    def card_notes(self, manifest: Any) -> str:
        ours = manifest.get("output_rows")
        split = manifest.get("split")
        paper = {"dev_matched": 1561, "dev_mismatched": 1734}.get(split)
        lines = ["### Comparison with the paper", ""]
        if ours is not None:
            lines.append(f"This set has **{ours:,}** pairs, built in paper mode.")
        if paper is not None and manifest.get("dataset") == "mnli":
            lines.append(
                f"Naik et al. (2018) report {paper:,} pairs for the full MultiNLI "
                f"{split.replace('_', '-')} set (MultiNLI 0.9 with Stanford's binary-parse tokens; "
                "this build reads the source given, with Treebank tokens where it has no parse)."
            )
        return "\n".join(lines) + "\n"
