"""The permutation operator f of Sinha et al. (2021) and the permuted test sets it builds.

For each example, q permutations of the premise and of the hypothesis are drawn
independently such that no word keeps its original position (no position maps
to itself and no position receives the same word it had), all q distinct as
sentences. Examples with a side shorter than ``min_tokens`` tokens are
excluded and counted, as in the paper (which keeps only examples where 100
distinct permutations exist). Each example draws from its own generator,
seeded by the base seed, the example's uid and the side, so a subset of a
dataset gets the same permutations as the whole.

Variants: only the hypothesis permuted (appendix C), and clumped permutations
where a contiguous span covering a share of the words moves as one unit
(appendix D). Each row also carries the BLEU-2/3/4 of every permuted sentence
against its original and the permutation itself, so it can be re-derived.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa

from ..errors import ConfigError
from ..manifest import RowCounts
from ..perturb.base import SET_SCHEMA, Context, Generator, SetRow
from .tokenize import tokenizer

SIDES = ("premise", "hypothesis")
BLEU_ORDERS = (2, 3, 4)
# Table 7 of the paper: (test examples, used examples) per evaluation split.
PAPER_TABLE7 = {
    ("mnli", "dev_matched"): (9815, 6655),
    ("mnli", "dev_mismatched"): (9832, 7449),
    ("snli", "dev"): (9842, 3697),
    ("snli", "test"): (9824, 3671),
    ("anli", "r1_dev"): (1000, 756),
    ("anli", "r2_dev"): (1000, 709),
    ("anli", "r3_dev"): (1200, 754),
}

PERMUTE_SCHEMA = pa.schema(
    [
        *SET_SCHEMA,
        pa.field("perm_index", pa.int32(), nullable=False),
        pa.field("premise_tokens", pa.int32(), nullable=False),
        pa.field("hypothesis_tokens", pa.int32(), nullable=False),
        *(
            pa.field(f"bleu{n}_{side}", pa.float32(), nullable=False)
            for side in SIDES
            for n in BLEU_ORDERS
        ),
        # Original token positions in permuted order; null for a side left as it was.
        pa.field("premise_order", pa.list_(pa.int16())),
        pa.field("hypothesis_order", pa.list_(pa.int16())),
    ]
)


def example_rng(seed: int, uid: str, side: str) -> np.random.Generator:
    """A generator for one side of one example (PCG64; the same on every platform)."""
    digest = hashlib.sha256(f"{uid}\0{side}".encode()).digest()
    words = np.frombuffer(digest[:16], dtype="<u4").tolist()
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


def clump_units(
    n: int, clump: float, rng: np.random.Generator
) -> tuple[list[np.ndarray], int | None]:
    """Split positions 0..n-1 into movable units: singles, plus one contiguous clump.

    The clump covers ``round(clump * n)`` words (at least 2, at most n - 1) at a
    random start; it returns the units and the clump's start (None if no clump).
    """
    if clump <= 0:
        return [np.array([i]) for i in range(n)], None
    size = min(max(2, round(clump * n)), n - 1)
    start = int(rng.integers(0, n - size + 1))
    units = [np.array([i]) for i in range(start)]
    units.append(np.arange(start, start + size))
    units += [np.array([i]) for i in range(start + size, n)]
    return units, start


def sample_orders(
    ids: np.ndarray,
    q: int,
    rng: np.random.Generator,
    clump: float = 0.0,
    max_draws: int = 5000,
    resample_duplicates: bool = True,
) -> tuple[np.ndarray, int | None]:
    """Up to ``q`` distinct permutations of a sentence (as orders of positions), and the clump start.

    Without clumping a permutation is valid if no position keeps its word (by
    position and by identity, so a repeated word may not land where a copy of
    it stood). With clumping, every unit must move. Candidates are drawn in
    batches until q distinct valid ones are found or ``max_draws`` is spent;
    with ``resample_duplicates`` off, exactly q valid ones are drawn, as the
    paper did, and only their distinct ones are returned.
    """
    n = len(ids)
    units, start = clump_units(n, clump, rng)
    m = len(units)
    if m < 2:
        return np.zeros((0, n), dtype=np.int64), start
    # Every unit order maps to a token order: pad units to one width and drop the padding.
    width = max(len(u) for u in units)
    padded = np.full((m, width), -1)
    for i, unit in enumerate(units):
        padded[i, : len(unit)] = unit
    wanted = q if start is None else min(q, derangement_count(m))
    pool = np.zeros((0, n), dtype=np.int64)  # valid orders, in draw order
    drawn = 0
    while drawn < max_draws:
        batch = min(max(2 * q, 64), max_draws - drawn)
        drawn += batch
        unit_orders = np.argsort(rng.random((batch, m)), axis=1)
        unit_orders = unit_orders[(unit_orders != np.arange(m)).all(axis=1)]
        expanded = padded[unit_orders].reshape(len(unit_orders), -1)
        orders = expanded[expanded >= 0].reshape(len(unit_orders), n)
        if start is None:
            orders = orders[(ids[orders] != ids).all(axis=1)]
        pool = np.concatenate([pool, orders])
        if not resample_duplicates:
            if len(pool) >= q:
                pool = pool[:q]
                break
        elif len(pool) >= wanted and len(np.unique(_row_keys(ids[pool]))) >= wanted:
            break
    first = np.sort(np.unique(_row_keys(ids[pool]), return_index=True)[1])
    return pool[first[:q]], start


def derangement_count(m: int) -> int:
    """How many orders of m units leave no unit in place (!m)."""
    before, current = 1, 0  # !0, !1
    for i in range(2, m + 1):
        before, current = current, (i - 1) * (before + current)
    return before if m == 0 else current


_KEY_WEIGHTS = np.random.default_rng(20210801).integers(1, 2**63, size=4096, dtype=np.uint64) | 1


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """A 64-bit key per row (a random linear hash): equal rows, equal keys.

    Used to keep the first occurrence of each distinct permuted sentence; a
    hash collision could only discard a distinct sentence, never keep a duplicate.
    """
    n = rows.shape[1]
    weights = _KEY_WEIGHTS[:n] if n <= len(_KEY_WEIGHTS) else np.resize(_KEY_WEIGHTS, n)
    return (rows.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)


def _ngram_codes(x: np.ndarray, n: int, base: int) -> np.ndarray:
    """Integer codes of the n-grams along the last axis (one code per position)."""
    length = x.shape[-1] - n + 1
    codes = np.zeros((*x.shape[:-1], length), dtype=np.int64)
    for j in range(n):
        codes = codes * base + x[..., j : j + length]
    return codes


def bleu(ids: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Sentence BLEU-2/3/4 of each permuted sentence against the original, shape (k, 3).

    Permuting keeps every word, so unigram precision is 1 and the brevity
    penalty is 1; BLEU-N is the geometric mean of the clipped 1..N-gram
    precisions (no smoothing: 0 if some order has no match), as NLTK's
    ``sentence_bleu`` computes it.
    """
    k, n = orders.shape
    _, local = np.unique(ids, return_inverse=True)
    base = int(local.max()) + 1 if n else 1
    permuted = local[orders]
    log_sum = np.zeros(k)  # sum of the log n-gram precisions of orders 2..N so far
    scores = np.zeros((k, len(BLEU_ORDERS)))
    for column, order in enumerate(BLEU_ORDERS):  # consecutive orders 2, 3, 4
        grams = n - order + 1
        if grams <= 0:
            log_sum = np.full(k, -np.inf)
        else:
            uniq, counts = np.unique(_ngram_codes(local, order, base), return_counts=True)
            codes = _ngram_codes(permuted, order, base)
            where = np.minimum(np.searchsorted(uniq, codes), len(uniq) - 1)
            hit = uniq[where] == codes
            rows = np.broadcast_to(np.arange(k)[:, None], codes.shape)[hit]
            found = np.bincount(rows * len(uniq) + where[hit], minlength=k * len(uniq))
            matched = np.minimum(found.reshape(k, len(uniq)), counts).sum(axis=1)
            with np.errstate(divide="ignore"):
                log_sum = log_sum + np.log(matched / grams)
        scores[:, column] = np.exp(log_sum / order)  # unigram precision 1 adds log 1 = 0
    return scores


def bleu_of(tokens: list[str], orders: np.ndarray) -> np.ndarray:
    ids = np.unique(np.array(tokens, dtype=object), return_inverse=True)[1]
    return bleu(ids, orders)


def q_and_sides(settings: Mapping[str, Any]) -> tuple[int, tuple[str, ...]]:
    """A permutation test's ``q`` (permutations per example) and permuted ``sides``, with their
    defaults (the schema bounds q: rows grow q-fold)."""
    return settings.get("q", 100), tuple(settings.get("sides", SIDES))


def add_example_rows(
    columns: dict[str, list[Any]], test: str, row: Mapping[str, Any], context: Context, params: str,
    tokens: Mapping[str, list[str]], texts: Mapping[str, list[str]],
    orders: Mapping[str, list[list[int]]], bleus: Mapping[str, np.ndarray],
) -> None:  # fmt: skip
    """Append one example's rows (one per permutation) to ``columns`` (``PERMUTE_SCHEMA``).

    ``texts`` has both sides' sentences for every permutation; ``orders`` and
    ``bleus`` only the permuted sides (the other side keeps no order, BLEU 1).
    """
    k = len(texts["premise"])
    columns["uid"] += [f"{test}:{row['uid']}:{i}" for i in range(k)]
    columns["source_uid"] += [row["uid"]] * k
    columns["perm_index"] += range(k)
    for key, value in (
        ("dataset", context.dataset), ("split", context.split), ("label", row["label"]),
        ("label_id", row["label_id"]), ("genre", row.get("genre")),
        ("perturbation", test), ("perturbation_params", params),
        ("premise_tokens", len(tokens["premise"])),
        ("hypothesis_tokens", len(tokens["hypothesis"])),
    ):  # fmt: skip
        columns[key] += [value] * k
    for side in SIDES:
        columns[side] += texts[side]
        if side in orders:
            columns[f"{side}_order"] += orders[side]
            for j, n in enumerate(BLEU_ORDERS):
                columns[f"bleu{n}_{side}"] += bleus[side][:k, j].tolist()
        else:
            columns[f"{side}_order"] += [None] * k
            for n in BLEU_ORDERS:
                columns[f"bleu{n}_{side}"] += [1.0] * k


class Permute(Generator):
    """q word-order permutations per example, in long format (one row per permutation)."""

    name = "permute"
    family = "permute"
    paper_generator = "permute_authors"
    unit = "example"
    schema: ClassVar[pa.Schema] = PERMUTE_SCHEMA
    tests_for = (
        "Sensitivity to word order (Sinha et al. 2021). Each example is repeated with its "
        "words shuffled so that no word keeps its place; a model that understands syntax "
        "should not keep predicting the gold label for such unnatural sentences. The "
        "permutation-acceptance metrics (Ω_max, Ω_rand, P^c, P^f) measure how often it does."
    )
    cites = "Sinha, Parthasarathi, Pineau and Williams (2021). UnNatural Language Inference. ACL."
    paper_quality = (
        "Sinha et al. (2021) keep the source label on purpose: the test measures how often a "
        "model accepts a permuted pair, not whether the label still holds."
    )

    def __init__(self, test: str, settings: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        super().__init__(test, settings, params)
        s = self.settings  # each value checked against the schema (Generator.__init__)
        self.q, self.sides = q_and_sides(s)
        self.clump = float(s.get("clump", 0.0))
        self.min_tokens = s.get("min_tokens", 6)
        self.distinct = s.get("distinct", "required")
        self.max_draws = s.get("max_draws_per_permutation", 50) * self.q
        self.tokenizers = (params.get("permute") or {}).get("tokenizers") or {}

    def paper_counterpart(self) -> str | None:
        """The authors' code permutes every word; a clumped set has no paper-mode build."""
        return self.paper_generator if self.clump == 0 else None

    def generate(self, table: pa.Table, context: Context, counts: RowCounts) -> Iterator[SetRow]:
        raise NotImplementedError("Permute writes columns directly: use generate_batches")

    def card_notes(self, manifest: Mapping[str, Any]) -> str:
        rows = manifest["rows"]
        lines = [
            "### Used examples (the paper's Table 7)",
            "",
            f"{rows['kept']:,} of {rows['input']:,} examples are used ({rows['kept'] / rows['input']:.1%}); "
            f"each has {self.q if self.distinct == 'required' else 'up to ' + str(self.q)} "
            "permutations.",
        ]
        paper = PAPER_TABLE7.get((manifest["dataset"], manifest["split"]))
        if paper is not None:
            test_rows, used = paper
            lines += [
                "",
                f"The paper used {used:,} of {test_rows:,} examples ({used / test_rows:.1%}). "
                "It excludes examples with a sentence of fewer than 6 tokens, as here, but does not "
                "name its tokenizer; the count depends on what a token is. Here English is split "
                "on whitespace, so punctuation attached to a word (`enough.`) is part of it in "
                "MultiNLI and ANLI, while SNLI is distributed pre-tokenised (`packages .`); a "
                "tokenizer that splits off punctuation or clitics finds more tokens and keeps more "
                "examples, a subword or stricter count fewer. Examples are also dropped here when "
                "fewer than q distinct permutations exist in which no word keeps its position "
                "(repeated words make some sentences short of such orders).",
            ]
        dropped = rows.get("dropped") or {}
        if dropped:
            lines += [
                "",
                "Dropped: " + "; ".join(f"{n:,} {why}" for why, n in dropped.items()) + ".",
            ]
        return "\n".join(lines)

    def _tokenizer(self, language: str) -> tuple[Any, str, str]:
        name = self.tokenizers.get(language)
        if name is None:
            raise ConfigError(f"permute.tokenizers: no tokenizer for language {language!r}")
        return (*tokenizer(name), name)

    def _plan(
        self, row: Mapping[str, Any], tokenize: Any, seed: int
    ) -> str | tuple[dict[str, list[str]], dict[str, np.ndarray], dict[str, int | None]]:
        """Tokens, permutation orders and clump starts of one example, or why it is dropped."""
        tokens = {side: tokenize(row[side]) for side in SIDES}
        if min(len(t) for t in tokens.values()) < self.min_tokens:
            return f"premise or hypothesis shorter than {self.min_tokens} tokens"
        orders, clumps = {}, {}
        for side in self.sides:
            ids = np.unique(np.array(tokens[side], dtype=object), return_inverse=True)[1]
            rng = example_rng(seed, row["uid"], side)
            orders[side], clumps[side] = sample_orders(
                ids, self.q, rng, self.clump, self.max_draws, self.distinct != "paper"
            )
        k = min(len(o) for o in orders.values())
        if k == 0 or (self.distinct != "best_effort" and k < self.q):
            return f"fewer than {self.q} distinct permutations"
        return tokens, orders, clumps

    def count_used(self, table: pa.Table, context: Context) -> RowCounts:
        """Which examples the set would use, without building it (for Table 7 counts)."""
        tokenize, _, _ = self._tokenizer(context.language)
        counts = RowCounts(unit=self.unit)
        for row in table.to_pylist():
            counts.input += 1
            planned = self._plan(row, tokenize, context.seed)
            if isinstance(planned, str):
                counts.drop(planned)
            else:
                counts.kept += 1
        return counts

    def generate_batches(
        self, table: pa.Table, context: Context, counts: RowCounts
    ) -> Iterator[pa.Table]:
        tokenize, joiner, name = self._tokenizer(context.language)
        settings = {
            "q": self.q, "sides": list(self.sides), "clump": self.clump,
            "min_tokens": self.min_tokens, "distinct": self.distinct, "tokenizer": name,
            "seed": context.seed,
        }  # fmt: skip
        columns: dict[str, list[Any]] = {field.name: [] for field in PERMUTE_SCHEMA}
        for row in table.to_pylist():
            counts.input += 1
            planned = self._plan(row, tokenize, context.seed)
            if isinstance(planned, str):
                counts.drop(planned)
                continue
            tokens, orders, clumps = planned
            k = min(len(o) for o in orders.values())
            bleus = {side: bleu_of(tokens[side], orders[side][:k]) for side in orders}
            counts.kept += 1
            params = json.dumps(
                {**settings, "clump_start": {s: c for s, c in clumps.items() if c is not None}},
                sort_keys=True,
            )
            texts = {}
            for side in SIDES:
                if side in orders:
                    words = np.array(tokens[side], dtype=object)
                    texts[side] = [joiner.join(words[o]) for o in orders[side][:k]]
                else:
                    texts[side] = [row[side]] * k
            add_example_rows(columns, self.test, row, context, params, tokens, texts,
                             {side: orders[side][:k].tolist() for side in orders}, bleus)
            if len(columns["uid"]) >= self.batch_rows:
                yield pa.Table.from_pydict(columns, schema=PERMUTE_SCHEMA)
                columns = {field.name: [] for field in PERMUTE_SCHEMA}
        if columns["uid"]:
            yield pa.Table.from_pydict(columns, schema=PERMUTE_SCHEMA)
