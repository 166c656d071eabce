"""The "Artifact audit" section of a set's dataset card, from its ``.audit.json``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tables import markdown_table


def _gains(audit: Mapping[str, Any]) -> list[tuple[str, float]]:
    """(method, points above the majority class) of each hypothesis-only figure measured."""
    figures = [("bag-of-words proxy", audit["hypothesis_only"])]
    if audit.get("hypothesis_only_model"):
        figures.append((audit["hypothesis_only_model"]["model"], audit["hypothesis_only_model"]))
    return [(name, f["gain_over_majority_pp"]) for name, f in figures if f.get("accuracy") is not None]


def _verdict(audit: Mapping[str, Any]) -> str:
    if len(audit["labels"]) < 2:
        return (
            "Every audited row has the same label (by construction), so a hypothesis-only "
            "accuracy says nothing here, and no word can give a label away."
        )
    gains = _gains(audit)
    if not gains:
        return f"No hypothesis-only accuracy: {audit['hypothesis_only'].get('why_not', 'too few rows')}."
    name, gain = max(gains, key=lambda g: g[1])
    if gain > audit["warn_margin_pp"]:
        return (
            f"**Warning:** the hypothesis alone ({name}) predicts the label {gain:.1f} points "
            "above the majority class. Part of what this set measures is an annotation "
            "artifact, not inference: report a hypothesis-only baseline next to any model's "
            "score on it."
        )
    shown = ", ".join(f"{n} {g:+.1f}" for n, g in gains)
    return (
        f"The hypothesis alone does not beat the majority class by more than "
        f"{audit['warn_margin_pp']:g} points ({shown})."
    )


def _model_row(audit: Mapping[str, Any]) -> list[str]:
    """The table row of the registry's hypothesis-only model: its accuracy, or why there is none."""
    model = audit.get("hypothesis_only_model")
    if model is None:
        return ["hypothesis only, trained model", "not measured: no hypothesis-only model is trained "
                f"for {audit.get('dataset', 'this dataset')} (artifacts.hypothesis_only_model, artifacts.baselines)"]
    what = f"hypothesis only, {model['model']} trained on `{model['train']}`"
    if model.get("accuracy") is None:
        return [what, f"not measured: {model['why_not']}"]
    return [what, f"{model['accuracy']:.1%} (majority of those rows {model['majority']['accuracy']:.1%})"]


def audit_section(audit: Mapping[str, Any], permuted: bool = False) -> str:
    """Markdown: rows audited, majority vs hypothesis-only accuracy, top give-away words
    (none for a one-label set). ``permuted``: the set holds several word orders per example."""
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
        markdown_table(["measure", "accuracy"], [
            [f"majority class ({audit['majority']['label']})", f"{audit['majority']['accuracy']:.1%}"],
            ["hypothesis only, bag-of-words proxy", accuracy],
            _model_row(audit),
        ]).rstrip("\n"),
        "",
        _verdict(audit),
        "",
        f"Bag-of-words proxy: {hyp['method']}. "
        + ("The trained model reads every labelled row (all word orders of a permuted example), "
           "the proxy one row per example." if permuted else "The trained model reads every labelled row."),
    ]
    if len(audit["labels"]) < 2:
        return "\n".join(lines)
    lines += [
        "",
        f"Strongest give-away words per label (p(l|w) >= {words['top_min_p']:g}, seen in >= "
        f"{words['min_frequency']} hypotheses, by frequency; share of the label's hypotheses "
        "containing one):",
        "",
        markdown_table(["label", "covered", "words (p, freq)"], [
            [label, f"{words['covered_share'].get(label, 0.0):.1%}",
             ", ".join(f"{w['word']} ({w['p']:.2f}, {w['freq']})" for w in top) or "none"]
            for label, top in words["top"].items()
        ]).rstrip("\n"),
    ]
    return "\n".join(lines)
