"""The four word-pair swap experiments of Sanchez, Mitchell & Riedel (2018) as set generators.

One generator, ``swap_pairs``, with two settings: ``relation`` (``antonym`` or
``hypernym``) and ``context`` (``in_situ`` or ``ex_situ``). Each of the four
tests writes the control rows and the transformed rows derived from them into
one set, told apart by ``experiment``:

- antonym, in situ:   I_A (contradictions with w1 in the premise, w2 in the
  hypothesis), I_TA1 (w1 and w2 swapped), I_TA2 / I_TA3 (the hypothesis /
  premise antonym replaced by a WordNet synonym, hyponym or hypernym of the
  other antonym, seen at least ``frequency_min`` times in training);
- antonym, ex situ:   E_A (premise or hypothesis, a seeded choice, copied into
  both positions with w1 in the premise, w2 in the hypothesis), E_TA (swapped);
- hypernym, in situ:  I_H (any label), I_TH (swapped);
- hypernym, ex situ:  E_H, E_TH.

Labels are derived only where a rule decides them (``LABEL_RULES``); every
other row is ``needs_annotation`` with a null label until a reviewer fills it
in (``nlistress import-review``). Polarity and unseen come from the training
split's pair index (``swap.train``).
"""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import ConfigError
from ..labels import LABELS
from ..manifest import RowCounts
from ..perturb.base import Context, Generator, row_rng
from ..perturb.precision import decisive, drop_reason
from ..perturb.runner import read_input
from .factors import Factors
from .index import PairIndex
from .lexicons import Lexicon, antonym_lexicon, hypernym_lexicon, substitutes
from .occurrences import FILTERS, OccurrenceFilter
from .rows import SwapRow, swap_rows_to_table
from .schema import SWAP_SCHEMA
from .tokens import positions, replace_word

#: rules that decide a label; every other non-control row needs annotation
LABEL_RULES = {
    "antonym_swap_keeps_contradiction": "antonymy is symmetric: swapping an antonym pair of a "
    "contradiction leaves a contradiction (I_TA1, E_TA)",
    "antonyms_in_identical_context_contradict": "premise and hypothesis identical but for an "
    "antonym pair contradict each other (E_A)",
    "entailed_hyponym_swap_gives_neutral": "an entailment whose premise has the hyponym and "
    "hypothesis the hypernym becomes neutral when they swap (I_TH)",
}
#: how a substitute relates to the word it stands for -> relation of premise word to hypothesis word
_TA2_RELATION = {"synonym": "synonym", "hyponym": "hypernym", "hypernym": "hyponym"}
_TA3_RELATION = {"synonym": "synonym", "hyponym": "hyponym", "hypernym": "hypernym"}


@functools.cache
def _training_index(path: str, size: int, mtime_ns: int, params_key: str) -> tuple[PairIndex, int]:
    """The training split's pair index, built once per file version in a process."""
    table, _ = read_input(path, "nli", json.loads(params_key))
    return PairIndex.from_table(table), table.num_rows


class SwapPairs(Generator):
    """Control and transformed sets of one experiment (relation x context)."""

    name: ClassVar[str] = "swap_pairs"
    shared_sections: ClassVar[tuple[str, ...]] = ("source_grammar",)
    family: ClassVar[str] = "swap"
    #: ``train_table``: a one-off training table for the factors (``--set train_table=...``)
    settings_keys: ClassVar[tuple[str, ...] | None] = ("relation", "context", "train_table")
    schema: ClassVar[pa.Schema] = SWAP_SCHEMA
    tests_for: ClassVar[str] = (
        "Robustness to swapping a word pair between premise and hypothesis (Sanchez, Mitchell "
        "and Riedel 2018). Control rows hold a lexicon pair (antonyms, or a hyponym and its "
        "hypernym) with w1 in the premise and w2 in the hypothesis; transformed rows swap them. "
        "Each row carries the paper's factors: polarity (the label the ordered pair occurs with "
        "most in training), unseen (pair never seen premise -> hypothesis in training) and "
        "gold-label-changed, and `pair_id` links each control row to its transformed rows."
    )
    cites: ClassVar[str] = (
        "Sanchez, Mitchell and Riedel (2018). Behavior Analysis of NLI Models: Uncovering the "
        "Influence of Three Factors on Robustness. NAACL."
    )
    paper_quality: ClassVar[str] = (
        "Sanchez et al. (2018) labelled the transformed rows by hand and discarded incoherent "
        "ones; they report no agreement or error rate."
    )

    #: blind judgements of SNLI test rows, which no swap filter was written from (README,
    #: "Annotator review"): what the default settings give on captions they were not fitted to
    HELD_OUT: ClassVar[dict[tuple[str, str], str]] = {
        ("antonym", "in_situ"): "100 rows: 98.0% of the 51 labelled right (rule labels 20 of "
                                "21, labels kept from SNLI 30 of 30), 79.0% grammatical, 100% "
                                "coherent (365 rows, sha256 `3487d27e…`)",
        ("antonym", "ex_situ"): "100 rows: 100% of the labels right, 86.0% grammatical, 99.0% "
                                "coherent (230 rows, sha256 `395528e4…`)",
        ("hypernym", "in_situ"): "every row: all 7 rule labels right but only 16 of the 21 "
                                 "labels kept from SNLI (76.2%), 81.0% grammatical, 95.2% "
                                 "coherent (42 rows, sha256 `a6b095b2…`)",
        ("hypernym", "ex_situ"): "every row: all need a label, 81.0% grammatical, 90.5% coherent "
                                 "(42 rows, sha256 `b37cb127…`)",
    }

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        self.relation = self.settings.get("relation")
        self.context_kind = self.settings.get("context")
        if self.relation is None or self.context_kind is None:  # the values: the schema's enums
            raise ConfigError(f"swap.tests.{test}: relation and context are required")
        self.section: Mapping[str, Any] = params.get("swap") or {}
        self.frequency_min = int(self.section.get("frequency_min", 10))
        self.skip_shared = bool(self.section.get("skip_shared_words", True))
        self.rule_needs_context = bool(self.section.get("rule_needs_shared_context", True))
        self.occurrences = OccurrenceFilter(params, "swap.filters", self.section.get("filters"))
        self._stats: dict[str, Any] = {}

    # -- inputs -------------------------------------------------------------

    def train_path(self) -> Path:
        """The training table: ``swap.train_table``, else the canonical table of ``swap.train``."""
        if self.settings.get("train_table") or self.section.get("train_table"):
            return Path(self.settings.get("train_table") or self.section["train_table"])
        train = str(self.section.get("train", ""))
        dataset, sep, split = train.partition("/")
        if not sep:
            raise ConfigError(f"swap.train: expected dataset/split, e.g. snli/train, got {train!r}")
        return Path("data/canonical") / dataset / f"{split}.parquet"

    def _train_index(self, table: pa.Table, source: PairIndex) -> tuple[PairIndex, int]:
        path = self.train_path()
        if not path.is_file():
            raise ConfigError(
                f"swap.train: training table {path} not found; build it "
                f"(snakemake {path}) or set swap.train_table"
            )
        if path.suffix == ".parquet":
            uids = pq.read_table(path, columns=["uid"])["uid"]
            if uids.equals(table["uid"]):  # training split is the source: reuse its index
                return source, table.num_rows
        stat = path.stat()
        key = json.dumps({"datasets": self.params.get("datasets", {})}, sort_keys=True)
        return _training_index(str(path), stat.st_size, stat.st_mtime_ns, key)

    def lexicon(self) -> Lexicon:
        lexicons = self.section.get("lexicons") or {}
        if self.relation == "antonym":
            return antonym_lexicon(lexicons.get("antonyms") or {}, self.params)
        return hypernym_lexicon(lexicons.get("hypernyms") or {}, self.params)

    # -- generation ---------------------------------------------------------

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SwapRow]:
        source = PairIndex.from_table(table)
        train, train_rows = self._train_index(table, source)
        factors = Factors(train)
        lexicon = self.lexicon()
        found: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
        for (a, b), relation in lexicon.pairs.items():
            for number in source.occurrences(a, b).tolist():
                found[number].append((a, b, relation))
        shared = self._skip_shared(source, found) if self.skip_shared else 0
        cols = {c: table[c].to_pylist() for c in ("uid", "premise", "hypothesis", "label", "genre")}
        candidates = [
            n for n, pairs in found.items()
            if pairs and cols["label"][n] in LABELS
            and (self.relation != "antonym" or cols["label"][n] == "contradiction")
        ]
        self.occurrences.check_grammar()
        self.occurrences.parse(cols[side][n] for n in sorted(candidates) for side in ("premise", "hypothesis"))
        filtered: Counter[str] = Counter()
        experiments: Counter[str] = Counter()
        statuses: Counter[str] = Counter()
        unseen: Counter[str] = Counter()
        polarities: dict[str, Counter[str]] = defaultdict(Counter)
        missing: Counter[str] = Counter()
        pairs_found = 0
        for number in range(table.num_rows):
            counts.input += 1
            label = cols["label"][number]
            if number not in found:
                counts.drop(f"no {self.relation} pair")
                continue
            if not found[number]:
                counts.drop("only pairs with a word on both sides (swap.skip_shared_words)")
                continue
            if self.relation == "antonym" and label != "contradiction":
                counts.drop("not a contradiction (antonym sets sample contradictions)")
                continue
            if label not in LABELS:
                counts.drop("no gold label")
                continue
            pairs, reasons = self._filter_pairs(cols["premise"][number], cols["hypothesis"][number],
                                                found[number])
            filtered.update(reasons)
            if not pairs:
                counts.drop(drop_reason(decisive(reasons, FILTERS)))
                continue
            found[number] = pairs
            counts.kept += 1
            example = {c: cols[c][number] for c in cols}
            for w1, w2, relation in sorted(found[number]):
                pairs_found += 1
                produced = 0
                for row in self._rows(example, w1, w2, relation, context, factors, train):
                    produced += 1
                    experiments[row.experiment] += 1
                    statuses[f"{row.experiment} {row.label_status}"] += 1
                    unseen[row.experiment] += row.unseen
                    polarities[row.experiment][row.polarity] += 1
                    yield row
                if self.relation == "antonym" and self.context_kind == "in_situ":
                    missing["I_TA2/I_TA3 without a frequent substitute"] += 4 - produced
        self._stats = {
            "lexicon": lexicon.describe(),
            "train": {"path": str(self.train_path()), "rows": train_rows},
            "frequency_min": self.frequency_min,
            "pairs": pairs_found,
            "pairs_skipped_shared_word": shared,
            "filters": self.occurrences.switch.active(),
            "pairs_dropped_by_filter": dict(sorted(filtered.items())),
            **({"I_TA1_without_shared_context": statuses["I_TA1 needs_annotation"]}
               if self.relation == "antonym" and self.context_kind == "in_situ"
               and self.rule_needs_context else {}),
            "rows_by_experiment": dict(sorted(experiments.items())),
            "label_status": dict(sorted(statuses.items())),
            "unseen_by_experiment": dict(sorted(unseen.items())),
            "polarity_by_experiment": {k: dict(sorted(v.items())) for k, v in sorted(polarities.items())},
            **({"substitutes_missing": dict(missing)} if missing else {}),
        }

    def _filter_pairs(
        self, premise: str, hypothesis: str, pairs: list[tuple[str, str, str]]
    ) -> tuple[list[tuple[str, str, str]], list[str]]:
        """The pairs whose every occurrence passes the filters, and the first reason of each other."""
        kept, reasons = [], []
        for w1, w2, relation in pairs:
            allowed = self.occurrences.pair_pos(w1, w2, "antonym" if relation == "antonym" else "hypernym")
            why = self.occurrences.reasons(premise, w1, allowed, w2) + self.occurrences.reasons(
                hypothesis, w2, allowed, w1
            )
            if why:
                reasons.append(why[0])
            else:
                kept.append((w1, w2, relation))
        return kept, reasons

    @staticmethod
    def _skip_shared(source: PairIndex, found: dict[int, list[tuple[str, str, str]]]) -> int:
        """Drop occurrences where w2 is also in the premise or w1 also in the hypothesis.

        Swapping those would repeat a word ("soccer game" -> "soccer soccer")
        instead of exchanging the pair. Returns how many were dropped.
        """
        skipped = 0
        for number, pairs in found.items():
            kept = [
                (a, b, r)
                for a, b, r in pairs
                if not source.contains(number, b, "premise")
                and not source.contains(number, a, "hypothesis")
            ]
            skipped += len(pairs) - len(kept)
            found[number] = kept
        return skipped

    def _rows(
        self,
        example: Mapping[str, Any],
        w1: str,
        w2: str,
        relation: str,
        context: Context,
        factors: Factors,
        train: PairIndex,
    ) -> Iterator[SwapRow]:
        premise, hypothesis, gold = example["premise"], example["hypothesis"], example["label"]
        p_pos, h_pos = positions(premise, w1), positions(hypothesis, w2)
        pair_id = (
            f"{example['uid']}|{w1}>{w2}|p{','.join(map(str, p_pos))}|h{','.join(map(str, h_pos))}"
        )
        base = {"w1": w1, "w2": w2, "relation": relation, "control_label": gold}

        def row(experiment: str, p: str, h: str, words: tuple[str, str], label: str | None,
                status: str, rule: str | None = None, row_relation: str | None = None,
                **extra: Any) -> SwapRow:
            polarity, unseen = factors.of(*words)
            params = {**base, "experiment": experiment, "premise_word": words[0],
                      "hypothesis_word": words[1], **extra}
            if rule:
                params["label_rule"] = rule
            return SwapRow(
                uid=f"{pair_id}|{experiment}", dataset=context.dataset, split=context.split,
                premise=p, hypothesis=h, label=label,
                label_id=LABELS.index(label) if label in LABELS else None,
                genre=example["genre"], source_uid=example["uid"], perturbation=self.test,
                params=params, experiment=experiment, pair_id=pair_id, w1=w1, w2=w2,
                relation=row_relation or relation, label_status=status,
                gold_label_changed=None if label is None else label != gold,
                polarity=polarity, unseen=unseen,
            )

        swapped_p, swapped_h = replace_word(premise, w1, w2), replace_word(hypothesis, w2, w1)
        if self.context_kind == "in_situ":
            control = "I_A" if self.relation == "antonym" else "I_H"
            yield row(control, premise, hypothesis, (w1, w2), gold, "gold")
            if self.relation == "antonym":
                if self.rule_needs_context and not self.occurrences.shares_context(
                    premise, hypothesis, frozenset((w1, w2))
                ):
                    yield row("I_TA1", swapped_p, swapped_h, (w2, w1), None, "needs_annotation",
                              swapped=True, shared_context=False)
                else:
                    yield row("I_TA1", swapped_p, swapped_h, (w2, w1), "contradiction", "rule",
                              "antonym_swap_keeps_contradiction", swapped=True)
                yield from self._substituted(row, pair_id, premise, hypothesis, w1, w2, context, train)
            elif gold == "entailment" and relation == "hyponym":
                yield row("I_TH", swapped_p, swapped_h, (w2, w1), "neutral", "rule",
                          "entailed_hyponym_swap_gives_neutral", swapped=True)
            else:
                yield row("I_TH", swapped_p, swapped_h, (w2, w1), None, "needs_annotation",
                          swapped=True)
            return
        # ex situ: one side's context, a seeded choice, in both positions
        side = row_rng(context.seed, pair_id).choice(("premise", "hypothesis"))
        if side == "premise":
            with_w1, with_w2 = premise, replace_word(premise, w1, w2)
        else:
            with_w1, with_w2 = replace_word(hypothesis, w2, w1), hypothesis
        if self.relation == "antonym":
            yield row("E_A", with_w1, with_w2, (w1, w2), "contradiction", "rule",
                      "antonyms_in_identical_context_contradict", context=side)
            yield row("E_TA", with_w2, with_w1, (w2, w1), "contradiction", "rule",
                      "antonym_swap_keeps_contradiction", context=side, swapped=True)
        else:
            yield row("E_H", with_w1, with_w2, (w1, w2), None, "needs_annotation", context=side)
            yield row("E_TH", with_w2, with_w1, (w2, w1), None, "needs_annotation", context=side,
                      swapped=True)

    def _substituted(self, row: Any, pair_id: str, premise: str, hypothesis: str, w1: str,
                     w2: str, context: Context, train: PairIndex) -> Iterator[SwapRow]:
        """I_TA2 (hypothesis antonym -> substitute of w1), I_TA3 (premise antonym -> substitute of w2)."""
        for experiment, stays, goes in (("I_TA2", w1, w2), ("I_TA3", w2, w1)):
            text = hypothesis if experiment == "I_TA2" else premise
            pos = self.occurrences.pos_of(text, goes)
            candidates = [
                (word, kind)
                for word, kind, word_pos in substitutes(stays, goes, self.params)
                if word_pos in pos and max(train.frequency(word)) >= self.frequency_min
            ]
            if not candidates:
                continue
            word, kind = row_rng(context.seed, f"{pair_id}|{experiment}").choice(candidates)
            extra = {"replaced": goes, "replacement": word, "replacement_is": f"{kind} of {stays}"}
            if experiment == "I_TA2":
                yield row(experiment, premise, replace_word(hypothesis, w2, word), (w1, word), None,
                          "needs_annotation", row_relation=_TA2_RELATION[kind], side="hypothesis",
                          **extra)
            else:
                yield row(experiment, replace_word(premise, w1, word), hypothesis, (word, w2), None,
                          "needs_annotation", row_relation=_TA3_RELATION[kind], side="premise",
                          **extra)

    def generate_batches(
        self, table: pa.Table, context: Context, counts: RowCounts
    ) -> Iterator[pa.Table]:
        batch: list[SwapRow] = []
        for row in self.generate(table, context, counts):
            batch.append(row)
            if len(batch) == self.batch_rows:
                yield swap_rows_to_table(batch)
                batch = []
        if batch:
            yield swap_rows_to_table(batch)

    def card_notes(self, manifest: Mapping[str, Any]) -> str:
        held_out = self.HELD_OUT[(self.relation, self.context_kind)]  # every pair the schema allows
        withheld = (manifest.get("stats") or {}).get("I_TA1_without_shared_context")
        unrelated = "" if withheld is None else (
            "### I_TA1 rows between unrelated scenes\n\n"
            f"{withheld} I_TA1 rows come from a contradiction whose premise and hypothesis share "
            "no content word besides the swapped pair (\"A woman is roller-skating down the "
            "wall\" / \"A man is paying for lunch\"). SNLI's label there rests on reading both "
            "captions as one photo, which strict readers of the text do not share, so these "
            "rows carry no rule label (`needs_annotation`; `swap.rule_needs_shared_context`).\n\n"
        )
        return unrelated + (
            "### Quality on text the filters were not written from\n\n"
            "The occurrence filters and the source-grammar checks were written from judged "
            "rows of SNLI dev. On text none of them was written from, the same settings built "
            f"from SNLI test and judged blind, {held_out}. Expect about "
            "that grammar on other captions; the rates above hold for the set they name.\n"
        )

    def extra_stats(self) -> dict[str, Any]:
        return self._stats
