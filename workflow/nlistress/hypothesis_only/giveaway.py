"""Give-away words (Poliak et al. 2018, section 6): p(l|w), top words per label, coverage.

``p(l|w)`` is the share of hypotheses containing word ``w`` whose gold label is
``l`` (equation 1), over a training split. Figure 13 lists, per label, the ten
most frequent words with ``p(l|w)`` above a threshold among words seen at
least ``min_frequency`` times; Figure 6 counts, for a sliding threshold t, the
hypotheses of each label that contain at least one word with ``p(l'|w) >= t``
for some label l' (the paper's definition), and, as a sharper variant, for
their own gold label.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import sha256_file, write_json_atomic, write_text_atomic
from ..tables import markdown_table
from .labelled import read_labelled
from .settings import ArtifactSettings
from .words import Occurrences, hypothesis_words, label_counts, row_max


@dataclass(frozen=True)
class WordStats:
    """Per word: hypotheses containing it, by label, and ``p(l|w)``."""

    vocabulary: np.ndarray
    labels: tuple[str, ...]
    counts: np.ndarray  # (words, labels)

    @property
    def frequency(self) -> np.ndarray:
        return self.counts.sum(axis=1)

    @property
    def p(self) -> np.ndarray:
        return self.counts / np.maximum(self.frequency, 1)[:, None]


def word_stats(occ: Occurrences, codes: np.ndarray, labels: Sequence[str]) -> WordStats:
    return WordStats(occ.vocabulary, tuple(labels), label_counts(occ, codes, len(labels)))


def top_words(
    stats: WordStats, min_frequency: int, min_p: float, k: int
) -> dict[str, list[dict[str, Any]]]:
    """Figure 13: per label, up to ``k`` words with freq >= ``min_frequency`` and p(l|w) >= ``min_p``.

    Ranked by frequency (the paper: frequency says more about a word's effect
    on accuracy than p alone), ties by p, then alphabetically, so the list is
    the same on every run.
    """
    freq, p = stats.frequency, stats.p
    out: dict[str, list[dict[str, Any]]] = {}
    for j, label in enumerate(stats.labels):
        candidates = np.flatnonzero((freq >= min_frequency) & (p[:, j] >= min_p - 1e-12))
        ranked = sorted(candidates, key=lambda w: (-freq[w], -p[w, j], stats.vocabulary[w]))[:k]
        out[label] = [
            {"word": str(stats.vocabulary[w]), "p": round(float(p[w, j]), 6),
             "freq": int(freq[w]), "count": int(stats.counts[w, j])}
            for w in ranked
        ]  # fmt: skip
    return out


def row_scores(
    occ: Occurrences, codes: np.ndarray, stats: WordStats, min_frequency: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per hypothesis: the strongest p(l'|w) of its words over any label, and for its own label.

    Only words seen at least ``min_frequency`` times count; a hypothesis with
    none scores -1 and is never covered.
    """
    eligible = stats.frequency >= min_frequency
    p = stats.p
    any_label = np.where(eligible, p.max(axis=1), -1.0)[occ.words]
    own_label = np.where(eligible[occ.words], p[occ.words, codes[occ.rows]], -1.0)
    return row_max(occ, any_label), row_max(occ, own_label)


def coverage_rows(
    scores_any: np.ndarray, scores_own: np.ndarray, codes: np.ndarray,
    labels: Sequence[str], thresholds: Sequence[float],
) -> list[dict[str, Any]]:  # fmt: skip
    """Figure 6: hypotheses per label covered by a word above each threshold."""
    out = []
    for j, label in enumerate(labels):
        mine = codes == j
        total = int(mine.sum())
        sorted_any, sorted_own = np.sort(scores_any[mine]), np.sort(scores_own[mine])
        for t in thresholds:
            at = t - 1e-12  # >= t, robust to float error in the grid
            covered = total - int(np.searchsorted(sorted_any, at, "left"))
            own = total - int(np.searchsorted(sorted_own, at, "left"))
            out.append({
                "threshold": t, "label": label, "hypotheses": total,
                "covered": covered, "covered_share": round(covered / total, 6) if total else 0.0,
                "covered_own_label": own,
                "covered_own_label_share": round(own / total, 6) if total else 0.0,
            })  # fmt: skip
    return out


def _csv(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def top_words_markdown(top: dict[str, list[dict[str, Any]]], title: str, settings: dict) -> str:
    """Figure 13's layout: one Word / Score / Freq table per label."""
    parts = [
        f"# Give-away words: {title}",
        f"Words seen in at least {settings['min_frequency']} hypotheses with p(l|w) >= "
        f"{settings['top_min_p']}, top {settings['top_k']} per label ranked by frequency "
        f"(Poliak et al. 2018, Figure 13). Tokenizer `{settings['tokenizer']}`, "
        f"lowercase {str(settings['lowercase']).lower()}.",
    ]
    for label, words in top.items():
        rows = [[w["word"], f"{w['p']:.2f}", w["freq"]] for w in words]
        parts += [f"## {label}", markdown_table(["Word", "Score", "Freq"], rows).rstrip("\n")]
        if not words:
            parts.append("(no word passes the thresholds)")
    return "\n\n".join(parts) + "\n"


def analyse_giveaway(
    tables: Sequence[str | Path], output: str | Path, settings: ArtifactSettings,
    tokenizer: str, title: str,
) -> dict[str, Any]:  # fmt: skip
    """Write the give-away analysis of ``tables`` into folder ``output``; return the summary.

    Files: ``top_words.{csv,md}`` (Figure 13), ``coverage.{csv,png}`` (Figure
    6), ``words.json`` (every word's counts and p(l|w), the rows read and
    dropped, the sources and settings).
    """
    from .coverage import plot_coverage

    output = Path(output)
    data = read_labelled(tables, ["hypothesis"])
    occ = hypothesis_words(data.table["hypothesis"], tokenizer, settings.lowercase)
    stats = word_stats(occ, data.codes, data.labels)
    described = settings.describe(tokenizer)
    top = top_words(stats, settings.min_frequency, settings.top_min_p, settings.top_k)
    scores_any, scores_own = row_scores(occ, data.codes, stats, settings.min_frequency)
    coverage = coverage_rows(scores_any, scores_own, data.codes, data.labels, settings.thresholds)

    top_rows = [{"label": label, "rank": i + 1, **w} for label, ws in top.items() for i, w in enumerate(ws)]
    write_text_atomic(output / "top_words.csv", _csv(top_rows, ["label", "rank", "word", "p", "freq", "count"]))
    write_text_atomic(output / "top_words.md", top_words_markdown(top, title, described))
    write_text_atomic(output / "coverage.csv", _csv(coverage, list(coverage[0])))
    plot_coverage(coverage, data.labels, output / "coverage.png", settings, title)
    freq, p = stats.frequency, stats.p
    words = {
        str(word): {
            "freq": int(freq[w]),
            "counts": {label: int(stats.counts[w, j]) for j, label in enumerate(data.labels)},
            "p": {label: round(float(p[w, j]), 6) for j, label in enumerate(data.labels)},
        }
        for w, word in enumerate(stats.vocabulary)
    }
    summary = {
        "title": title,
        "sources": [{"path": str(t), "sha256": sha256_file(t)} for t in tables],
        "rows": data.counts.as_dict(),
        "labels": {label: int((data.codes == j).sum()) for j, label in enumerate(data.labels)},
        "settings": described,
        "vocabulary": len(words),
        "top": top,
    }
    write_json_atomic(output / "words.json", {**summary, "words": words})
    return summary
