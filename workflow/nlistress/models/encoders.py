"""The papers' non-transformer NLI models, at any size, in one registry.

Sentence encoders (Conneau et al. 2017 feature combination ``[u; v; |u-v|; u*v]``):
``cbow`` (mean of word vectors), ``bilstm`` (BiLSTM, mean-pooled: the RepEval
2017 baseline), ``infersent`` (BiLSTM, max-pooled), ``convnet`` (hierarchical
ConvNet, max-pooled per layer), and the three RepEval 2017 systems Naik et al.
(2018) test: ``nb`` (Nie and Bansal's shortcut-stacked BiLSTMs, max-pooled),
``ch`` (Chen et al.'s stacked BiLSTMs over word and character features, with
gated-attention pooling) and ``rc`` (Balazs et al.'s BiLSTM, its mean-pooled
vector refined by inner attention). ``ce`` is Rocktäschel et al.'s conditional
encoder (the hypothesis LSTM starts from the premise LSTM's final state).
Interaction models: ``dam`` (Parikh et al. decomposable attention) and ``esim``
(Chen et al.). Every sentence encoder has a hypothesis-only form (Poliak et al.
2018): the same encoder and classifier reading the hypothesis alone.

``ARCHS`` is the one registry of architectures: the class that builds each, the
paper it follows and a one-line summary (the model card prints both), and whether
it compares the sentences word by word (then it has no hypothesis-only form).
``ensemble: N`` builds N independently initialised copies of any of them.

The classifier has one output per label of the model's label set (3 for
SNLI/MNLI, 2 for a 2-way dataset); the label names live in the model's
``config.json``, the models only see their count.

Padding never leaks into a result: LSTMs run on packed sequences, pooling and
attention mask padded positions, so a sentence gets the same vector in any
batch. All ops are deterministic on CPU (``torch.use_deterministic_algorithms``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import torch
import torch.nn.functional as F
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


class _InnerAttention(nn.Module):
    """Balazs et al.'s refinement of a raw sentence vector (Liu et al. 2016's inner attention).

    The mean of the BiLSTM states is the raw vector; it asks which words matter,
    ``a_t = softmax_t(w . tanh(W_h h_t + W_r r))``, and the sentence becomes ``sum_t a_t h_t``.
    """

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.states = nn.Linear(dim, dim, bias=False)
        self.raw = nn.Linear(dim, dim, bias=False)
        self.score = nn.Linear(dim, 1, bias=False)

    def forward(self, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        raw = _masked_mean(h, mask)
        scores = self.score(torch.tanh(self.states(h) + self.raw(raw)[:, None, :])).squeeze(-1)
        weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=1)
        return (weights[:, :, None] * h).sum(dim=1)


class _BiLSTM(nn.Module):
    """One BiLSTM layer, pooled by ``max`` (InferSent), ``mean`` (the RepEval baseline) or
    ``inner`` (Balazs et al.'s mean refined by inner attention)."""

    def __init__(self, emb: int, s: Mapping[str, Any], pooling: str) -> None:
        super().__init__()
        self.lstm = nn.LSTM(emb, s["hidden_dim"], batch_first=True, bidirectional=True)
        self.pooling = pooling
        self.out_dim = 2 * s["hidden_dim"]
        if pooling == "inner":
            self.attention = _InnerAttention(self.out_dim)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        out, _ = _lstm(self.lstm, x, lengths)
        mask = _mask(lengths, x.shape[1])
        if self.pooling == "inner":
            return self.attention(out, mask)
        return _masked_max(out, mask) if self.pooling == "max" else _masked_mean(out, mask)


def _input_gates(lstm: nn.LSTM, x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """The input gates ``i_t`` (both directions) of a one-layer bidirectional ``lstm`` that
    read ``x`` and returned ``out`` (padded with zeros).

    torch's LSTM does not return its gates, so they are recomputed from its weights (gate
    order i, f, g, o): ``i_t = sigmoid(W_ii x_t + b_ii + W_hi h_prev + b_hi)``, where
    ``h_prev`` is the forward output at t-1 or the backward output at t+1, zero past
    either end of the sentence (``out`` is zero at padded positions).
    """
    n = lstm.hidden_size
    previous = {
        "": F.pad(out[:, :-1, :n], (0, 0, 1, 0)),  # forward: h_{t-1}, zero before the first word
        "_reverse": F.pad(out[:, 1:, n:], (0, 0, 0, 1)),  # backward: h_{t+1}, zero after the last
    }
    gates = []
    for suffix, h in previous.items():
        w_ih, w_hh = (getattr(lstm, f"weight_{kind}_l0{suffix}")[:n] for kind in ("ih", "hh"))
        bias = getattr(lstm, f"bias_ih_l0{suffix}")[:n] + getattr(lstm, f"bias_hh_l0{suffix}")[:n]
        gates.append(torch.sigmoid(x @ w_ih.T + h @ w_hh.T + bias))
    return torch.cat(gates, dim=-1)


class _ShortcutBiLSTMs(nn.Module):
    """Stacked BiLSTMs with shortcut connections: every layer reads the word vectors too.

    ``dense`` (Nie and Bansal): layer k reads the word vectors and the outputs of every
    layer below it; otherwise (Chen et al.) the word vectors and the layer just below.
    Layer k has ``hidden_dim * layer_scale[k]`` units per direction. Pooling of the top
    layer: ``max`` (Nie and Bansal) or ``gated`` (Chen et al.: mean, max and gated
    attention, concatenated).

    Gated attention weighs word t by the L2 norm of the top layer's input gates at t
    (both directions): a word the LSTM let into its memory counts more. The weights are
    normalised by their sum over the sentence, as the authors' released code does.
    """

    def __init__(self, emb: int, s: Mapping[str, Any], dense: bool, pooling: str) -> None:
        super().__init__()
        widths = [int(s["hidden_dim"]) * int(k) for k in s["layer_scale"]]
        below = [sum(widths[:k]) if dense else widths[k - 1] if k else 0 for k in range(len(widths))]
        self.lstms = nn.ModuleList(
            nn.LSTM(emb + 2 * n_below, width, batch_first=True, bidirectional=True)
            for n_below, width in zip(below, widths, strict=True)
        )
        self.dense, self.pooling = dense, pooling
        self.out_dim = 2 * widths[-1] * (3 if pooling == "gated" else 1)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        outputs: list[torch.Tensor] = []
        layer_input = x
        for lstm in self.lstms:
            layer_input = torch.cat([x, *(outputs if self.dense else outputs[-1:])], dim=-1)
            outputs.append(_lstm(lstm, layer_input, lengths)[0])
        top, mask = outputs[-1], _mask(lengths, x.shape[1])
        if self.pooling == "max":
            return _masked_max(top, mask)
        weights = _input_gates(self.lstms[-1], layer_input, top).norm(dim=-1) * mask.to(top.dtype)
        gated = (weights[:, :, None] * top).sum(dim=1) / weights.sum(dim=1, keepdim=True)
        return torch.cat([_masked_mean(top, mask), _masked_max(top, mask), gated], dim=-1)


class _CharacterCNN(nn.Module):
    """Chen et al.'s character composition of a word: its characters embedded, convolved
    with ``char_filters`` filters of each width in ``char_widths``, max-pooled over the
    word, concatenated.

    Characters are the word's UTF-8 bytes (the first ``char_max_length``), so any script
    works without an alphabet file. A word id is spelt as its vocabulary entry, as in the
    authors' code (a word outside the vocabulary is spelt ``<unk>``); the spelling table is
    rebuilt from vocab.json when a model loads, so it is not stored with the weights.
    """

    def __init__(self, tokens: Sequence[str], s: Mapping[str, Any]) -> None:
        super().__init__()
        length, widths = int(s["char_max_length"]), [int(w) for w in s["char_widths"]]
        table = torch.zeros(len(tokens), length, dtype=torch.long)
        for i, token in enumerate(tokens[1:], start=1):  # id 0 (<pad>) has no characters
            spelt = list(token.encode("utf-8"))[:length]
            table[i, : len(spelt)] = torch.tensor(spelt, dtype=torch.long) + 1  # byte b: id b + 1
        self.register_buffer("spelling", table, persistent=False)
        self.embedding = nn.Embedding(257, int(s["char_dim"]), padding_idx=0)
        filters = int(s["char_filters"])
        self.convs = nn.ModuleList(nn.Conv1d(self.embedding.embedding_dim, filters, w) for w in widths)
        self.out_dim = filters * len(widths)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        chars = self.embedding(self.spelling[ids])  # (batch, words, length, dim)
        flat = chars.reshape(-1, chars.shape[2], chars.shape[3]).transpose(1, 2)
        pooled = [torch.relu(conv(flat)).max(dim=2).values for conv in self.convs]
        return torch.cat(pooled, dim=-1).reshape(ids.shape[0], ids.shape[1], self.out_dim)


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

    def __init__(self, arch: str, tokens: Sequence[str], s: Mapping[str, Any], n_labels: int) -> None:
        super().__init__(len(tokens), s["embedding_dim"], s["dropout"], s["freeze_embeddings"])
        # Chen et al.'s words: the word vector and the character composition, side by side
        self.chars = _CharacterCNN(tokens, s) if arch == "ch" else None
        emb = s["embedding_dim"] + (self.chars.out_dim if self.chars is not None else 0)
        encoders = {
            "cbow": lambda: _CBOW(emb, s),
            "bilstm": lambda: _BiLSTM(emb, s, "mean"),
            "infersent": lambda: _BiLSTM(emb, s, "max"),
            "convnet": lambda: _ConvNet(emb, s),
            "nb": lambda: _ShortcutBiLSTMs(emb, s, dense=True, pooling="max"),
            "ch": lambda: _ShortcutBiLSTMs(emb, s, dense=False, pooling="gated"),
            "rc": lambda: _BiLSTM(emb, s, "inner"),
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

    def words(self, ids: torch.Tensor) -> torch.Tensor:
        """The vectors the encoder reads: word embeddings (plus character features for ``ch``)."""
        if self.chars is None:
            return self.embed(ids)
        return torch.cat([self.embed(ids), self.dropout(self.chars(ids))], dim=-1)

    def forward(self, p: torch.Tensor, pl: torch.Tensor, h: torch.Tensor, hl: torch.Tensor):
        v = self.encoder(self.words(h), hl)
        if self.hypothesis_only:
            return self.classifier(v)
        u = self.encoder(self.words(p), pl)
        return self.classifier(torch.cat([u, v, (u - v).abs(), u * v], dim=-1))


class ConditionalEncoderNLI(_Embedded):
    """Rocktäschel et al. (2016): the hypothesis LSTM is initialised with the premise's final state."""

    def __init__(self, arch: str, tokens: Sequence[str], s: Mapping[str, Any], n_labels: int) -> None:
        super().__init__(len(tokens), s["embedding_dim"], s["dropout"], s["freeze_embeddings"])
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

    def __init__(self, arch: str, tokens: Sequence[str], s: Mapping[str, Any], n_labels: int) -> None:
        super().__init__(len(tokens), s["embedding_dim"], s["dropout"], s["freeze_embeddings"])
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

    def __init__(self, arch: str, tokens: Sequence[str], s: Mapping[str, Any], n_labels: int) -> None:
        super().__init__(len(tokens), s["embedding_dim"], s["dropout"], s["freeze_embeddings"])
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


class Ensemble(nn.Module):
    """``ensemble`` copies of one architecture, each with its own initial weights.

    In training the forward pass returns every member's logits, stacked
    (members, batch, labels), so each member learns from its own loss on the same
    batches; in evaluation it returns the log of the members' mean probabilities, so
    a softmax gives the ensemble's prediction.
    """

    def __init__(self, members: Sequence[nn.Module]) -> None:
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, *batch: torch.Tensor) -> torch.Tensor:
        logits = torch.stack([member(*batch) for member in self.members])
        if self.training:
            return logits
        return torch.logsumexp(torch.log_softmax(logits.float(), dim=-1), dim=0) - math.log(len(self.members))


@dataclass(frozen=True)
class Arch:
    """One architecture: the class that builds it, the paper it follows, what it is."""

    model: type[nn.Module]
    paper: str
    summary: str
    pairwise: bool = False  # compares the sentences word by word: no hypothesis-only form
    needs: tuple[str, ...] = ()  # settings it reads beyond REQUIRED (its zoo entry gives them)


_CONNEAU = (
    "Conneau et al. (2017), Supervised Learning of Universal Sentence Representations from "
    "Natural Language Inference Data"
)
_WILLIAMS = "Williams et al. (2018), A Broad-Coverage Challenge Corpus for Sentence Understanding through Inference"
_CHARACTERS = ("char_dim", "char_filters", "char_widths", "char_max_length")
ARCHS: dict[str, Arch] = {
    "cbow": Arch(
        SentenceEncoderNLI, _WILLIAMS, "continuous bag of words: each sentence is the mean of its word vectors"
    ),
    "bilstm": Arch(SentenceEncoderNLI, _WILLIAMS, "one BiLSTM layer, mean-pooled (the RepEval 2017 baseline)"),
    "infersent": Arch(SentenceEncoderNLI, _CONNEAU, "one BiLSTM layer, max-pooled (InferSent)"),
    "convnet": Arch(SentenceEncoderNLI, _CONNEAU, "hierarchical ConvNet, each layer max-pooled, concatenated"),
    "nb": Arch(
        SentenceEncoderNLI,
        "Nie and Bansal (2017), Shortcut-Stacked Sentence Encoders for Multi-Domain Inference",
        "stacked BiLSTMs, each reading the word vectors and every lower layer (shortcut "
        "connections), the top layer max-pooled",
        needs=("layer_scale",),
    ),
    "ch": Arch(
        SentenceEncoderNLI,
        "Chen et al. (2017), Recurrent Neural Network-Based Sentence Encoder with Gated Attention "
        "for Natural Language Inference",
        "stacked BiLSTMs with shortcut connections over word vectors and a character CNN; the top "
        "layer pooled by mean, max and attention weighted by the LSTM's input gates",
        needs=("layer_scale", *_CHARACTERS),
    ),
    "rc": Arch(
        SentenceEncoderNLI,
        "Balazs et al. (2017), Refining Raw Sentence Representations for Textual Entailment "
        "Recognition via Attention",
        "one BiLSTM layer; its mean-pooled vector refined by inner attention over the words",
    ),
    "ce": Arch(
        ConditionalEncoderNLI,
        "Rocktäschel et al. (2016), Reasoning about Entailment with Neural Attention",
        "conditional encoding: the hypothesis LSTM starts from the premise LSTM's final state",
    ),
    "dam": Arch(
        DecomposableAttentionNLI,
        "Parikh et al. (2016), A Decomposable Attention Model for Natural Language Inference",
        "attend, compare, aggregate over projected word vectors",
        pairwise=True,
    ),
    "esim": Arch(
        ESIM,
        "Chen et al. (2017), Enhanced LSTM for Natural Language Inference",
        "BiLSTM encoding, soft alignment, enhancement, BiLSTM composition",
        pairwise=True,
    ),
}
# Settings every architecture reads (the model's entry in models.zoo, merged over models.training).
REQUIRED = ("embedding_dim", "hidden_dim", "mlp_dim", "dropout", "freeze_embeddings", "hypothesis_only")


def build_model(
    arch: str, tokens: Sequence[str], settings: Mapping[str, Any], n_labels: int = len(LABELS)
) -> nn.Module:
    """A freshly initialised model of ``arch`` over the vocabulary ``tokens`` (ids in their
    order) with ``n_labels`` outputs (weights from torch's current seed); the default is the
    3-way NLI label set. ``ensemble`` > 1 gives that many members in an ``Ensemble``."""
    if arch not in ARCHS:
        raise ConfigError(f"unknown architecture {arch!r} (known: {', '.join(ARCHS)})")
    missing = [k for k in (*REQUIRED, *ARCHS[arch].needs) if k not in settings]
    if missing:
        raise ConfigError(f"models: {arch} needs setting(s) {', '.join(missing)}")
    members = [ARCHS[arch].model(arch, tokens, settings, n_labels) for _ in range(int(settings.get("ensemble", 1)))]
    return members[0] if len(members) == 1 else Ensemble(members)


def word_embeddings(model: nn.Module) -> list[nn.Embedding]:
    """The word-embedding table of ``model``, one per member of an ensemble (for GloVe)."""
    return [member.embedding for member in (model.members if isinstance(model, Ensemble) else [model])]
