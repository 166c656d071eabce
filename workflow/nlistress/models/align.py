"""ALIGN: the bag-of-words alignment baseline of Naik et al. (2018), after MacCartney (2009).

Provenance. Naik et al. (COLING 2018, section 4.1) describe ALIGN in two
sentences: "a bag-of-words alignment model inspired by the baseline proposed in
MacCartney (2009)" that "uses Levenshtein edit distance for lexical similarity
computation, but relies on POS tag information instead of IDF scores for term
weighting"; their code and feature list are not published. MacCartney's
bag-of-words model (his dissertation's baseline) aligns each hypothesis word to
its most similar premise word, weights the words by IDF, and combines the
alignment scores into P(h|p) (and P(p|h)), which a classifier reads. What this
module computes, with Naik et al.'s two substitutions (ours where marked):

1. Words: spaCy's tokenizer (``resources.spacy_model``, ``en_core_web_sm``)
   splits each sentence; punctuation and spaces are left out; at most
   ``max_length`` words per sentence.
2. Term weights (POS instead of IDF): every word type is tagged once, alone, by
   the pipeline's tagger and lemmatizer, and weighs ``features.pos_weights[UPOS]``
   (else ``features.other_weight``): nouns, verbs, adjectives and numbers fully,
   adverbs half, function words little. Ours: tagging the type rather than the
   word in its sentence. IDF, which the weight replaces, is a property of the type
   too; the model stays a true bag of words (its features do not depend on word
   order, so a permuted pair whose words tokenise alike gets the original's
   prediction); and it is several times faster than tagging sentences.
3. Lexical similarity of two words: 1 when their lowercased forms or lemmas are
   equal, else ``1 - Levenshtein(a, b) / max(|a|, |b|)`` on the lowercased forms.
4. Alignment: hypothesis word j scores ``a_j = max_i sim(h_j, p_i)``, and
   ``P(h|p) = prod_j a_j ** w_j`` (MacCartney's product, POS weights as exponents);
   the same from the premise side gives ``P(p|h)``.
5. Features (ours: the published descriptions name P(h|p) and P(p|h) only), per
   direction, h|p then p|h: ``log P`` (each ``a`` floored at
   ``features.min_similarity``), ``log P`` per unit of weight, the weighted mean
   similarity, the weighted share of exact matches (``a = 1``) and of unaligned
   words (``a < features.match_threshold``); then ``log(1 + words)`` of premise and
   hypothesis: ``FEATURE_NAMES``, 12 numbers. A side whose words all weigh 0 gives
   zeros.
6. Classifier: the features, standardised by the training rows' mean and
   standard deviation, into multinomial logistic regression (``classifier:
   linear``) or one tanh hidden layer of ``mlp_dim`` units (``mlp``), trained by
   the loop every non-transformer model uses (``nlistress.models.fitting.fit``:
   seeded, early stopping on dev accuracy). Naik et al. trained theirs on MultiNLI
   (61.1 % on RTE3 test when trained on RTE3 dev).

A model directory holds ``model.safetensors`` (classifier weights and the
feature mean and standard deviation; no pickle), ``features.json`` (the feature
settings, feature names and the spaCy pipeline's name and version, which loading
checks: other tags would be other features) and ``config.json``. English only:
the POS weights need an English tagger.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import nn

from ..errors import ConfigError, DataError
from ..resources import spacy_pipeline
from .encoders import _mlp
from .fitting import Log, dev_metrics, fit, seed_everything
from .weights import load_weights, save_weights

FEATURES_FILE = "features.json"
FEATURE_NAMES = (
    *(f"{name}_{side}" for side in ("h_given_p", "p_given_h")
      for name in ("log_prob", "mean_log_prob", "mean_similarity", "exact_share", "unaligned_share")),
    "log_premise_words", "log_hypothesis_words",
)  # fmt: skip
# Universal POS tags (spaCy's ``pos_``); words tagged SKIPPED are not terms.
UPOS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
        "PUNCT", "SCONJ", "SYM", "VERB", "X", "SPACE")  # fmt: skip
SKIPPED = frozenset({"PUNCT", "SPACE"})
# What tagging a word type needs of the pipeline (spaCy's tok2vec, tagger, attribute_ruler, lemmatizer).
POS_DISABLE = ("parser", "ner", "senter")
_KEYS = ("pos_weights", "other_weight", "min_similarity", "match_threshold")
Word = tuple[str, str, float]  # lowercased form, lowercased lemma, weight


@dataclass(frozen=True)
class FeatureSettings:
    """``features`` of an ``align`` zoo entry, plus the entry's ``max_length``."""

    pos_weights: dict[str, float]
    other_weight: float
    min_similarity: float
    match_threshold: float
    max_length: int

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], where: str) -> FeatureSettings:
        """Checked settings; a bad value raises ConfigError naming its key path."""
        features = settings.get("features")
        if not isinstance(features, Mapping):
            raise ConfigError(f"{where}.features: ALIGN needs its feature settings ({', '.join(_KEYS)})")
        missing = [k for k in _KEYS if k not in features]
        if missing:
            raise ConfigError(f"{where}.features: missing {', '.join(missing)}")
        weights = features["pos_weights"]
        if not isinstance(weights, Mapping):
            raise ConfigError(f"{where}.features.pos_weights: expected UPOS tag -> weight")
        unknown = [str(tag) for tag in weights if tag not in UPOS]
        if unknown:
            raise ConfigError(f"{where}.features.pos_weights.{unknown[0]}: not a Universal POS tag "
                              f"({', '.join(UPOS)})")  # fmt: skip
        named = {f"pos_weights.{tag}": weight for tag, weight in weights.items()}
        for key, weight in {**named, "other_weight": features["other_weight"]}.items():
            if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
                raise ConfigError(f"{where}.features.{key}: expected a number >= 0, got {weight!r}")
        for key in ("min_similarity", "match_threshold"):
            value = features[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
                raise ConfigError(f"{where}.features.{key}: expected a number in (0, 1], got {value!r}")
        return cls({str(t): float(w) for t, w in weights.items()}, float(features["other_weight"]),
                   float(features["min_similarity"]), float(features["match_threshold"]),
                   int(settings["max_length"]))  # fmt: skip

    def weight(self, pos: str) -> float:
        return self.pos_weights.get(pos, self.other_weight)


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions of one character each).

    Myers' bit-parallel algorithm (Hyyrö's formulation): one pass over ``b`` with
    ``a``'s positions as the bits of a Python int, about three times faster than
    the dynamic programme for words.
    """
    m = len(a)
    if not m or not b:
        return max(m, len(b))
    peq: dict[str, int] = {}
    for i, char in enumerate(a):
        peq[char] = peq.get(char, 0) | (1 << i)
    mask, last = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for char in b:
        eq = peq.get(char, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & last:
            score += 1
        elif mh & last:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
    return score


@functools.lru_cache(maxsize=1 << 21)
def edit_similarity(a: str, b: str) -> float:
    """``1 - Levenshtein(a, b) / max(|a|, |b|)`` of two different, non-empty words (cached)."""
    return 1.0 - levenshtein(a, b) / max(len(a), len(b))


def _direction(scores: Sequence[float], weights: Sequence[float], s: FeatureSettings) -> list[float]:
    """log P, log P per unit weight, mean similarity, exact share, unaligned share (weighted).

    The words are summed in sorted order, so the features do not depend on word order even
    in the last bit of a float sum.
    """
    pairs = sorted(zip(scores, weights, strict=True))
    total = sum(w for _, w in pairs)
    if total == 0:
        return [0.0] * 5
    log_prob = sum(w * math.log(max(a, s.min_similarity)) for a, w in pairs)
    return [
        log_prob,
        log_prob / total,
        sum(w * a for a, w in pairs) / total,
        sum(w for a, w in pairs if a >= 1.0) / total,
        sum(w for a, w in pairs if a < s.match_threshold) / total,
    ]


def pair_features(premise: Sequence[Word], hypothesis: Sequence[Word], s: FeatureSettings) -> list[float]:
    """``FEATURE_NAMES`` of one pair, from its premise and hypothesis words.

    The similarity of two words is 1 for the same form or lemma, else ``edit_similarity``
    of the forms (written out here: this loop is where ALIGN spends its time).
    """
    table = [[1.0 if h_form == p_form or h_lemma == p_lemma else edit_similarity(h_form, p_form)
              for p_form, p_lemma, _ in premise] for h_form, h_lemma, _ in hypothesis]  # fmt: skip
    h_scores = [max(row, default=0.0) for row in table]
    p_scores = [max(column) for column in zip(*table, strict=True)] if hypothesis else [0.0] * len(premise)
    return [
        *_direction(h_scores, [w for *_, w in hypothesis], s),
        *_direction(p_scores, [w for *_, w in premise], s),
        math.log1p(len(premise)),
        math.log1p(len(hypothesis)),
    ]


def pipeline_id(nlp: Any) -> str:
    """A spaCy pipeline's package name and version, e.g. ``en_core_web_sm-3.8.0``."""
    return f"{nlp.meta.get('lang')}_{nlp.meta.get('name')}-{nlp.meta.get('version')}"


@functools.cache
def _type_tags(pipeline: str) -> dict[str, tuple[str, str]]:
    """Token text -> (lowercased lemma, UPOS) of every word type a pipeline has tagged in this
    process. A type is tagged alone, so its tag does not depend on which call tagged it
    (checked: batches of 1, 16, 256 and 1,000 types give the same tags)."""
    return {}


class Featurizer:
    """Sentences to words (form, lemma, POS weight) to ``FEATURE_NAMES``, caching word types."""

    def __init__(self, nlp: Any, settings: FeatureSettings) -> None:
        self.nlp, self.settings = nlp, settings
        self._types = _type_tags(pipeline_id(nlp))

    def _tag(self, texts: set[str]) -> None:
        """Tag and lemmatise each new word type, a one-word document each."""
        from spacy.tokens import Doc

        ordered = sorted(texts - self._types.keys())
        docs = self.nlp.pipe((Doc(self.nlp.vocab, words=[t]) for t in ordered), batch_size=1000)
        for text, doc in zip(ordered, docs, strict=True):
            self._types[text] = (doc[0].lemma_.lower() or text.lower(), doc[0].pos_)

    def words(self, texts: Sequence[str]) -> dict[str, list[Word]]:
        """The words of each distinct text, at most ``max_length`` of them."""
        distinct = list(dict.fromkeys(texts))
        tokens = [[t.text for t in doc if not t.is_space] for doc in self.nlp.tokenizer.pipe(distinct)]
        self._tag({t for sentence in tokens for t in sentence})
        out = {}
        for text, sentence in zip(distinct, tokens, strict=True):
            words: list[Word] = []
            for token in sentence:
                lemma, pos = self._types[token]
                if pos not in SKIPPED:
                    words.append((token.lower(), lemma, self.settings.weight(pos)))
            out[text] = words[: self.settings.max_length]
        return out

    def __call__(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """(rows, len(FEATURE_NAMES)) float32 features of the pairs."""
        words = self.words([*premises, *hypotheses])
        rows = [pair_features(words[p], words[h], self.settings) for p, h in zip(premises, hypotheses, strict=True)]
        return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURE_NAMES)).astype(np.float32)


class AlignClassifier(nn.Module):
    """Standardised features into logistic regression (``linear``) or a tanh MLP (``mlp``)."""

    def __init__(self, settings: Mapping[str, Any], n_labels: int) -> None:
        super().__init__()
        n = len(FEATURE_NAMES)
        self.register_buffer("feature_mean", torch.zeros(n))
        self.register_buffer("feature_std", torch.ones(n))
        if settings.get("classifier", "mlp") == "linear":
            self.classifier: nn.Module = nn.Linear(n, n_labels)
        else:
            self.classifier = _mlp(n, int(settings["mlp_dim"]), n_labels, float(settings["dropout"]), nn.Tanh)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.classifier((features - self.feature_mean) / self.feature_std)


def pos_pipeline(params: Mapping[str, Any]) -> Any:
    """``resources.spacy_model`` with what tokenising and tagging word types needs."""
    return spacy_pipeline(params, disable=POS_DISABLE)


class AlignPredictor:
    """ALIGN's ``predict_proba``: features of each pair, then the classifier's softmax."""

    def __init__(self, model: AlignClassifier, featurizer: Featurizer, batch_size: int,
                 device: torch.device, labels: Sequence[str]) -> None:  # fmt: skip
        self.model, self.featurizer, self.batch_size, self.device = model, featurizer, batch_size, device
        self.labels = tuple(labels)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Softmax of the classifier on computed features, in batches of ``batch_size`` rows."""
        was_training = self.model.training
        self.model.eval()
        out = np.empty((len(features), len(self.labels)), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(features), self.batch_size):
                batch = torch.from_numpy(features[start : start + self.batch_size]).to(self.device)
                out[start : start + len(batch)] = torch.softmax(self.model(batch).float(), -1).cpu().numpy()
        self.model.train(was_training)
        return out

    def predict_proba(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        return self.probabilities(self.featurizer(premises, hypotheses))

    @classmethod
    def load(cls, model_dir: Path, config: Mapping[str, Any], settings: Mapping[str, Any],
             device: torch.device, params: Mapping[str, Any]) -> AlignPredictor:  # fmt: skip
        """The model of ``model_dir``, with the spaCy pipeline of ``params`` (``resources``),
        which must be the one the model was trained with."""
        path = model_dir / FEATURES_FILE
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            features = FeatureSettings(**record["features"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(path, f"not an ALIGN feature file ({exc})") from None
        if list(record.get("names", [])) != list(FEATURE_NAMES):
            raise DataError(path, "the model was trained on other features than this version computes: retrain it")
        nlp = pos_pipeline(params)
        if pipeline_id(nlp) != record.get("spacy_pipeline"):
            raise ConfigError(f"resources.spacy_model: {model_dir} was trained with the tags of "
                              f"{record.get('spacy_pipeline')}, this is {pipeline_id(nlp)}: point "
                              "resources.spacy_model at that pipeline, or retrain")  # fmt: skip
        labels = tuple(config["labels"])
        model = AlignClassifier(config["settings"], len(labels))
        load_weights(model, model_dir, labels, device)
        return cls(model, Featurizer(nlp, features), int(settings["batch_size"]), device, labels)


def train_align(
    name: str, s: Mapping[str, Any], train: pd.DataFrame, dev: pd.DataFrame | None,
    labels: tuple[str, ...], out_dir: Path, seed: int, device: torch.device, log_line: Log,
    params: Mapping[str, Any],
) -> tuple[list[dict[str, float]], int]:  # fmt: skip
    """Compute the features of ``train`` (and ``dev``) once, fit the classifier, write the model;
    return per-epoch metrics and the epoch whose weights were written. ``name`` and ``s`` are
    the zoo entry's name and settings (``models.zoo.<name>``)."""
    where = f"models.zoo.{name}"
    if s.get("language", "en") != "en":
        raise ConfigError(f"{where}: ALIGN weighs words by English POS tags, but its training data "
                          f"is in {s['language']!r}; train it on an English split")  # fmt: skip
    featurizer = Featurizer(pos_pipeline(params), FeatureSettings.from_settings(s, where))
    x = featurizer(train["premise"].tolist(), train["hypothesis"].tolist())
    x_dev = None if dev is None else featurizer(dev["premise"].tolist(), dev["hypothesis"].tolist())
    seed_everything(seed, device)
    model = AlignClassifier(s, len(labels))
    std = x.astype(np.float64).std(axis=0)
    model.feature_mean.copy_(torch.from_numpy(x.astype(np.float64).mean(axis=0)))
    model.feature_std.copy_(torch.from_numpy(np.where(std > 0, std, 1.0)))
    model.to(device)
    log_line(f"{name}: align, {len(FEATURE_NAMES)} features, word types tagged by "
             f"{pipeline_id(featurizer.nlp)}, {sum(p.numel() for p in model.parameters())} parameters, "
             f"{len(train)} rows")  # fmt: skip
    predictor = AlignPredictor(model, featurizer, int(s.get("eval_batch_size", 256)), device, labels)
    features, targets = torch.from_numpy(x), torch.tensor(train["label_id"].to_numpy(), dtype=torch.long)

    def forward(idx: list[int]) -> torch.Tensor:
        return model(features[idx].to(device))

    def evaluate() -> dict[str, float]:
        assert dev is not None and x_dev is not None
        return dev_metrics(predictor.probabilities(x_dev), dev["label_id"].to_numpy())

    metrics, state, kept = fit(model, forward, targets, None if dev is None else evaluate, s, seed, device, log_line)
    save_weights(state, out_dir / "model.safetensors", labels)
    record = {"features": asdict(featurizer.settings), "names": list(FEATURE_NAMES),
              "spacy_pipeline": pipeline_id(featurizer.nlp)}  # fmt: skip
    (out_dir / FEATURES_FILE).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return metrics, kept
