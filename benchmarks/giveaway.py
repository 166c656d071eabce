"""Benchmark: the give-away analysis over 550k hypotheses (the size of SNLI train).

SNLI dev (9,842 real hypotheses) is replicated to 550,000 rows, written as a
canonical table, and `nlistress giveaway` runs on it in a child process, so
the peak memory printed is the analysis's own (reading, tokenising, counting,
coverage curve, PNG and words.json), not this script's. Target (issue 7):
under 30 s and 1 GB on 2 cores. Also times the audit of a set that size.
Run from the project root:

    python benchmarks/giveaway.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from child_run import run_nlistress

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings, load_params

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "data"
ROWS = 550_000


def main() -> None:
    params = load_params([ROOT / "params.yaml"])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        dev = out / "snli_dev.parquet"
        prepare(DatasetSpec.from_params(params, "snli"), "dev", dev, PrepareSettings(),
                source_path=SHARED / "snli" / "snli_1.0_dev.jsonl")  # fmt: skip
        table = pq.read_table(dev)
        copies = -(-ROWS // table.num_rows)
        big = pa.concat_tables([table] * copies).slice(0, ROWS)
        big = big.set_column(0, "uid", pa.array([f"snli:train:{i}" for i in range(ROWS)]))
        train = out / "snli_train_like.parquet"
        pq.write_table(big, train)
        del big, table
        elapsed, peak = run_nlistress(
            ["giveaway", "--table", str(train), "-o", str(out / "giveaway")], ROOT / "params.yaml"
        )
        print(f"giveaway over {ROWS:,} hypotheses: {elapsed:.1f} s with start-up (target < 30 s)")
        print(f"peak memory (RSS) of the run: {peak:.0f} MB (target < 1024 MB)")
        elapsed, peak = run_nlistress(
            ["audit", "--set", str(train), "-o", str(out / "audit.json")], ROOT / "params.yaml"
        )
        print(f"audit of a {ROWS:,}-row set (5-fold naive Bayes): {elapsed:.1f} s; "
              f"peak RSS {peak:.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
