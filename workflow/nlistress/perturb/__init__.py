"""Test-set generators, looked up by the ``generator:`` name of a test in params.yaml.

Tests live in families, each a params section with its own ``seed`` and
``tests`` (``stress`` for Naik et al., ``permute`` for Sinha et al.); a test
name is unique across families. Modules are imported on first use so that
`nlistress --help` and the cheap generators never pay for spaCy and WordNet.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ..config import deep_merge
from ..errors import ConfigError
from ..schema import validate_params
from .base import Generator

FAMILIES = ("stress", "permute", "swap")
GENERATORS = {
    "tautology": "nlistress.perturb.tautology:Tautology",
    "spelling_error": "nlistress.perturb.spelling:SpellingError",
    "antonymy": "nlistress.perturb.antonymy:Antonymy",
    "numerical": "nlistress.perturb.numerical:Numerical",
    "permute": "nlistress.permutations.permute:Permute",
    "swap_pairs": "nlistress.swap.generators:SwapPairs",
    # Another test's rows, kept where annotators judged every row right (reviews/).
    "reviewed": "nlistress.perturb.reviewed:Reviewed",
    # Paper mode: the authors' own constructions (profiles/paper/params.yaml).
    "tautology_authors": "nlistress.authors.distraction:AuthorsTautology",
    "antonymy_authors": "nlistress.authors.antonymy:AuthorsAntonymy",
    "numerical_authors": "nlistress.authors.numerical:AuthorsNumerical",
    "spelling_authors": "nlistress.authors.spelling:AuthorsSpelling",
    "permute_authors": "nlistress.authors.permute:AuthorsPermute",
}


def generator_class(name: str) -> type[Generator]:
    if name not in GENERATORS:
        raise ConfigError(f"unknown generator {name!r} (known: {', '.join(GENERATORS)})")
    module, cls = GENERATORS[name].split(":")
    return getattr(importlib.import_module(module), cls)


def find_test(params: Mapping[str, Any], test: str) -> tuple[str, dict[str, Any]]:
    """The family a test belongs to and its settings (``<family>.tests.<test>``)."""
    known = []
    for family in FAMILIES:
        tests = (params.get(family) or {}).get("tests") or {}
        if test in tests:
            return family, dict(tests[test])
        known += tests
    raise ConfigError(f"unknown test {test!r} (known: {', '.join(sorted(known))})")


def make_generator(
    test: str, params: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
) -> Generator:
    """The generator of test ``test`` with ``overrides`` merged over its settings."""
    family, settings = find_test(params, test)
    name = settings.get("generator")
    if not name:
        raise ConfigError(f"{family}.tests.{test}.generator: missing")
    unknown = sorted(set(overrides or {}) - known_settings(params, name))
    if unknown:  # a typo (`--set repaet=5`) must not build a set with the default silently
        known = ", ".join(sorted(known_settings(params, name) - {"generator"}))
        raise ConfigError(f"{family}.tests.{test}: unknown setting(s) {', '.join(unknown)} "
                          f"for generator {name} (known: {known})")  # fmt: skip
    if overrides:  # the same schema as params.yaml: `--set q=many` is refused like `q: many`
        validate_params(deep_merge(params, {family: {"tests": {test: dict(overrides)}}}), "--set")
    settings = deep_merge(settings, overrides or {})
    settings.pop("generator")
    return generator_class(name)(test, settings, params)


def known_settings(params: Mapping[str, Any], generator: str) -> set[str]:
    """The settings a generator takes: its declared ``settings_keys``, or else every key a
    test of that generator sets in params (``keep_original`` of negation_augmented counts
    for every tautology test)."""
    declared = generator_class(generator).settings_keys
    if declared is not None:
        return {"generator", *declared}
    keys = {"generator"}
    for family in FAMILIES:
        for settings in ((params.get(family) or {}).get("tests") or {}).values():
            if isinstance(settings, Mapping) and settings.get("generator") == generator:
                keys.update(settings)
    return keys
