"""The maximum-entropy training objective of Sinha et al. (2021), equation 5.

Cross-entropy on each original example plus, for n permuted copies of it,
the entropy of the model's prediction maximised (subtracted from the loss):
a model trained this way is pushed to be unsure about word salad instead of
confidently predicting the original label. The training rules use it with
the permuted copies of `permute_train` (appendix F); n = 1 in the paper.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def prediction_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of the softmax distribution over the last dimension."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def max_entropy_loss(
    logits: torch.Tensor, labels: torch.Tensor, permuted_logits: torch.Tensor
) -> torch.Tensor:
    """Mean over the batch of CE(original) - Σ_j H(permuted copy j).

    ``logits``: (batch, classes) on the originals; ``labels``: (batch,);
    ``permuted_logits``: (batch, n, classes) on n permuted copies of each.
    """
    if logits.dim() != 2 or permuted_logits.dim() != 3:
        raise ValueError("expected logits (batch, classes) and permuted_logits (batch, n, classes)")
    if permuted_logits.shape[0] != logits.shape[0] or permuted_logits.shape[2] != logits.shape[1]:
        raise ValueError(
            f"permuted_logits {tuple(permuted_logits.shape)} does not match logits {tuple(logits.shape)}"
        )
    cross_entropy = F.cross_entropy(logits, labels, reduction="none")
    return (cross_entropy - prediction_entropy(permuted_logits).sum(dim=1)).mean()
