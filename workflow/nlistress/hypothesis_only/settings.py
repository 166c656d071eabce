"""The ``artifacts`` section of params.yaml, validated once with key paths in every message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..permutations.tokenize import TOKENIZERS


def _number(section: Mapping[str, Any], key: str, where: str, kind: type = float) -> Any:
    if key not in section:
        raise ConfigError(f"{where}.{key}: missing")
    value = section[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}.{key}: expected a number, got {value!r}")
    if kind is int and value != int(value):
        raise ConfigError(f"{where}.{key}: expected an integer, got {value!r}")
    return kind(value)


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
        where = "artifacts"
        section = params.get(where)
        if not isinstance(section, Mapping):
            raise ConfigError(f"{where}: missing (see params.yaml)")
        tokenizers = section.get("tokenizers") or {}
        if not isinstance(tokenizers, Mapping):
            raise ConfigError(f"{where}.tokenizers: expected language -> tokenizer")
        for language, name in tokenizers.items():
            if name not in TOKENIZERS:
                raise ConfigError(
                    f"{where}.tokenizers.{language}: expected one of {', '.join(TOKENIZERS)}, "
                    f"got {name!r}"
                )
        lowercase = section.get("lowercase", False)
        if not isinstance(lowercase, bool):
            raise ConfigError(f"{where}.lowercase: expected true or false, got {lowercase!r}")
        grid = section.get("coverage") or {}
        gwhere = f"{where}.coverage"
        start, stop, step = (_number(grid, k, gwhere) for k in ("start", "stop", "step"))
        if not 0 <= start < stop <= 1 or step <= 0:
            raise ConfigError(f"{gwhere}: expected 0 <= start < stop <= 1 and step > 0")
        thresholds = tuple(
            float(round(x, 10)) for x in np.arange(start, stop + step / 2, step) if x <= stop + 1e-12
        )
        figure = section.get("figure") or {}
        fwhere = f"{where}.figure"
        audit = section.get("audit") or {}
        awhere = f"{where}.audit"
        settings = cls(
            tokenizers=dict(tokenizers),
            lowercase=lowercase,
            min_frequency=_number(section, "min_frequency", where, int),
            top_min_p=_number(section, "top_min_p", where),
            top_k=_number(section, "top_k", where, int),
            thresholds=thresholds,
            figure_size=(_number(figure, "width", fwhere), _number(figure, "height", fwhere)),
            figure_dpi=_number(figure, "dpi", fwhere, int),
            alpha=_number(audit, "alpha", awhere),
            folds=_number(audit, "folds", awhere, int),
            seed=_number(audit, "seed", awhere, int),
            audit_top_k=_number(audit, "top_k", awhere, int),
            warn_margin=_number(audit, "warn_margin", awhere),
        )
        if settings.min_frequency < 1 or settings.top_k < 1 or settings.audit_top_k < 1:
            raise ConfigError(f"{where}: min_frequency, top_k and audit.top_k must be >= 1")
        if not 0 <= settings.top_min_p <= 1:
            raise ConfigError(f"{where}.top_min_p: expected a probability, got {settings.top_min_p}")
        if settings.folds < 2 or settings.alpha <= 0:
            raise ConfigError(f"{awhere}: folds must be >= 2 and alpha > 0")
        return settings

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
