"""Benchmark: inference throughput and peak memory of `nlistress predict`.

CPU: the InferSent-style model (max-pooled BiLSTM) on the real SNLI test file,
through the same batched, length-sorted predictor `nlistress predict` uses,
at the tiny test dimensions and at the zoo's default dimensions. Weights are
randomly initialised: throughput does not depend on their values. Target
(issue 6): at least 2,000 pairs/s on 2 cores.

GPU (only with a CUDA device and --transformer-dir): a trained transformer
model directory run through the predict dispatcher on --pairs permuted SNLI
pairs (target: a million pairs through a large model in under 5 minutes on
one H100). Run from the project root:

    python benchmarks/model_inference.py [--threads 2] [--transformer-dir data/models/roberta_large/plain]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from itertools import chain
from pathlib import Path

import pyarrow.parquet as pq
import torch

from nlistress.canonical import prepare
from nlistress.config import DatasetSpec, PrepareSettings, deep_merge, load_params
from nlistress.models.encoders import build_model
from nlistress.models.predict import EncoderPredictor, load_predictor
from nlistress.models.settings import model_spec, predict_settings
from nlistress.models.text import Vocabulary

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "data"


def _rate(predictor: object, premises: list[str], hypotheses: list[str]) -> float:
    predictor.predict_proba(premises[:512], hypotheses[:512])  # warm-up
    start = time.perf_counter()
    predictor.predict_proba(premises, hypotheses)
    return len(premises) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--transformer-dir", type=Path)
    parser.add_argument("--pairs", type=int, default=1_000_000)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    params = load_params([ROOT / "params.yaml"])
    settings = predict_settings(params)
    with tempfile.TemporaryDirectory() as tmp:
        dev, test = Path(tmp) / "dev.parquet", Path(tmp) / "test.parquet"
        spec = DatasetSpec.from_params(params, "snli")
        prepare(spec, "dev", dev, PrepareSettings(), source_path=SHARED / "snli/snli_1.0_dev.jsonl")
        prepare(spec, "test", test, PrepareSettings(), source_path=SHARED / "snli/snli_1.0_test.jsonl")
        frame = pq.read_table(test, columns=["premise", "hypothesis"]).to_pandas()
        premises, hypotheses = frame["premise"].tolist(), frame["hypothesis"].tolist()
        train = pq.read_table(dev, columns=["premise", "hypothesis"]).to_pandas()
        vocab = Vocabulary.build(chain(train["premise"], train["hypothesis"]), True, 1, None)
        dims = {"tiny (emb 50, hidden 64)": {"embedding_dim": 50, "hidden_dim": 64, "mlp_dim": 64},
                "zoo default (emb 300, hidden 512)": {}}  # fmt: skip
        for label, override in dims.items():
            s = deep_merge(model_spec(params, "infersent").settings, override)
            torch.manual_seed(0)
            model = build_model("infersent", vocab.tokens, s).eval()
            predictor = EncoderPredictor(model, vocab, int(s["max_length"]), int(settings["batch_size"]),
                                         torch.device("cpu"), False)  # fmt: skip
            rate = _rate(predictor, premises, hypotheses)
            print(f"InferSent {label}, CPU {args.threads} threads: {len(premises)} SNLI test pairs, "
                  f"{rate:,.0f} pairs/s")  # fmt: skip
        if args.transformer_dir and torch.cuda.is_available():
            predictor = load_predictor(args.transformer_dir, settings, torch.device("cuda"))
            n = args.pairs
            reps = -(-n // len(premises))
            p, h = (premises * reps)[:n], (hypotheses * reps)[:n]
            torch.cuda.reset_peak_memory_stats()
            rate = _rate(predictor, p, h)
            print(f"transformer {args.transformer_dir} on {torch.cuda.get_device_name()}: {n:,} pairs, "
                  f"{rate:,.0f} pairs/s ({n / rate:.0f} s), peak GPU memory "
                  f"{torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS): {peak:.0f} MB")


if __name__ == "__main__":
    main()
