"""Permuted sets built in the tests from real SNLI dev rows, independent of the set generator.

The metrics and the mini-tree analysis read the permuted-set layout
(long format, one row per permutation, ``premise_order`` / ``hypothesis_order``
listing original positions in permuted order). These helpers build that layout
from the canonical SNLI dev table with plain numpy derangements of whitespace
tokens, so the analysis is tested on real sentences without depending on how
the generator samples.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings
from nlistress.permutations.permute import PERMUTE_SCHEMA

from .support import SHARED_DATA, project_params

SET_SCHEMA = PERMUTE_SCHEMA  # the generator's schema, so the metrics read real sets


def canonical_snli_dev(out_dir: Path) -> Path:
    """The canonical table of the real SNLI dev file."""
    params = project_params()
    target = out_dir / "snli_dev.parquet"
    prepare(
        DatasetSpec.from_params(params, "snli"),
        "dev",
        target,
        PrepareSettings.from_params(params),
        source_path=SHARED_DATA / "snli" / "snli_1.0_dev.jsonl",
    )
    return target


def derangement(n: int, rng: np.random.Generator) -> np.ndarray:
    """A permutation of 0..n-1 with no fixed point (n >= 2), by rejection."""
    while True:
        order = rng.permutation(n)
        if (order != np.arange(n)).all():
            return order


def sentence_bleu(original: list[str], permuted: list[str], max_n: int) -> float:
    """BLEU-max_n of a permutation against its original (unigram precision and brevity are 1)."""
    log_sum = 0.0
    for n in range(2, max_n + 1):
        reference = Counter(tuple(original[i : i + n]) for i in range(len(original) - n + 1))
        candidate = Counter(tuple(permuted[i : i + n]) for i in range(len(permuted) - n + 1))
        total = sum(candidate.values())
        matched = sum(min(c, reference[g]) for g, c in candidate.items())
        if total == 0 or matched == 0:
            return 0.0
        log_sum += math.log(matched / total)
    return math.exp(log_sum / max_n)


def permuted_set(
    canonical: Path,
    out: Path,
    rows: slice,
    q: int,
    seed: int,
    sides: tuple[str, ...] = ("premise", "hypothesis"),
    variant: str = "permute",
) -> Path:
    """Permute ``rows`` of ``canonical`` q times (derangements of whitespace tokens)."""
    table = pq.read_table(canonical).slice(rows.start, rows.stop - rows.start).to_pylist()
    rng = np.random.default_rng(seed)
    columns: dict[str, list] = {name: [] for name in SET_SCHEMA.names}
    for row in table:
        tokens = {side: row[side].split() for side in ("premise", "hypothesis")}
        if min(len(t) for t in tokens.values()) < 2:
            continue
        for i in range(q):
            record = {
                "uid": f"permute:{variant}:{row['uid']}:{i}",
                "dataset": row["dataset"],
                "split": row["split"],
                "label": row["label"],
                "label_id": row["label_id"],
                "genre": row["genre"],
                "source_uid": row["uid"],
                "perturbation": variant,
                "perturbation_params": json.dumps({"q": q, "sides": list(sides)}),
                "perm_index": i,
                "premise_tokens": len(tokens["premise"]),
                "hypothesis_tokens": len(tokens["hypothesis"]),
            }
            for side in ("premise", "hypothesis"):
                if side in sides:
                    order = derangement(len(tokens[side]), rng)
                    permuted = [tokens[side][j] for j in order]
                    record[side] = " ".join(permuted)
                    record[f"{side}_order"] = order.tolist()
                    for n in (2, 3, 4):
                        record[f"bleu{n}_{side}"] = sentence_bleu(tokens[side], permuted, n)
                else:
                    record[side] = row[side]
                    record[f"{side}_order"] = None
                    for n in (2, 3, 4):
                        record[f"bleu{n}_{side}"] = 1.0
            for name in SET_SCHEMA.names:
                columns[name].append(record[name])
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pydict(columns, schema=SET_SCHEMA), out)
    return out


def word_overlap(premise: str, hypothesis: str) -> str:
    """A bag-of-words rule model: entailment if every hypothesis word is in the premise."""
    return "entailment" if set(hypothesis.split()) <= set(premise.split()) else "neutral"
