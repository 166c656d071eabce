"""Helpers shared by the rule files: registry look-ups and config hand-off."""

import glob
import json
import re

from nlistress.config import EXTENDS, DatasetSpec, canonical_targets, test_targets

# A profile's `extends` names its base for `nlistress --params`; here --configfile is
# always merged over params.yaml, so the key has nothing left to say.
config.pop(EXTENDS, None)

# (dataset, split) pairs the default target builds; validates the registry up front.
CANONICAL = canonical_targets(config)


def _names(mapping):
    """A regex matching exactly the given registry names (never matches if empty)."""
    return "|".join(re.escape(name) for name in mapping) or "(?!)"


# Dataset and test names come from the registry, so `mnli_dev_matched` splits
# unambiguously into dataset `mnli` and split `dev_matched`.
wildcard_constraints:
    dataset=_names(config.get("datasets", {})),
    test=_names([t for f in ("stress", "permute", "swap") for t in config.get(f, {}).get("tests", {})]),
    family="stress|permute|swap",
    split="[A-Za-z0-9_.-]+",
    download=_names(config.get("downloads", {})),


def dataset_spec(name):
    return DatasetSpec.from_params(config, name)


def config_json(**sections):
    """The resolved config sections a `nlistress` call needs, as one JSON argument.

    Passing what Snakemake resolved (params.yaml plus any --configfile
    overrides) keeps the rule and the subcommand on exactly the same settings.
    """
    return json.dumps(sections, sort_keys=True)
