"""The figures of Sinha et al. (2021) as PNG, from the same frames as the CSV files.

One panel per model (``<model>.<variant>``), one line per permuted set
(``<test> <dataset>/<split>``), so a figure reads like the paper's:

- ``omega_curve.png``: Ω_x against x (Figure 8);
- ``bleu_bins.png``: acceptance of permutations against their BLEU-2 with the
  original (Figure 3; Figure 10 for the clumped sets);
- ``length_bins.png``: mean share of correct permutations (Pr_cor) of the
  correctly classified examples against the original length (Figure 6);
- ``minitree_bins.png``: Pr_cor against the POS mini-tree ratio β^k (Figure 4);
- ``entropy.png``: mean entropy of the accepted permutations per set (Figure 2).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..figures import FigureSize, new_figure, save_png

_SET = ["variant", "dataset", "split"]


def _set_name(key: tuple[str, str, str]) -> str:
    variant, dataset, split = key
    return f"{variant} {dataset}/{split}"


def _bin_label(lo: float, hi: float) -> str:
    return f"{lo:g}-{hi:g}"


def _line_panels(
    frame: pd.DataFrame, x: str | None, y: str, size: FigureSize, output: Path,
    title: str, xlabel: str, ylabel: str,
) -> Path:  # fmt: skip
    """One panel per model, one line per set; ``x=None`` plots bins (``lo``, ``hi``) in order."""
    models = list(dict.fromkeys(frame["model"]))
    figure, panels = new_figure(size, len(models))
    for axes, model in zip(panels, models, strict=True):
        for key, rows in frame[frame["model"] == model].groupby(_SET, sort=True):
            xs = rows[x] if x else range(len(rows))
            axes.plot(xs, rows[y], marker="o", markersize=3, label=_set_name(key))
            if x is None:
                labels = [_bin_label(lo, hi) for lo, hi in zip(rows["lo"], rows["hi"], strict=True)]
                axes.set_xticks(range(len(rows)), labels, rotation=30, fontsize="x-small")
        axes.set_title(f"{title}: {model}", fontsize="medium")
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.set_ylim(-0.02, 1.02)
        axes.grid(alpha=0.3)
        axes.legend(fontsize="x-small", loc="best")
    return save_png(figure, output, size)


def _entropy_bars(frame: pd.DataFrame, size: FigureSize, output: Path) -> Path:
    """Mean entropy (nats) of the accepted permutations, one bar per set, a panel per model."""
    models = list(dict.fromkeys(frame["model"]))
    figure, panels = new_figure(size, len(models))
    for axes, model in zip(panels, models, strict=True):
        rows = frame[(frame["model"] == model) & (frame["subset"] == "all")].sort_values(_SET)
        names = [_set_name(key) for key in rows[_SET].itertuples(index=False, name=None)]
        axes.bar(range(len(rows)), rows["mean"])
        axes.set_xticks(range(len(rows)), names, rotation=30, ha="right", fontsize="x-small")
        axes.set_title(f"Entropy of accepted permutations: {model}", fontsize="medium")
        axes.set_ylabel("mean entropy (nats)")
        axes.grid(alpha=0.3, axis="y")
    return save_png(figure, output, size)


def write_figures(frames: dict[str, pd.DataFrame], out_dir: Path, size: FigureSize) -> list[Path]:
    """The PNG of each non-empty frame given (name -> long frame as in the CSV); the paths written."""
    def nonempty(name: str, keep: tuple[str, object] | None = None) -> pd.DataFrame | None:
        frame = frames.get(name)
        if frame is not None and keep is not None:
            frame = frame[frame[keep[0]] == keep[1]]
        return frame if frame is not None and len(frame) else None

    written = []
    if (f := nonempty("omega_curve")) is not None:
        written.append(_line_panels(f, "x", "omega", size, out_dir / "omega_curve.png",
                                    "Ω_x (Figure 8)", "x: share of permutations accepted",
                                    "share of examples"))  # fmt: skip
    if (f := nonempty("bleu_bins", ("bleu", 2))) is not None:
        written.append(_line_panels(f, None, "acceptance", size, out_dir / "bleu_bins.png",
                                    "Acceptance by BLEU-2 (Figure 3)", "BLEU-2 with the original",
                                    "share of permutations accepted"))  # fmt: skip
    if (f := nonempty("length_bins", ("subset", "D_c"))) is not None:
        written.append(_line_panels(f, None, "mean_pr_cor", size, out_dir / "length_bins.png",
                                    "Acceptance by length (Figure 6)",
                                    "premise + hypothesis tokens", "mean Pr_cor"))  # fmt: skip
    if (f := nonempty("minitree_bins", ("subset", "all"))) is not None:
        written.append(_line_panels(f, None, "mean_pr_cor", size, out_dir / "minitree_bins.png",
                                    "Acceptance by POS mini-tree (Figure 4)", "β^k ratio",
                                    "mean Pr_cor"))  # fmt: skip
    if (f := nonempty("entropy")) is not None:
        written.append(_entropy_bars(f, size, out_dir / "entropy.png"))
    return written
