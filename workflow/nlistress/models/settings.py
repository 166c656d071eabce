"""The ``models`` section of params.yaml: the zoo, training defaults, the run matrix.

A zoo entry names an architecture and only the settings it changes; every
other setting comes from ``models.training`` / ``models.text``, so one edit to
the defaults reaches every model and a model entry stays readable. The rule
file and the subcommands resolve models through this one module, so both see
the same merged settings and the same validation errors (named by key path).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from ..config import DatasetSpec, deep_merge, test_targets
from ..errors import ConfigError
from ..perturb.runner import dataset_language
from ..schema import checked_section
from .encoders import ARCHS as ENCODERS
from .text import tokenizer_for

# Training variants: which extra training data each one reads (see models.data).
VARIANTS = ("plain", "negation", "permute", "max_entropy")
ENCODER_ARCHS = tuple(ENCODERS)
TRANSFORMER_ARCH = "transformer"
# Naik et al.'s bag-of-words alignment baseline (nlistress.models.align).
ALIGN_ARCH = "align"
ARCHS = (*ENCODER_ARCHS, TRANSFORMER_ARCH, ALIGN_ARCH)
# Interaction models compare the two sentences word by word: no hypothesis-only form.
INTERACTION_ARCHS = (*(name for name, arch in ENCODERS.items() if arch.pairwise), ALIGN_ARCH)
# Where a model's training data comes from: models.<key>, or the zoo entry's own.
SPLIT_KEYS = ("train_split", "dev_split")


def _section(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """``models``, its shape (keys, types, enums, bounds) checked by the schema."""
    return checked_section(params, "models")


@dataclass(frozen=True)
class ModelSpec:
    """One zoo model: its name, architecture and fully merged settings."""

    name: str
    arch: str
    hypothesis_only: bool
    settings: dict[str, Any]

    @property
    def kind(self) -> str:
        """How the model is trained and loaded: ``transformer``, ``align`` or ``encoder``."""
        return self.arch if self.arch in (TRANSFORMER_ARCH, ALIGN_ARCH) else "encoder"

    def for_language(self, language: str) -> ModelSpec:
        """This model trained on text in ``language``: its tokeniser (``text.tokenizers``)
        resolved and both recorded in the settings, which ``config.json`` keeps."""
        settings = {**self.settings, "language": language,
                    "tokenizer": tokenizer_for(self.settings, language)}  # fmt: skip
        return ModelSpec(self.name, self.arch, self.hypothesis_only, settings)


def model_spec(params: Mapping[str, Any], name: str) -> ModelSpec:
    """Resolve ``models.zoo.<name>`` over ``models.training`` and ``models.text``."""
    section = _section(params)
    zoo = section.get("zoo") or {}
    if name not in zoo:
        known = ", ".join(sorted(zoo)) or "none"
        raise ConfigError(f"models.zoo: unknown model {name!r} (known: {known})")
    entry = zoo[name]
    where = f"models.zoo.{name}"
    arch = entry["arch"]
    defaults = deep_merge(section.get("training") or {}, section.get("text") or {})
    settings = deep_merge(defaults, entry)
    hypothesis_only = settings.setdefault("hypothesis_only", False)
    if hypothesis_only and arch in INTERACTION_ARCHS:
        encoders = ", ".join(a for a in ENCODER_ARCHS if a not in INTERACTION_ARCHS)
        raise ConfigError(
            f"{where}.hypothesis_only: {arch} aligns premise and hypothesis words, so it has "
            f"no hypothesis-only form; use a sentence encoder ({encoders})"
        )
    if arch == TRANSFORMER_ARCH and not settings.get("checkpoint"):
        raise ConfigError(f"{where}.checkpoint: a transformer needs a model name or local folder")
    if arch == TRANSFORMER_ARCH and settings.get("ensemble", 1) != 1:
        raise ConfigError(f"{where}.ensemble: ensembles are built of encoder models, not transformers")
    for key in SPLIT_KEYS:
        if key in entry:
            split_of(params, key, name)
    if settings.get("unknown") == "drop" and not settings.get("glove"):
        raise ConfigError(f"{where}.unknown: drop keeps only words with a GloVe vector, so it needs glove")
    widths, longest = settings.get("char_widths"), settings.get("char_max_length")
    if widths and longest and max(widths) > longest:
        raise ConfigError(f"{where}.char_widths: a filter of {max(widths)} characters is wider than "
                          f"char_max_length {longest}")  # fmt: skip
    if arch == ALIGN_ARCH:
        from .align import FeatureSettings

        FeatureSettings.from_settings(settings, where)
    return ModelSpec(name, str(arch), hypothesis_only, settings)


def seed(params: Mapping[str, Any]) -> int:
    return int(_section(params).get("seed", 0))


def resolve_device(params: Mapping[str, Any]) -> torch.device:
    """``models.device``: ``auto`` is CUDA when a GPU is visible, else the CPU."""
    name = str(_section(params).get("device", "auto"))
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ConfigError(f"models.device: not a torch device: {name!r}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"models.device: {name!r} requested but no CUDA GPU is visible")
    return device


def predict_settings(params: Mapping[str, Any]) -> dict[str, Any]:
    """``models.predict``: inference batch size, chunk size, mixed precision."""
    settings = dict(_section(params)["predict"])
    settings.setdefault("mixed_precision", True)
    return settings


def split_of(params: Mapping[str, Any], key: str, model: str | None = None) -> tuple[str, str] | None:
    """``models.<key>`` (train_split / dev_split) as (dataset, split), validated; None if null.

    With ``model``, its zoo entry's own ``<key>`` wins: ``train_split: ocnli/train``
    trains that model on OCNLI while the others train on ``models.train_split``.
    """
    if key not in SPLIT_KEYS:
        raise ValueError(f"not a split key: {key!r}")
    section = _section(params)
    entry = ((section.get("zoo") or {}).get(model) or {}) if model is not None else {}
    where = f"models.zoo.{model}.{key}" if key in entry else f"models.{key}"
    value = entry[key] if key in entry else section.get(key)
    if value is None:
        return None
    dataset, sep, split = str(value).partition("/")
    if not sep:
        raise ConfigError(f"{where}: expected dataset/split, e.g. mnli/train, got {value!r}")
    DatasetSpec.from_params(params, dataset).split(split)
    return dataset, split


def training_language(params: Mapping[str, Any], model: str) -> str:
    """The language of ``model``'s training split (``datasets.<name>.language``)."""
    train = split_of(params, "train_split", model)
    if train is None:
        raise ConfigError(f"models.train_split: every model needs a training split, {model!r} has none")
    return dataset_language(params, train[0])


def runs(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(model, variant) pairs of ``models.runs``, every name checked against the zoo."""
    selection = _section(params).get("runs") or {}
    pairs = []
    for name, variants in selection.items():
        model_spec(params, str(name))
        pairs.extend((str(name), str(variant)) for variant in variants)
    return pairs


def evaluation_targets(params: Mapping[str, Any], model: str | None = None) -> list[tuple[str, str, str, str]]:
    """(family, test, dataset, split) of every set a trained model runs on.

    ``models.evaluate.canonical`` lists canonical splits (family ``canonical``,
    test ``""``); ``models.evaluate.families`` maps a set family (stress,
    permute, ...) to the tests whose built sets (``<family>.sets``) are used.
    With ``model``, only the sets in the language of its training split: a model
    trained on OCNLI runs on the Chinese sets, one trained on MNLI on the English ones;
    and a zoo entry's ``evaluate_families`` (e.g. ``[stress]`` for a model that only
    fills Naik et al.'s tables) keeps the canonical splits and those families' sets.
    """
    targets = _evaluation_targets(params)
    if model is None:
        return targets
    language = training_language(params, model)
    families = ((_section(params).get("zoo") or {}).get(model) or {}).get("evaluate_families")
    return [t for t in targets if dataset_language(params, t[2]) == language
            and (families is None or t[0] == "canonical" or t[0] in families)]  # fmt: skip


def _evaluation_targets(params: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    evaluate = _section(params).get("evaluate") or {}
    targets: list[tuple[str, str, str, str]] = []
    for source in evaluate.get("canonical") or []:
        dataset, sep, split = str(source).partition("/")
        if not sep:
            raise ConfigError(f"models.evaluate.canonical: expected dataset/split, got {source!r}")
        DatasetSpec.from_params(params, dataset).split(split)
        targets.append(("canonical", "", dataset, split))
    families = evaluate.get("families") or {}
    for family, tests in families.items():
        if family not in params:
            raise ConfigError(f"models.evaluate.families: no params section {family!r}")
        known = (params[family] or {}).get("tests") or {}
        unknown = [t for t in tests if t not in known]
        if unknown:
            raise ConfigError(
                f"models.evaluate.families.{family}: unknown test(s) {', '.join(map(str, unknown))}"
            )
        for test, dataset, split in test_targets(params, str(family), "sets"):
            if test in tests:
                targets.append((str(family), test, dataset, split))
    return targets
