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
from .base import Generator

FAMILIES = ("stress", "permute", "swap")
GENERATORS = {
    "tautology": "nlistress.perturb.tautology:Tautology",
    "spelling_error": "nlistress.perturb.spelling:SpellingError",
    "antonymy": "nlistress.perturb.antonymy:Antonymy",
    "numerical": "nlistress.perturb.numerical:Numerical",
    "permute": "nlistress.unli.permute:Permute",
    "swap_pairs": "nlistress.swap.generators:SwapPairs",
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
    settings = deep_merge(settings, overrides or {})
    name = settings.pop("generator", None)
    if not name:
        raise ConfigError(f"{family}.tests.{test}.generator: missing")
    return generator_class(name)(test, settings, params)
