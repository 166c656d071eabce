"""NLP resources (spaCy pipeline, WordNet) located through params, loaded once per process.

Users get them with `python -m spacy download en_core_web_sm` and
`python -m nltk.downloader wordnet`; offline runs point `resources` in params
at local copies (tests/shared.yaml does). A missing resource is reported with
the command that installs it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from .errors import ConfigError

#: spaCy coarse tag -> WordNet part of speech (adjective satellites count as "a"); the
#: schema's ``stress.tests.*.pos`` lists the same tags
WORDNET_POS = {"ADJ": "a", "NOUN": "n", "VERB": "v", "ADV": "r"}


def _section(params: Mapping[str, Any]) -> Mapping[str, Any]:
    return params.get("resources") or {}


@functools.cache
def _load_spacy(model: str, disable: tuple[str, ...]) -> Any:
    import spacy

    try:
        return spacy.load(model, disable=list(disable))
    except OSError as exc:
        raise ConfigError(
            f"resources.spacy_model: cannot load {model!r} ({exc}); install it with "
            "`python -m spacy download en_core_web_sm` or point it at a model folder"
        ) from None


def spacy_pipeline(params: Mapping[str, Any], disable: tuple[str, ...] = ()) -> Any:
    """The configured spaCy pipeline with the named components disabled (cached)."""
    return _load_spacy(str(_section(params).get("spacy_model", "en_core_web_sm")), disable)


def wordnet(params: Mapping[str, Any]) -> Any:
    """NLTK's WordNet reader, searching ``resources.nltk_data`` first."""
    import nltk
    from nltk.corpus import wordnet as wn

    extra = _section(params).get("nltk_data")
    if extra and str(extra) not in nltk.data.path:
        nltk.data.path.insert(0, str(extra))
    try:
        wn.ensure_loaded()
    except LookupError:
        raise ConfigError(
            "WordNet not found: run `python -m nltk.downloader wordnet` or set "
            "resources.nltk_data to a folder holding corpora/wordnet (a folder or wordnet.zip)"
        ) from None
    return wn
