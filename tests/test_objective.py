"""The maximum-entropy objective (Sinha et al. 2021, equation 5)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from nlistress.permutations.objective import max_entropy_loss, prediction_entropy


def test_entropy_of_uniform_and_certain_predictions():
    assert prediction_entropy(torch.zeros(3)).item() == pytest.approx(math.log(3))
    assert prediction_entropy(torch.tensor([50.0, 0.0, 0.0])).item() == pytest.approx(0.0, abs=1e-6)


def test_loss_is_cross_entropy_minus_summed_entropy():
    torch.manual_seed(0)
    logits, labels = torch.randn(4, 3), torch.tensor([0, 1, 2, 1])
    uniform = torch.zeros(4, 2, 3)  # n = 2 permuted copies, each maximally unsure
    expected = F.cross_entropy(logits, labels) - 2 * math.log(3)
    assert max_entropy_loss(logits, labels, uniform).item() == pytest.approx(expected.item())


def test_minimising_it_makes_predictions_on_permutations_unsure():
    torch.manual_seed(0)
    permuted = torch.tensor([[[4.0, -2.0, 1.0]]], requires_grad=True)  # confident on word salad
    logits, labels = torch.tensor([[2.0, 0.0, 0.0]]), torch.tensor([0])
    before = prediction_entropy(permuted).item()
    optimiser = torch.optim.SGD([permuted], lr=0.5)
    for _ in range(500):
        optimiser.zero_grad()
        max_entropy_loss(logits, labels, permuted).backward()
        optimiser.step()
    after = prediction_entropy(permuted).item()
    assert before < after == pytest.approx(math.log(3), abs=1e-3)


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="does not match"):
        max_entropy_loss(torch.zeros(2, 3), torch.tensor([0, 1]), torch.zeros(3, 1, 3))
    with pytest.raises(ValueError, match="expected logits"):
        max_entropy_loss(torch.zeros(2, 3), torch.tensor([0, 1]), torch.zeros(2, 3))
