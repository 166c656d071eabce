"""The "Artifact audit" section of a set's dataset card, from its ``.audit.json``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _verdict(audit: Mapping[str, Any]) -> str:
    hyp = audit["hypothesis_only"]
    if len(audit["labels"]) < 2:
        return (
            "Every audited row has the same label (by construction), so a hypothesis-only "
            "accuracy says nothing here; the give-away words below show what the hypotheses share."
        )
    if hyp.get("accuracy") is None:
        return f"No hypothesis-only accuracy: {hyp.get('why_not', 'too few rows')}."
    gain = hyp["gain_over_majority_pp"]
    if gain > audit["warn_margin_pp"]:
        return (
            f"**Warning:** the hypothesis alone predicts the label {gain:.1f} points above the "
            "majority class. Part of what this set measures is an annotation artifact, not "
            "inference: report a hypothesis-only baseline next to any model's score on it."
        )
    return (
        f"The hypothesis alone does not beat the majority class by more than "
        f"{audit['warn_margin_pp']:g} points ({gain:+.1f})."
    )


def audit_section(audit: Mapping[str, Any]) -> str:
    """Markdown: rows audited, majority vs hypothesis-only accuracy, top give-away words."""
    rows, hyp, words = audit["rows"], audit["hypothesis_only"], audit["giveaway"]
    dropped = "; ".join(f"{n:,} {why}" for why, n in rows["dropped"].items()) or "none"
    if audit["majority"] is None:
        return (
            f"Nothing to audit yet: {hyp['why_not']} ({rows['input']:,} rows). The audit runs "
            "again when the reviewed labels are applied (`nlistress import-review --apply`)."
        )
    accuracy = "n/a" if hyp.get("accuracy") is None else f"{hyp['accuracy']:.1%}"
    lines = [
        f"{rows['kept']:,} of {rows['input']:,} rows audited (left out: {dropped}).",
        "",
        "| measure | accuracy |",
        "|---|---|",
        f"| majority class ({audit['majority']['label']}) | {audit['majority']['accuracy']:.1%} |",
        f"| hypothesis only, bag-of-words proxy | {accuracy} |",
        "",
        _verdict(audit),
        "",
        f"Hypothesis-only method: {hyp['method']}. The registry's hypothesis-only model "
        "result is added where that model has been trained.",
        "",
        f"Strongest give-away words per label (p(l|w) >= {words['top_min_p']:g}, seen in >= "
        f"{words['min_frequency']} hypotheses, by frequency; share of the label's hypotheses "
        "containing one):",
        "",
        "| label | covered | words (p, freq) |",
        "|---|---|---|",
    ]
    for label, top in words["top"].items():
        listed = ", ".join(f"{w['word']} ({w['p']:.2f}, {w['freq']})" for w in top) or "none"
        lines.append(f"| {label} | {words['covered_share'].get(label, 0.0):.1%} | {listed} |")
    return "\n".join(lines)
