"""A cheap hypothesis-only classifier: multinomial naive Bayes over hypothesis words.

It stands in for the registry's hypothesis-only neural model wherever that
model has not been trained (every generated set, every dataset in CI): it
needs seconds on a CPU, has no random initialisation, and a bag of words is
exactly the signal give-away words carry. Features are word presence (a word
counts once per hypothesis, as in the give-away statistics); words never seen
in the training rows carry no evidence. Cross-validation folds are drawn per
``group`` (the source example), so copies of one example never sit on both
sides of a fold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .words import Occurrences


def presence_matrix(occ: Occurrences) -> sp.csr_matrix:
    """Rows x vocabulary, 1 where the row contains the word."""
    data = np.ones(len(occ.rows), dtype=np.float64)
    shape = (occ.n_rows, max(len(occ.vocabulary), 1))
    return sp.csr_matrix((data, (occ.rows, occ.words)), shape=shape)


@dataclass(frozen=True)
class NaiveBayes:
    """Fitted log prior and per-class word log probabilities (Laplace smoothing ``alpha``)."""

    log_prior: np.ndarray  # (labels,)
    log_prob: np.ndarray  # (labels, words); 0 for words absent from the training rows

    @classmethod
    def fit(cls, x: sp.csr_matrix, y: np.ndarray, n_labels: int, alpha: float) -> NaiveBayes:
        onehot = sp.csr_matrix(
            (np.ones(len(y)), (y, np.arange(len(y)))), shape=(n_labels, len(y))
        )
        counts = np.asarray((onehot @ x).todense())  # (labels, words)
        seen = counts.sum(axis=0) > 0
        smoothed = np.where(seen, counts + alpha, 0.0)
        totals = smoothed.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            log_prob = np.where(seen, np.log(smoothed) - np.log(np.maximum(totals, 1e-300)), 0.0)
        class_rows = np.bincount(y, minlength=n_labels).astype(np.float64)
        with np.errstate(divide="ignore"):
            log_prior = np.log(class_rows / class_rows.sum())
        return cls(log_prior, log_prob)

    def predict_proba(self, x: sp.csr_matrix) -> np.ndarray:
        joint = np.asarray(x @ self.log_prob.T) + self.log_prior
        joint -= joint.max(axis=1, keepdims=True)
        probs = np.exp(joint)
        return probs / probs.sum(axis=1, keepdims=True)


def fold_of(groups: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fold index per row: groups shuffled with ``seed`` and dealt round-robin into ``k`` folds."""
    unique, inverse = np.unique(groups, return_inverse=True)
    order = np.random.default_rng(seed).permutation(len(unique))
    folds_by_group = np.empty(len(unique), dtype=np.int64)
    folds_by_group[order] = np.arange(len(unique)) % k
    return folds_by_group[inverse]


def cross_validated_predictions(
    x: sp.csr_matrix, y: np.ndarray, groups: np.ndarray, n_labels: int, k: int, seed: int,
    alpha: float,
) -> np.ndarray:  # fmt: skip
    """Out-of-fold predicted label codes for every row (k grouped folds)."""
    folds = fold_of(groups, min(k, len(np.unique(groups))), seed)
    predicted = np.empty(len(y), dtype=np.int64)
    for fold in np.unique(folds):
        test = folds == fold
        model = NaiveBayes.fit(x[~test], y[~test], n_labels, alpha)
        predicted[test] = model.predict_proba(x[test]).argmax(axis=1)
    return predicted
