"""The ``artifacts`` section of params.yaml as typed settings (the schema checks its shape)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..schema import checked_section


@dataclass(frozen=True)
class ArtifactSettings:
    """Word statistics, the cross-validated bag-of-words proxy and the figure's look."""

    tokenizers: Mapping[str, str]
    lowercase: bool
    min_frequency: int
    top_min_p: float
    top_k: int
    thresholds: tuple[float, ...]
    figure_size: tuple[float, float]
    figure_dpi: int
    alpha: float
    folds: int
    seed: int
    audit_top_k: int
    warn_margin: float

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ArtifactSettings:
        """The section as typed settings; its shape and bounds are the schema's to check."""
        section = checked_section(params, "artifacts")
        grid = section["coverage"]
        start, stop, step = (float(grid[k]) for k in ("start", "stop", "step"))
        if start >= stop:
            raise ConfigError(f"artifacts.coverage: start ({start}) must be below stop ({stop})")
        thresholds = tuple(
            float(round(x, 10)) for x in np.arange(start, stop + step / 2, step) if x <= stop + 1e-12
        )
        figure, audit = section["figure"], section["audit"]
        return cls(
            tokenizers=dict(section["tokenizers"]),
            lowercase=section.get("lowercase", False),
            min_frequency=section["min_frequency"],
            top_min_p=float(section["top_min_p"]),
            top_k=section["top_k"],
            thresholds=thresholds,
            figure_size=(float(figure["width"]), float(figure["height"])),
            figure_dpi=figure["dpi"],
            alpha=float(audit["alpha"]),
            folds=audit["folds"],
            seed=audit["seed"],
            audit_top_k=audit["top_k"],
            warn_margin=float(audit["warn_margin"]),
        )

    def tokenizer_for(self, language: str) -> str:
        """The tokenizer of ``language`` (whitespace where none is configured)."""
        return str(self.tokenizers.get(language, "whitespace"))

    def describe(self, tokenizer: str) -> dict[str, Any]:
        """The settings that shape the word statistics (recorded in every output)."""
        return {
            "tokenizer": tokenizer,
            "lowercase": self.lowercase,
            "min_frequency": self.min_frequency,
            "top_min_p": self.top_min_p,
            "top_k": self.top_k,
        }


def hypothesis_only_model(params: Mapping[str, Any]) -> str | None:
    """``artifacts.hypothesis_only_model``, checked to name a hypothesis-only zoo entry (or null)."""
    name = (params.get("artifacts") or {}).get("hypothesis_only_model")
    if name is None:
        return None
    from ..models.settings import model_spec

    if not model_spec(params, str(name)).hypothesis_only:
        raise ConfigError(
            f"artifacts.hypothesis_only_model: models.zoo.{name} reads the premise; name an "
            "entry with hypothesis_only: true (e.g. infersent_hyp), or null for the "
            "bag-of-words proxy"
        )
    return str(name)
