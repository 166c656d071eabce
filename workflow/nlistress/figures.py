"""PNG figures drawn one way everywhere, so the same data gives the same bytes.

matplotlib's object API on the Agg canvas (no pyplot state, no display), a
fixed size and dpi, and no "Software" metadata chunk: DVC hashes of a figure
change only when its data (or the library version pinned in constraints.txt)
does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .atomic import atomic_path
from .schema import checked


@dataclass(frozen=True)
class FigureSize:
    """Inches of one panel and dots per inch (a ``figure`` entry in params.yaml)."""

    width: float
    height: float
    dpi: int

    @classmethod
    def from_mapping(cls, section: Any, where: str) -> FigureSize:
        """The ``figure`` entry at key path ``where`` (e.g. ``evaluate.figure``), checked by
        the schema (one definition serves every figure entry)."""
        section = checked(section, *where.split("."))
        return cls(float(section["width"]), float(section["height"]), int(section["dpi"]))


def new_figure(size: FigureSize, panels: int = 1, columns: int = 3) -> tuple[Any, list[Any]]:
    """A figure with ``panels`` axes in a grid of at most ``columns`` per row (each ``size``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ncols = max(1, min(columns, panels))
    nrows = -(-max(panels, 1) // ncols)
    figure = Figure(figsize=(size.width * ncols, size.height * nrows), dpi=size.dpi)
    FigureCanvasAgg(figure)
    axes = [figure.add_subplot(nrows, ncols, i + 1) for i in range(max(panels, 1))]
    return figure, axes


def save_png(figure: Any, output: str | Path, size: FigureSize) -> Path:
    """Lay out ``figure`` and write it atomically as a reproducible PNG."""
    figure.tight_layout()
    with atomic_path(output) as tmp:
        figure.savefig(tmp, format="png", dpi=size.dpi, metadata={"Software": None})
    return Path(output)
