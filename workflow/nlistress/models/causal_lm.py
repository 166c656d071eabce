"""``llm:PATH_OR_NAME``: a causal language model through ``transformers``, asked with a prompt.

The answer is read by likelihood (``models.llm.answer: loglik``, the default):
for each pair the prompt is encoded once per label with that label's
verbaliser appended, and the label's score is the summed log-probability of
the verbaliser's tokens. The probabilities are the softmax of the three
scores, so the output has the same shape as any classifier's and every
downstream metric (entropy included) applies unchanged. With
``answer: generate`` the model writes up to ``max_new_tokens`` greedily and
the template parses the reply; rows it cannot parse are unanswered (a row of
NaN, which ``predict_set`` counts and leaves out).

Batches hold pairs of similar prompt length (little padding); prompts longer
than ``max_length`` tokens lose their *start* (the instruction and the oldest
shots), never the pair being asked about.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import torch

from ..errors import ConfigError, DataError
from ..labels import LABELS
from .checkpoints import resolve_checkpoint
from .prompts import PromptTemplate, template_named

log = logging.getLogger("nlistress")

ANSWER_MODES = ("loglik", "generate")


@dataclass(frozen=True)
class LLMSettings:
    """``models.llm`` (checked by the schema): the template, few-shot examples and batching."""

    template: str = "yes_maybe_no"
    shots: int = 0
    shots_from: str | None = None
    seed: int = 2026
    answer: str = "loglik"
    batch_size: int = 8
    max_length: int = 512
    max_new_tokens: int = 8
    progress_rows: int = 256

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> LLMSettings:
        section = dict(((params.get("models") or {}).get("llm")) or {})
        return cls(**section)


def few_shot_examples(path: str | Path | None, shots: int, seed: int) -> list[tuple[str, str, str]]:
    """``shots`` labelled pairs drawn (seeded) from a canonical table, the same for every row."""
    if shots == 0:
        return []
    if path is None:
        raise ConfigError("models.llm.shots_from: a canonical table is needed when models.llm.shots > 0")
    path = Path(path)
    try:
        table = pq.read_table(path, columns=["premise", "hypothesis", "label"]).to_pandas()
    except (OSError, ValueError, KeyError) as exc:
        raise DataError(path, f"cannot read few-shot examples ({exc})") from None
    table = table[table["label"].isin(LABELS)]
    if len(table) < shots:
        raise DataError(path, f"{len(table)} labelled rows, fewer than models.llm.shots = {shots}")
    rows = table.sample(n=shots, random_state=seed)
    return list(zip(rows["premise"], rows["hypothesis"], rows["label"], strict=True))


class CausalLMPredictor:
    """Label probabilities from a causal LM's likelihood of each label's verbaliser."""

    labels = LABELS

    def __init__(self, model: Any, tokenizer: Any, template: PromptTemplate,
                 shots: Sequence[tuple[str, str, str]], settings: LLMSettings,
                 device: torch.device) -> None:  # fmt: skip
        self.model, self.tokenizer, self.template = model, tokenizer, template
        self.shots, self.settings, self.device = list(shots), settings, device
        # Each label's verbaliser as tokens (no special tokens: they continue the prompt).
        self._label_ids = [tokenizer(template.verbalisers[label], add_special_tokens=False)["input_ids"]
                           for label in LABELS]  # fmt: skip
        if any(not ids for ids in self._label_ids):
            raise ConfigError(f"template {template.name!r}: a verbaliser encodes to no tokens")
        # Recent causal LMs can compute the last positions' logits only; older ones compute all.
        self._keeps_logits = "logits_to_keep" in inspect.signature(model.forward).parameters

    @classmethod
    def load(cls, spec: str, params: Mapping[str, Any], device: torch.device) -> CausalLMPredictor:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        settings = LLMSettings.from_params(params)
        if settings.answer not in ANSWER_MODES:
            raise ConfigError(f"models.llm.answer: expected one of {ANSWER_MODES}, got {settings.answer!r}")
        checkpoint = resolve_checkpoint(spec, "llm:")
        options = {"local_files_only": checkpoint.local}
        try:
            tokenizer = AutoTokenizer.from_pretrained(checkpoint.source, **options)
            model = AutoModelForCausalLM.from_pretrained(checkpoint.source, **options)
        except (OSError, ValueError) as exc:
            raise DataError(Path(checkpoint.source), f"cannot load a causal language model "
                            f"({str(exc).splitlines()[0]})") from None  # fmt: skip
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        if device.type == "cuda" and (params.get("models") or {}).get("predict", {}).get("mixed_precision", True):
            # bfloat16 weights (else float16): half the memory and the GPU's fast matrix units
            model.to(torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16)
        model.to(device).eval()
        shots = few_shot_examples(settings.shots_from, settings.shots, settings.seed)
        return cls(model, tokenizer, template_named(settings.template), shots, settings, device)

    def describe(self) -> dict[str, Any]:
        """What the report records: template (name, version, sha256, text) and how answers were read."""
        return {"template": self.template.describe(), "answer": self.settings.answer,
                "shots": len(self.shots), "shots_from": self.settings.shots_from,
                "seed": self.settings.seed}  # fmt: skip

    def _prompts(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[list[int]]:
        keep = self.settings.max_length - max(map(len, self._label_ids))
        texts = [self.template.render(p, h, self.shots) for p, h in zip(premises, hypotheses, strict=True)]
        encoded = self.tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]  # one batched call
        return [ids[-keep:] for ids in encoded]  # the start goes first: the pair asked about is at the end

    def predict_proba(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        prompts = self._prompts(premises, hypotheses)
        if self.settings.answer == "generate":
            return self._generate(prompts)
        scores = np.empty((len(prompts), len(LABELS)), dtype=np.float64)
        order = np.argsort([len(p) for p in prompts], kind="stable")
        per_batch = max(1, self.settings.batch_size)
        with torch.inference_mode():
            for start in range(0, len(order), per_batch):
                rows = order[start : start + per_batch]
                scores[rows] = self._loglik([prompts[i] for i in rows])
        scores -= scores.max(axis=1, keepdims=True)
        probs = np.exp(scores)
        return (probs / probs.sum(axis=1, keepdims=True)).astype(np.float32)

    def _loglik(self, prompts: Sequence[list[int]]) -> np.ndarray:
        """Summed log-probability of each label's verbaliser after each prompt: (rows, labels).

        When every verbaliser is one token (``yes`` / ``maybe`` / ``no``), one pass over the
        prompt alone gives all three: the next-token distribution at its last position.
        Otherwise each prompt is run once per label with that label's words appended.
        Sequences are padded on the left, so the answer always ends at the last position
        and only the last few positions' logits are computed (``logits_to_keep``): the full
        vocabulary at every prompt position would cost more than the model itself.
        """
        single = all(len(ids) == 1 for ids in self._label_ids)
        answers = [[]] if single else self._label_ids
        sequences = [prompt + answer for prompt in prompts for answer in answers]
        width = max(map(len, sequences))
        ids = torch.full((len(sequences), width), self.tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for i, seq in enumerate(sequences):
            ids[i, width - len(seq) :] = torch.tensor(seq)
            mask[i, width - len(seq) :] = 1
        positions = (mask.cumsum(dim=1) - 1).clamp(min=0)  # each sequence counts from its first token
        keep = 1 if single else max(map(len, self._label_ids)) + 1
        ids, mask, positions = ids.to(self.device), mask.to(self.device), positions.to(self.device)
        inputs = {"input_ids": ids, "attention_mask": mask, "position_ids": positions}
        if self._keeps_logits:
            inputs["logits_to_keep"] = keep
        logprobs = torch.log_softmax(self.model(**inputs).logits[:, -keep:].float(), dim=-1)
        if single:
            label_tokens = torch.tensor([ids[0] for ids in self._label_ids], device=self.device)
            return logprobs[:, -1, label_tokens].double().cpu().numpy()
        # The answer is each sequence's last `length` tokens; token t is predicted at position t - 1,
        # so the last keep - 1 tokens are scored by the first keep - 1 kept positions, and a
        # shorter answer's earlier ones (prompt tokens) are masked out.
        lengths = torch.tensor([len(a) for _ in prompts for a in answers], device=self.device)
        targets = ids[:, width - (keep - 1) :]
        scored = logprobs[:, :-1].gather(2, targets[:, :, None])[:, :, 0]
        in_answer = torch.arange(keep - 1, device=self.device)[None, :] >= (keep - 1 - lengths)[:, None]
        out = (scored * in_answer).sum(dim=1)
        return out.double().cpu().numpy().reshape(len(prompts), len(LABELS))

    def _generate(self, prompts: Sequence[list[int]]) -> np.ndarray:
        """Greedy replies parsed by the template: one-hot rows, NaN rows for unanswered ones."""
        out = np.full((len(prompts), len(LABELS)), np.nan, dtype=np.float32)
        pad = self.tokenizer.pad_token_id
        with torch.inference_mode():
            for start in range(0, len(prompts), max(1, self.settings.batch_size)):
                batch = prompts[start : start + self.settings.batch_size]
                width = max(map(len, batch))
                ids = torch.full((len(batch), width), pad, dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for i, seq in enumerate(batch):  # left padding: every reply starts at the same place
                    ids[i, width - len(seq) :] = torch.tensor(seq)
                    mask[i, width - len(seq) :] = 1
                generated = self.model.generate(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device), do_sample=False,
                    max_new_tokens=self.settings.max_new_tokens, pad_token_id=pad,
                )  # fmt: skip
                for i, reply in enumerate(self.tokenizer.batch_decode(generated[:, width:], skip_special_tokens=True)):
                    label = self.template.parse(reply)
                    if label is not None:
                        out[start + i] = 0.0
                        out[start + i, LABELS.index(label)] = 1.0
        return out
