"""Word-pair lexicons: antonyms and hyponym/hypernym pairs, plus WordNet substitutes.

A lexicon maps an ordered pair (premise word, hypothesis word) to the relation
of the first word to the second: ``antonym`` (both orders), ``hyponym`` (the
first is a kind of the second) or ``hypernym`` (the second is a kind of the
first). Sources (``swap.lexicons`` in params.yaml):

- antonyms: ``wordnet`` (every WordNet lemma antonym pair) or ``file``, a list
  in the format of Mohammad et al. (2013): one word per line followed by its
  antonyms, separated by tabs or spaces (``good bad evil``). Walking all of
  WordNet for its antonyms takes longer than building a set from SNLI train,
  so the pipeline writes the WordNet list once in that format
  (:func:`write_antonym_file`) and every swap job reads the file;
- hypernyms: ``baroni2012`` (the paper's source: ``word1 word2 label`` with a
  header, True = word1 is a kind of word2; False rows are not pairs) or
  ``wordnet`` (noun hypernyms up to ``wordnet_depth`` levels up).

Entries that are not a single word under ``tokens.WORD`` (WordNet's
``ice_cream``) can never match a sentence and are left out (and counted).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from ..errors import ConfigError, DataError
from ..resources import wordnet
from .tokens import is_word

ANTONYM_SOURCES = ("wordnet", "file")
HYPERNYM_SOURCES = ("baroni2012", "wordnet")
#: kinds of WordNet substitute for I_TA2/I_TA3: how the substitute relates to the word it stands for
SUBSTITUTE_KINDS = ("synonym", "hyponym", "hypernym")


@dataclass(frozen=True)
class Lexicon:
    """Ordered word pairs and their relation, with where they came from."""

    name: str
    pairs: Mapping[tuple[str, str], str]
    #: entries left out because a word is not a single token
    skipped: int = 0

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "ordered_pairs": len(self.pairs), "skipped_entries": self.skipped}


def _add(pairs: dict[tuple[str, str], str], a: str, b: str, relation: str) -> None:
    """Record a pair unless it is already there (the first relation seen wins)."""
    if a != b:
        pairs.setdefault((a, b), relation)


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8-sig").splitlines()
    except FileNotFoundError:
        raise DataError(path, "lexicon file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, f"cannot read lexicon ({exc})") from None


def _lemma_word(name: str) -> str | None:
    """A WordNet lemma name as a lowercase word, or None when it is not a single word."""
    word = name.lower()
    return word if is_word(word) else None


@functools.cache
def _wordnet_antonyms(nltk_data: str | None) -> Lexicon:
    wn = wordnet({"resources": {"nltk_data": nltk_data}})
    pairs: dict[tuple[str, str], str] = {}
    skipped = 0
    for synset in wn.all_synsets():
        for lemma in synset.lemmas():
            for antonym in lemma.antonyms():
                a, b = _lemma_word(lemma.name()), _lemma_word(antonym.name())
                if a is None or b is None:
                    skipped += 1
                    continue
                _add(pairs, a, b, "antonym")
                _add(pairs, b, a, "antonym")
    return Lexicon("WordNet antonyms", dict(sorted(pairs.items())), skipped)


def read_antonym_file(path: str | Path) -> Lexicon:
    """Antonym pairs from a Mohammad et al. (2013)-style list: ``word antonym [antonym ...]``.

    Lines starting with ``#`` and blank lines are ignored; a line with a
    single word has no antonym and is an error (it is almost always a
    delimiter problem).
    """
    path = Path(path)
    pairs: dict[tuple[str, str], str] = {}
    skipped = 0
    for number, line in enumerate(_read_lines(path), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 2:
            raise DataError(path, f"expected a word and at least one antonym, got {line!r}", number)
        head = fields[0].lower()
        for other in fields[1:]:
            other = other.lower()
            if not (is_word(head) and is_word(other)):
                skipped += 1
                continue
            _add(pairs, head, other, "antonym")
            _add(pairs, other, head, "antonym")
    if not pairs:
        raise DataError(path, "no antonym pairs")
    return Lexicon(f"antonyms from {path.name}", dict(sorted(pairs.items())), skipped)


def read_baroni(path: str | Path) -> Lexicon:
    """Hyponym/hypernym pairs of Baroni et al. (2012): ``word1 word2 label``, True rows only."""
    path = Path(path)
    lines = _read_lines(path)
    if not lines or lines[0].split() != ["word1", "word2", "label"]:
        raise DataError(path, "expected the header 'word1 word2 label'", 1)
    pairs: dict[tuple[str, str], str] = {}
    skipped = 0
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 3 or fields[2].strip() not in ("True", "False"):
            raise DataError(path, f"expected word1<TAB>word2<TAB>True|False, got {line!r}", number)
        if fields[2].strip() == "False":
            continue
        hyponym, hypernym = fields[0].strip().lower(), fields[1].strip().lower()
        if not (is_word(hyponym) and is_word(hypernym)):
            skipped += 1
            continue
        _add(pairs, hyponym, hypernym, "hyponym")
        _add(pairs, hypernym, hyponym, "hypernym")
    if not pairs:
        raise DataError(path, "no True (entailing) pairs")
    return Lexicon("Baroni et al. (2012) noun entailment pairs", dict(sorted(pairs.items())), skipped)


@functools.cache
def _wordnet_hypernyms(nltk_data: str | None, depth: int) -> Lexicon:
    wn = wordnet({"resources": {"nltk_data": nltk_data}})
    pairs: dict[tuple[str, str], str] = {}
    skipped = 0
    for synset in wn.all_synsets("n"):
        above, frontier = set(), {synset}
        for _ in range(depth):
            frontier = {h for s in frontier for h in s.hypernyms() + s.instance_hypernyms()}
            above |= frontier
        for lemma in synset.lemma_names():
            for hyper in sorted({n for h in above for n in h.lemma_names()}):
                a, b = _lemma_word(lemma), _lemma_word(hyper)
                if a is None or b is None:
                    skipped += 1
                    continue
                _add(pairs, a, b, "hyponym")
                _add(pairs, b, a, "hypernym")
    return Lexicon(f"WordNet noun hypernyms (depth {depth})", dict(sorted(pairs.items())), skipped)


def _nltk_data(params: Mapping[str, Any]) -> str | None:
    value = (params.get("resources") or {}).get("nltk_data")
    return str(value) if value else None


def wordnet_antonyms(params: Mapping[str, Any]) -> Lexicon:
    """Every WordNet lemma antonym pair, read from WordNet itself (slow: it walks every synset)."""
    return _wordnet_antonyms(_nltk_data(params))


def write_antonym_file(lexicon: Lexicon, path: str | Path) -> int:
    """Write ``lexicon`` in Mohammad et al.'s format, one head word per line; return the lines.

    Lines are sorted and the header states what was left out, so the same
    WordNet gives the same bytes and :func:`read_antonym_file` gives back the
    same pairs.
    """
    antonyms: dict[str, list[str]] = {}
    for (a, b), relation in lexicon.pairs.items():
        if relation != "antonym":
            raise ValueError(f"write_antonym_file: ({a}, {b}) is a {relation} pair, not antonyms")
        antonyms.setdefault(a, []).append(b)
    lines = [
        f"# {lexicon.name}: {len(lexicon.pairs)} ordered pairs; {lexicon.skipped} entries left "
        "out (not a single word)",
        "# format of Mohammad et al. (2013): word antonym [antonym ...]",
        *(f"{head}\t{' '.join(sorted(others))}" for head, others in sorted(antonyms.items())),
    ]
    write_text_atomic(Path(path), "\n".join(lines) + "\n")
    return len(antonyms)


def antonym_lexicon(section: Mapping[str, Any], params: Mapping[str, Any]) -> Lexicon:
    """The antonym lexicon of ``swap.lexicons.antonyms``.

    ``source: wordnet`` reads the list the pipeline wrote to ``path`` (rule
    ``antonym_lexicon``), or walks WordNet when ``path`` is null; ``source:
    file`` reads the user's list at ``path``.
    """
    source = section.get("source", "wordnet")
    path = section.get("path")
    if source == "wordnet":
        if not path:
            return wordnet_antonyms(params)
        if not Path(path).is_file():
            raise ConfigError(
                f"swap.lexicons.antonyms.path: {path} not found; build it with `snakemake {path}` "
                f"or `nlistress antonym-lexicon -o {path}`, or set path to null to read WordNet "
                "directly (slower)"
            )
        lexicon = read_antonym_file(path)
        return Lexicon(f"WordNet antonyms ({path})", lexicon.pairs, lexicon.skipped)
    if source == "file":
        if not path:
            raise ConfigError("swap.lexicons.antonyms.path: required when source is file")
        return read_antonym_file(path)
    raise ConfigError(
        f"swap.lexicons.antonyms.source: {source!r} (expected one of {', '.join(ANTONYM_SOURCES)})"
    )


def hypernym_lexicon(section: Mapping[str, Any], params: Mapping[str, Any]) -> Lexicon:
    """The hyponym/hypernym lexicon of ``swap.lexicons.hypernyms``."""
    source = section.get("source", "baroni2012")
    if source == "baroni2012":
        if not section.get("path"):
            raise ConfigError("swap.lexicons.hypernyms.path: required when source is baroni2012")
        return read_baroni(section["path"])
    if source == "wordnet":
        depth = section.get("wordnet_depth", 1)
        if not isinstance(depth, int) or depth < 1:
            raise ConfigError(f"swap.lexicons.hypernyms.wordnet_depth: expected an integer >= 1, got {depth!r}")
        return _wordnet_hypernyms(_nltk_data(params), depth)
    raise ConfigError(
        f"swap.lexicons.hypernyms.source: {source!r} (expected one of {', '.join(HYPERNYM_SOURCES)})"
    )


#: kinship nouns need a possessor ("a son up in a tree"), so they never stand in for another word
KINSHIP = frozenset(
    {
        *("wife", "husband", "son", "daughter", "mother", "father", "brother", "sister"),
        *("aunt", "uncle", "niece", "nephew", "cousin", "grandson", "granddaughter", "sibling"),
        *("parent", "child", "offspring", "spouse", "widow", "widower", "fiance", "fiancee"),
    }
)


@functools.cache
def _substitutes(nltk_data: str | None, stays: str, goes: str) -> tuple[tuple[str, str, str], ...]:
    wn = wordnet({"resources": {"nltk_data": nltk_data}})
    found: dict[str, tuple[str, str]] = {}
    for pos in ("n", "v", "a", "r"):
        senses = wn.synsets(stays, pos)
        if not senses:
            continue
        # Only the word's first (most frequent) sense, and only where the pair are antonyms
        # in it: "head"/"foot" are antonyms as the ends of a thing, not as body parts.
        synset = senses[0]
        lemma = next((x for x in synset.lemmas() if x.name().lower() == stays), None)
        if lemma is None or not any(a.name().lower() == goes for a in lemma.antonyms()):
            continue
        relatives = {
            # adjectives have no hyponyms; their satellites ("elderly" for "old") are near-synonyms
            "synonym": [synset, *synset.similar_tos()],
            "hyponym": synset.hyponyms() + synset.instance_hyponyms(),
            "hypernym": synset.hypernyms() + synset.instance_hypernyms(),
        }
        for kind in SUBSTITUTE_KINDS:  # a word related in several ways keeps the first kind
            for relative in relatives[kind]:
                for name in relative.lemma_names():
                    other = _lemma_word(name)
                    if other is None or other in (stays, goes) or other in KINSHIP:
                        continue
                    # The relative must be the substitute's own first (most frequent) sense:
                    # "cat" is a kind of man only in a slang sense, "wave" a woman only in the navy.
                    senses = wn.synsets(name, relative.pos())
                    if senses and senses[0] == relative and _mostly(wn, name, pos):
                        found.setdefault(other, (kind, pos))
    return tuple(sorted((word, kind, pos) for word, (kind, pos) in found.items()))


def _mostly(wn: Any, name: str, pos: str) -> bool:
    """``name`` is used mostly as ``pos`` in SemCor ("outdoors" is an adverb far more than a noun)."""
    counts: dict[str, int] = {}
    for synset in wn.synsets(name):
        p = "a" if synset.pos() == "s" else synset.pos()
        for lemma in synset.lemmas():
            if lemma.name() == name:
                counts[p] = counts.get(p, 0) + lemma.count()
    return counts.get(pos, 0) >= max(counts.values(), default=0)


def substitutes(stays: str, goes: str, params: Mapping[str, Any]) -> tuple[tuple[str, str, str], ...]:
    """(substitute, kind, WordNet pos) for ``stays`` in the sense where ``goes`` is its antonym.

    That sense must be the first (most frequent) sense of ``stays`` in its
    part of speech. Synonyms (and, for adjectives, WordNet's similar satellites), hyponyms and
    hypernyms of that one synset, each only where that synset is the
    substitute's own most frequent sense and that part of speech its most
    frequent one ("the outdoors of a house"), and no kinship noun: a substitute
    from another sense or part of speech gives incoherent sentences ("A wave
    in all black", "The make taught", "A cat is jumping over a rock"). ``kind`` says how the substitute relates to ``stays``
    (``hyponym``: the substitute is a kind of ``stays``). Cached, sorted.
    """
    return _substitutes(_nltk_data(params), stays, goes)
