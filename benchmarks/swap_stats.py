"""Benchmark: `nlistress stats` on swap sets the size of SNLI dev, for three models.

Every SNLI dev example (9,842) becomes a control row (I_H) and a transformed
row (I_TH) with the swap-set columns filled from a hash of its uid (polarity,
unseen, gold label changed, a tenth left for annotation), and three "models"
predict from hashes of the texts. The paper's samples have at most ~1,000
rows, so this is ten times the largest. Prints the wall time of the analysis
and of writing every output, and the peak memory. Target: under 10 s and
1 GB on 2 cores. Run from the project root:

    python benchmarks/swap_stats.py
"""

from __future__ import annotations

import hashlib
import resource
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings, load_params
from nlistress.swap.schema import SWAP_SCHEMA
from nlistress.swap_statistics.analysis import Run, analyse
from nlistress.swap_statistics.hypothesis_tests import StatsSettings
from nlistress.swap_statistics.report import write_report

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "data"
LABELS = ("entailment", "neutral", "contradiction")
POLARITIES = (*LABELS, "entailment-neutral", "none")
MODELS = ("m1", "m2", "m3")


def _h(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def build_sets(canonical: Path, out: Path) -> tuple[Path, Path]:
    rows = pq.read_table(canonical).to_pylist()
    sets = {"I_H": [], "I_TH": []}
    for r in rows:
        h = _h(r["uid"])
        base = {k: r[k] for k in ("dataset", "split", "genre", "premise", "hypothesis")} | {
            "source_uid": r["uid"], "perturbation_params": "{}", "pair_id": r["uid"],
            "w1": "w1", "w2": "w2", "relation": "hyponym",
        }  # fmt: skip
        sets["I_H"].append(base | {
            "uid": f"{r['uid']}:c", "label": r["label"], "label_id": r["label_id"],
            "perturbation": "swap_control", "experiment": "I_H", "label_status": "gold",
            "gold_label_changed": None, "polarity": POLARITIES[h % 5], "unseen": False,
        })  # fmt: skip
        annotated = h % 10 != 0
        label = LABELS[(h >> 8) % 3] if annotated else None
        sets["I_TH"].append(base | {
            "uid": f"{r['uid']}:t", "hypothesis": r["hypothesis"] + " .", "label": label,
            "label_id": LABELS.index(label) if label else None, "perturbation": "swap",
            "experiment": "I_TH", "label_status": "annotated" if annotated else "needs_annotation",
            "gold_label_changed": (label != r["label"]) if annotated else None,
            "polarity": POLARITIES[(h >> 4) % 5], "unseen": (h >> 12) % 7 == 0,
        })  # fmt: skip
    paths = []
    for name, records in sets.items():
        path = out / f"{name}.parquet"
        pq.write_table(pa.Table.from_pylist(records, schema=SWAP_SCHEMA), path)
        for model in MODELS:
            pq.write_table(pa.table({
                "uid": [r["uid"] for r in records],
                "prediction": [LABELS[_h(model + r["premise"] + r["hypothesis"]) % 3] for r in records],
            }), out / f"{model}_{name}.parquet")  # fmt: skip
        paths.append(path)
    return paths[0], paths[1]


def main() -> None:
    params = load_params([ROOT / "params.yaml"])
    settings = StatsSettings.from_mapping(params["swap"]["stats"])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        snli = out / "snli_dev.parquet"
        prepare(DatasetSpec.from_params(params, "snli"), "dev", snli, PrepareSettings(),
                source_path=SHARED / "snli" / "snli_1.0_dev.jsonl")  # fmt: skip
        control, transformed = build_sets(snli, out)
        runs = [Run(m, control, transformed, out / f"{m}_I_H.parquet", out / f"{m}_I_TH.parquet")
                for m in MODELS]  # fmt: skip
        start = time.perf_counter()
        analysis = analyse(runs, settings)
        analysed = time.perf_counter() - start
        written = write_report(analysis, out / "stats")
        total = time.perf_counter() - start
        rows = pq.read_metadata(control).num_rows
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(MODELS)} models x ({rows} control + {rows} transformed rows): "
          f"{len(analysis.tests)} tests")  # fmt: skip
    print(f"analysis: {analysed:.2f} s; with {len(written)} output files: {total:.2f} s (target < 10 s)")
    print(f"peak memory (RSS): {peak_mb:.0f} MB (target < 1024 MB)")


if __name__ == "__main__":
    main()
