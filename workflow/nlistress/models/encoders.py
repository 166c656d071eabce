"""The papers' non-transformer NLI models, at any size, in one registry.

Sentence encoders (Conneau et al. 2017 feature combination ``[u; v; |u-v|; u*v]``):
``cbow`` (mean of word vectors), ``bilstm`` (BiLSTM, mean-pooled: the RepEval
2017 baseline), ``infersent`` (BiLSTM, max-pooled), ``convnet`` (hierarchical
ConvNet, max-pooled per layer). ``ce`` is Rocktäschel et al.'s conditional
encoder (the hypothesis LSTM starts from the premise LSTM's final state).
Interaction models: ``dam`` (Parikh et al. decomposable attention) and ``esim``
(Chen et al.). Every sentence encoder has a hypothesis-only form (Poliak et al.
2018): the same encoder and classifier reading the hypothesis alone.

The classifier has one output per label of the model's label set (3 for
SNLI/MNLI, 2 for a 2-way dataset); the label names live in the model's
``config.json``, the models only see their count.

Padding never leaks into a result: LSTMs run on packed sequences, pooling and
attention mask padded positions, so a sentence gets the same vector in any
batch. All ops are deterministic on CPU (``torch.use_deterministic_algorithms``).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..errors import ConfigError
from ..labels import LABELS


def _mask(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """(batch, width) True at real tokens."""
    return torch.arange(width, device=lengths.device)[None, :] < lengths[:, None]


def _lstm(lstm: nn.LSTM, x: torch.Tensor, lengths: torch.Tensor, state: Any = None) -> Any:
    """Run ``lstm`` on right-padded ``x``; return padded outputs and the final (h, c)."""
    packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    out, final = lstm(packed, state)
    out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    return out, final


def _masked_max(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return x.masked_fill(~mask[:, :, None], float("-inf")).max(dim=1).values


def _masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask[:, :, None].to(x.dtype)
    return (x * m).sum(dim=1) / m.sum(dim=1)


def _mlp(n_in: int, hidden: int, n_out: int, dropout: float, act: type[nn.Module]) -> nn.Module:
    return nn.Sequential(
        nn.Dropout(dropout), nn.Linear(n_in, hidden), act(), nn.Dropout(dropout),
        nn.Linear(hidden, n_out),
    )  # fmt: skip


class _Embedded(nn.Module):
    """Word embeddings (optionally initialised from GloVe) plus dropout."""

    def __init__(self, vocab_size: int, dim: int, dropout: float, freeze: bool) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.embedding.weight.requires_grad_(not freeze)
        self.dropout = nn.Dropout(dropout)

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.embedding(ids))


# ---------------------------------------------------------------------------
# Sentence encoders: (ids, lengths) -> (batch, out_dim)
# ---------------------------------------------------------------------------


class _CBOW(nn.Module):
    def __init__(self, emb: int, s: Mapping[str, Any]) -> None:
        super().__init__()
        self.out_dim = emb

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return _masked_mean(x, _mask(lengths, x.shape[1]))


class _BiLSTM(nn.Module):
    def __init__(self, emb: int, s: Mapping[str, Any], pooling: str) -> None:
        super().__init__()
        self.lstm = nn.LSTM(emb, s["hidden_dim"], batch_first=True, bidirectional=True)
        self.pooling = pooling
        self.out_dim = 2 * s["hidden_dim"]

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        out, _ = _lstm(self.lstm, x, lengths)
        mask = _mask(lengths, x.shape[1])
        return _masked_max(out, mask) if self.pooling == "max" else _masked_mean(out, mask)


class _ConvNet(nn.Module):
    """Conneau et al.'s hierarchical ConvNet: each layer's output is max-pooled, then concatenated."""

    def __init__(self, emb: int, s: Mapping[str, Any]) -> None:
        super().__init__()
        hidden, width = s["hidden_dim"], s.get("kernel_size", 3)
        dims = [emb] + [hidden] * s.get("conv_layers", 4)
        self.convs = nn.ModuleList(
            nn.Conv1d(a, b, width, padding=width // 2) for a, b in pairwise(dims)
        )
        self.out_dim = hidden * len(self.convs)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        mask = _mask(lengths, x.shape[1])
        pooled = []
        h = x
        for conv in self.convs:
            h = torch.relu(conv(h.transpose(1, 2)).transpose(1, 2))
            h = h.masked_fill(~mask[:, :, None], 0.0)  # padding stays zero for the next layer
            pooled.append(_masked_max(h, mask))
        return torch.cat(pooled, dim=-1)


class SentenceEncoderNLI(_Embedded):
    """Encode each sentence alone, then classify ``[u; v; |u-v|; u*v]`` (or ``v`` alone)."""

    def __init__(self, arch: str, vocab_size: int, s: Mapping[str, Any], n_labels: int) -> None:
        super().__init__(vocab_size, s["embedding_dim"], s["dropout"], s["freeze_embeddings"])
        emb = s["embedding_dim"]
        encoders = {
            "cbow": lambda: _CBOW(emb, s),
            "bilstm": lambda: _BiLSTM(emb, s, "mean"),
            "infersent": lambda: _BiLSTM(emb, s, "max"),
            "convnet": lambda: _ConvNet(emb, s),
        }
        self.encoder = encoders[arch]()
        self.hypothesis_only = bool(s["hypothesis_only"])
        n_features = self.encoder.out_dim * (1 if self.hypothesis_only else 4)
        if s.get("classifier", "mlp") == "linear":  # InferSent's nonlinear_fc 0
            hidden = s["mlp_dim"]
            self.classifier = nn.Sequential(
                nn.Dropout(s["dropout"]), nn.Linear(n_features, hidden), nn.Linear(hidden, hidden),
                nn.Linear(hidden, n_labels),
            )  # fmt: skip
        else:
            self.classifier = _mlp(n_features, s["mlp_dim"], n_labels, s["dropout"], nn.Tanh)

    def forward(self, p: torch.Tensor, pl: torch.Tensor, h: torch.Tensor, hl: torch.Tensor):
        v = self.encoder(self.embed(h), hl)
        if self.hypothesis_only:
            return self.classifier(v)
        u = self.encoder(self.embed(p), pl)
        return self.classifier(torch.cat([u, v, (u - v).abs(), u * v], dim=-1))


class ConditionalEncoderNLI(_Embedded):
    """Rocktäschel et al. (2016): the hypothesis LSTM is initialised with the premise's final state."""

    def __init__(self, arch: str, vocab_size: int, s: Mapping[str, Any], n_labels: int) -> None:
        super().__init__(vocab_size, s["embedding_dim"], s["dropout"], s["freeze_embeddings"])
        hidden = s["hidden_dim"]
        self.premise_lstm = nn.LSTM(s["embedding_dim"], hidden, batch_first=True)
        self.hypothesis_lstm = nn.LSTM(s["embedding_dim"], hidden, batch_first=True)
        self.hypothesis_only = bool(s["hypothesis_only"])
        self.classifier = _mlp(hidden, s["mlp_dim"], n_labels, s["dropout"], nn.Tanh)

    def forward(self, p: torch.Tensor, pl: torch.Tensor, h: torch.Tensor, hl: torch.Tensor):
        state = None if self.hypothesis_only else _lstm(self.premise_lstm, self.embed(p), pl)[1]
        _, (h_n, _) = _lstm(self.hypothesis_lstm, self.embed(h), hl, state)
        return self.classifier(h_n[-1])


def _align(
    a: torch.Tensor, b: torch.Tensor, scores: torch.Tensor, a_mask: torch.Tensor, b_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Soft alignment: for each word of ``a`` the attended ``b`` and vice versa."""
    beta = torch.softmax(scores.masked_fill(~b_mask[:, None, :], float("-inf")), dim=2) @ b
    alpha = torch.softmax(scores.masked_fill(~a_mask[:, :, None], float("-inf")), dim=1)
    return beta, alpha.transpose(1, 2) @ a


class DecomposableAttentionNLI(_Embedded):
    """Parikh et al. (2016): attend, compare, aggregate (sum), on projected word vectors."""

    def __init__(self, arch: str, vocab_size: int, s: Mapping[str, Any], n_labels: int) -> None:
        super().__init__(vocab_size, s["embedding_dim"], s["dropout"], s["freeze_embeddings"])
        hidden, drop = s["hidden_dim"], s["dropout"]
        self.project = nn.Linear(s["embedding_dim"], hidden)
        self.attend = _mlp(hidden, hidden, hidden, drop, nn.ReLU)
        self.compare = _mlp(2 * hidden, hidden, hidden, drop, nn.ReLU)
        self.classifier = _mlp(2 * hidden, s["mlp_dim"], n_labels, drop, nn.ReLU)

    def forward(self, p: torch.Tensor, pl: torch.Tensor, h: torch.Tensor, hl: torch.Tensor):
        a, b = self.project(self.embed(p)), self.project(self.embed(h))
        a_mask, b_mask = _mask(pl, a.shape[1]), _mask(hl, b.shape[1])
        scores = self.attend(a) @ self.attend(b).transpose(1, 2)
        beta, alpha = _align(a, b, scores, a_mask, b_mask)
        v1 = self.compare(torch.cat([a, beta], -1)) * a_mask[:, :, None].to(a.dtype)
        v2 = self.compare(torch.cat([b, alpha], -1)) * b_mask[:, :, None].to(b.dtype)
        return self.classifier(torch.cat([v1.sum(1), v2.sum(1)], dim=-1))


class ESIM(_Embedded):
    """Chen et al. (2017): BiLSTM encoding, soft alignment, enhancement, BiLSTM composition."""

    def __init__(self, arch: str, vocab_size: int, s: Mapping[str, Any], n_labels: int) -> None:
        super().__init__(vocab_size, s["embedding_dim"], s["dropout"], s["freeze_embeddings"])
        hidden = s["hidden_dim"]
        self.encode = nn.LSTM(s["embedding_dim"], hidden, batch_first=True, bidirectional=True)
        self.project = nn.Sequential(nn.Linear(8 * hidden, hidden), nn.ReLU())
        self.compose = nn.LSTM(hidden, hidden, batch_first=True, bidirectional=True)
        self.classifier = _mlp(8 * hidden, s["mlp_dim"], n_labels, s["dropout"], nn.Tanh)

    def forward(self, p: torch.Tensor, pl: torch.Tensor, h: torch.Tensor, hl: torch.Tensor):
        a, _ = _lstm(self.encode, self.embed(p), pl)
        b, _ = _lstm(self.encode, self.embed(h), hl)
        a_mask, b_mask = _mask(pl, a.shape[1]), _mask(hl, b.shape[1])
        beta, alpha = _align(a, b, a @ b.transpose(1, 2), a_mask, b_mask)
        va, _ = _lstm(self.compose, self.project(torch.cat([a, beta, a - beta, a * beta], -1)), pl)
        vb, _ = _lstm(self.compose, self.project(torch.cat([b, alpha, b - alpha, b * alpha], -1)), hl)
        pooled = [_masked_mean(va, a_mask), _masked_max(va, a_mask),
                  _masked_mean(vb, b_mask), _masked_max(vb, b_mask)]  # fmt: skip
        return self.classifier(torch.cat(pooled, dim=-1))


ARCHS: dict[str, type[nn.Module]] = {
    "cbow": SentenceEncoderNLI,
    "bilstm": SentenceEncoderNLI,
    "infersent": SentenceEncoderNLI,
    "convnet": SentenceEncoderNLI,
    "ce": ConditionalEncoderNLI,
    "dam": DecomposableAttentionNLI,
    "esim": ESIM,
}
# Settings every architecture reads (the model's entry in models.zoo, merged over models.training).
REQUIRED = ("embedding_dim", "hidden_dim", "mlp_dim", "dropout", "freeze_embeddings", "hypothesis_only")


def build_model(
    arch: str, vocab_size: int, settings: Mapping[str, Any], n_labels: int = len(LABELS)
) -> nn.Module:
    """A freshly initialised model of ``arch`` with ``n_labels`` outputs (weights from torch's
    current seed); the default is the 3-way NLI label set."""
    if arch not in ARCHS:
        raise ConfigError(f"unknown architecture {arch!r} (known: {', '.join(ARCHS)})")
    missing = [k for k in REQUIRED if k not in settings]
    if missing:
        raise ConfigError(f"models: {arch} needs setting(s) {', '.join(missing)}")
    return ARCHS[arch](arch, vocab_size, settings, n_labels)
