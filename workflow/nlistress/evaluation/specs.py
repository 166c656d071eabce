"""``--model SPEC``: what answers the questions.

* a folder: a model ``nlistress train`` wrote, or a Hugging Face
  sequence-classification checkpoint of your own; a bare name is a zoo model,
  ``data/models/NAME/VARIANT``;
* ``predictions:FILE``: one JSON-lines or Parquet file keyed by uid, covering
  any number of sets; ``predictions:FOLDER``: the pipeline's layout,
  ``FOLDER/<family>/<test>/<dataset>_<split>.parquet`` (and
  ``FOLDER/canonical/<dataset>_<split>.parquet`` for the original examples);
* ``llm:PATH_OR_NAME``: a causal language model, prompted (``models.llm``);
* ``openai:MODEL``: an OpenAI-compatible endpoint (``--base-url``, ``models.openai``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

KINDS = ("model", "predictions", "llm", "openai")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]+")


@dataclass(frozen=True)
class ModelSpec:
    """A parsed ``--model`` value; ``name`` is what the tables call it."""

    kind: str
    target: str
    name: str

    @property
    def runs_a_model(self) -> bool:
        """Whether answers must be computed (else they are read from files)."""
        return self.kind != "predictions"


def _safe_name(text: str) -> str:
    """A table and file name: letters, digits and ``_ . + -`` (the swap statistics' rule)."""
    name = _UNSAFE.sub("-", text).strip("-.") or "model"
    return name if name[0].isalnum() else f"m{name}"


def parse_spec(spec: str, variant: str = "plain", name: str | None = None) -> ModelSpec:
    """Parse ``--model``; a zoo name becomes ``data/models/NAME/VARIANT``."""
    if not spec or not spec.strip():
        raise ConfigError("--model: give a model folder, a zoo name, predictions:FILE, llm:NAME or openai:MODEL")
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in ("predictions", "llm", "openai"):
        if not rest:
            raise ConfigError(f"--model {spec!r}: nothing after {prefix}:")
        label = Path(rest).name if prefix == "predictions" else rest.rstrip("/").split("/")[-1]
        default = f"{prefix}-{label.removesuffix('.jsonl').removesuffix('.parquet')}"
        return ModelSpec(prefix, rest, _safe_name(name or default))
    path = Path(spec)
    if not path.exists() and "/" not in spec:  # a zoo name
        path = Path("data/models") / spec / variant
        return ModelSpec("model", str(path), _safe_name(name or f"{spec}.{variant}"))
    return ModelSpec("model", spec, _safe_name(name or path.resolve().name))
