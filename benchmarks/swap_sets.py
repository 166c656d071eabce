"""Benchmark: the four word-pair swap sets on SNLI dev replicated to the size of SNLI train.

SNLI dev (9,842 pairs) is copied 56 times (551,152 pairs, SNLI train has
550,152); each copy's sentences get a suffix "copy k" so that no sentence
repeats across copies and the tokeniser's per-sentence cache does not flatter
the figures (real SNLI train repeats each premise about three times). The
replicated table is both the source and the training split, as in the
default config (snli/train). Full lexicons: every WordNet antonym pair and
Baroni et al. (2012). Prints wall time per set and the peak memory. Target
(issue 4): under 60 s and 2 GB on 2 cores. Run from the project root:

    python benchmarks/swap_sets.py [copies]
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings, load_params
from nlistress.parquet_io import write_parquet
from nlistress.perturb.runner import build_set

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "data"
TESTS = ("antonym_in_situ", "antonym_ex_situ", "hypernym_in_situ", "hypernym_ex_situ")


def replicate(dev: pa.Table, copies: int) -> pa.Table:
    """``copies`` copies of ``dev`` with distinct uids and sentences."""
    parts = []
    for k in range(copies):
        suffix = pa.scalar(f" copy {k}" if k else "")
        parts.append(dev.set_column(0, "uid", pc.binary_join_element_wise(dev["uid"], pa.scalar(f"#{k}"), ""))
                     .set_column(dev.schema.get_field_index("premise"), "premise",
                                 pc.binary_join_element_wise(dev["premise"], suffix, ""))
                     .set_column(dev.schema.get_field_index("hypothesis"), "hypothesis",
                                 pc.binary_join_element_wise(dev["hypothesis"], suffix, "")))  # fmt: skip
    return pa.concat_tables(parts).cast(dev.schema)


def main() -> None:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 56
    params = load_params([ROOT / "params.yaml", ROOT / "tests" / "shared.yaml"])
    for key in ("spacy_model", "nltk_data"):
        params["resources"][key] = str((ROOT / params["resources"][key]).resolve())
    params["swap"]["lexicons"]["hypernyms"]["path"] = str(SHARED / "lexicons" / "baroni2012.tsv")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        dev = out / "snli_dev.parquet"
        prepare(DatasetSpec.from_params(params, "snli"), "dev", dev, PrepareSettings(),
                source_path=SHARED / "snli" / "snli_1.0_dev.jsonl")  # fmt: skip
        big = out / "snli_train.parquet"
        write_parquet(replicate(pq.read_table(dev), copies), big)
        params["swap"]["train_table"] = str(big)
        print(f"source = training split: {pq.read_metadata(big).num_rows:,} pairs")
        total = 0.0
        for test in TESTS:
            start = time.perf_counter()
            manifest = build_set(test, big, out / f"{test}.parquet", params)
            elapsed = time.perf_counter() - start
            total += elapsed
            print(f"{test:<17} {manifest['output_rows']:>7,} rows  {elapsed:6.1f} s")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"all four sets: {total:.1f} s (the pipeline runs each as its own job; target < 60 s per job)")
    print(f"peak memory (RSS): {peak_mb:.0f} MB (target < 2048 MB)")


if __name__ == "__main__":
    main()
