"""Benchmark: build every stress-test set of MNLI dev-matched, and the numerical set.

Prints wall time per set and the process's peak memory. Target (issue 3): all
sets for MNLI dev-matched in under 3 minutes and 2 GB on 2 cores. Uses the
offline resources of tests/shared.yaml. Run from the project root:

    python benchmarks/stress_sets.py
"""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings, load_params
from nlistress.perturb.runner import build_set

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "data"
MNLI_TESTS = (
    "word_overlap",
    "negation",
    "length_mismatch",
    "tautology",
    "spelling_error",
    "antonymy",
)


def main() -> None:
    params = load_params([ROOT / "params.yaml", ROOT / "tests" / "shared.yaml"])
    for key in ("spacy_model", "nltk_data"):
        params["resources"][key] = str((ROOT / params["resources"][key]).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        mnli = out / "mnli_dev_matched.parquet"
        prepare(DatasetSpec.from_params(params, "mnli"), "dev_matched", mnli, PrepareSettings(),
                source_path=SHARED / "mnli" / "multinli_1.0_dev_matched.jsonl")  # fmt: skip
        aqua = out / "aqua_dev.parquet"
        prepare(DatasetSpec.from_params(params, "aqua_rat"), "dev", aqua, PrepareSettings(),
                source_path=SHARED / "aqua_rat" / "dev.json")  # fmt: skip
        total = 0.0
        # antonymy_reviewed runs antonymy again (its review CSVs judge the pairs the filters
        # dropped too, under reviews/)
        built = [*((t, mnli) for t in MNLI_TESTS), ("antonymy_reviewed", mnli)]
        for test, source in [*built, ("numerical", aqua)]:
            start = time.perf_counter()
            manifest = build_set(test, source, out / f"{test}.parquet", params)
            elapsed = time.perf_counter() - start
            total += elapsed if source != aqua else 0.0
            print(f"{test:<16} {manifest['output_rows']:>6} rows  {elapsed:6.1f} s")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"all MNLI dev-matched sets: {total:.1f} s (target < 180 s)")
    print(f"peak memory (RSS): {peak_mb:.0f} MB (target < 2048 MB)")


if __name__ == "__main__":
    main()
