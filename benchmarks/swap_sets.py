"""Benchmark: the four word-pair swap sets on SNLI dev replicated to the size of SNLI train.

SNLI dev (9,842 pairs) is copied 56 times (551,152 pairs, SNLI train has
550,152); each copy's sentences get a suffix "copy k" so that no sentence
repeats across copies and the tokeniser's per-sentence cache does not flatter
the figures (real SNLI train repeats each premise about three times). The
replicated table is both the source and the training split, as in the
default config (snli/train). Full lexicons: every WordNet antonym pair and
Baroni et al. (2012). Each set is built by `nlistress perturb` in a fresh
process, as its Snakemake job does (WordNet and the training index are loaded
anew every time; the WordNet antonym list is written once by `nlistress
antonym-lexicon`, as the pipeline's rule does), and the wall time and peak
memory printed are that job's. Target (issue 4): under 60 s and 2 GB per job on 2 cores.
Run from the project root:

    python benchmarks/swap_sets.py [copies]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml
from child_run import run_nlistress

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings, load_params
from nlistress.parquet_io import write_parquet

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
        settings = out / "params.yaml"
        settings.write_text(yaml.safe_dump(params), encoding="utf-8")
        # The antonym list: one job of its own, which the antonym sets then read.
        lexicon = out / "antonyms_wordnet.tsv"
        elapsed, peak = run_nlistress(["antonym-lexicon", "-o", str(lexicon)], settings)
        print(f"{'antonym-lexicon':<17} (once)   {elapsed:6.1f} s  {peak:6.0f} MB")
        params["swap"]["lexicons"]["antonyms"]["path"] = str(lexicon)
        settings.write_text(yaml.safe_dump(params), encoding="utf-8")
        slowest, largest = 0.0, 0.0
        for test in TESTS:
            output = out / f"{test}.parquet"
            elapsed, peak = run_nlistress(
                ["perturb", test, "-i", str(big), "-o", str(output)], settings
            )
            slowest, largest = max(slowest, elapsed), max(largest, peak)
            rows = pq.read_metadata(output).num_rows
            print(f"{test:<17} {rows:>7,} rows  {elapsed:6.1f} s  {peak:6.0f} MB")
    print(
        f"slowest job: {slowest:.1f} s (target < 60 s); largest: {largest:.0f} MB (target < 2048 MB)"
    )


if __name__ == "__main__":
    main()
