"""``nlistress antonym-lexicon``: the WordNet antonym list the swap sets read."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..cli_support import add_params_options, params_from_args

log = logging.getLogger("nlistress")


def cmd_antonym_lexicon(args: argparse.Namespace) -> None:
    from .lexicons import wordnet_antonyms, write_antonym_file

    lexicon = wordnet_antonyms(params_from_args(args))
    lines = write_antonym_file(lexicon, args.output)
    log.info(
        "%s: %d ordered pairs (%d words), %d multi-word entries left out -> %s",
        lexicon.name, len(lexicon.pairs), lines, lexicon.skipped, args.output,
    )  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    """Add the swap subcommands to the ``nlistress`` parser (sets are built by ``perturb``)."""
    p = sub.add_parser(
        "antonym-lexicon",
        help="write every WordNet antonym pair as a list (Mohammad et al. format) for the swap sets",
        description="Walk WordNet (resources.nltk_data) once and write every lemma antonym pair "
        "whose words are single tokens, one head word per line followed by its antonyms, to "
        "OUT. swap.lexicons.antonyms.path names this file when the source is wordnet.",
    )
    p.add_argument("-o", "--output", type=Path, required=True, help="antonym list to write")
    add_params_options(p)
    p.set_defaults(func=cmd_antonym_lexicon)
