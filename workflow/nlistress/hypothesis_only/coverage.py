"""Figure 6 as a PNG: hypotheses per label covered by a give-away word, by threshold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..figures import FigureSize, new_figure, save_png
from .settings import ArtifactSettings


def plot_coverage(
    rows: Sequence[Mapping[str, Any]], labels: Sequence[str], output: str | Path,
    settings: ArtifactSettings, title: str,
) -> None:  # fmt: skip
    """One line per label: share of its hypotheses covered at each threshold (paper's definition)."""
    size = FigureSize(*settings.figure_size, settings.figure_dpi)
    figure, (axes,) = new_figure(size)
    for label in labels:
        mine = [r for r in rows if r["label"] == label]
        axes.plot(
            [r["threshold"] for r in mine], [r["covered_share"] for r in mine],
            label=f"{label} ({mine[0]['hypotheses']:,})" if mine else label,
        )  # fmt: skip
    axes.set_xlabel("threshold t: a word with p(l|w) >= t for some label l")
    axes.set_ylabel("share of hypotheses covered")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1.02)
    axes.set_title(f"Give-away coverage: {title}")
    axes.grid(alpha=0.3)
    axes.legend(loc="lower left")
    save_png(figure, output, size)
