"""The three NLI labels, in the order every table, model head and prediction file uses."""

from __future__ import annotations

LABELS = ("entailment", "neutral", "contradiction")
