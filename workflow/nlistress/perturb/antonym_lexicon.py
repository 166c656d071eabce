"""What WordNet says about a word's antonyms, for the antonymy generator.

WordNet is asked once per (lemma, part of speech): whether any sense of the
lemma has antonyms at all, and if so which senses and antonyms there are, so
Lesk only runs for words that can be replaced. A verb's antonym counts only
where ``verb_pairs`` lists the pair, and a word's negative-prefix twin
("comfortable"/"uncomfortable") counts as the antonym of its most frequent
sense where WordNet has both words but no link between them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# A replaceable word: letters, possibly joined by hyphens or apostrophes.
WORD = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")
# Negative prefixes of English adjectives, and words that only look prefixed or negated
# ("invaluable" is not "not valuable", "inflammable" means "flammable").
_NEGATIVE_PREFIXES = ("un", "in", "im", "il", "ir", "dis")
_FALSE_PREFIXES = frozenset(
    {"invaluable", "valuable", "inflammable", "flammable", "infamous", "famous", "indifferent",
     "different", "disinterested", "interested", "impassive", "passive", "inhabitable",
     "habitable", "unless", "less", "important", "portant", "impressive", "pressive", "unique",
     "union", "universal", "until", "intense", "tense", "imminent", "minent", "disposable",
     "posable", "innocent", "nocent", "inside", "side", "ill", "disgusting", "gusting",
     "distant", "tant", "disturbing", "turbing", "unit", "income", "come", "illegal"}
)
# WordNet attributes of physical adjectives, which only physical things have.
_PHYSICAL_PROPERTIES = frozenset(
    {"physical_property.n.01", "visual_property.n.01", "fullness.n.01", "fullness.n.03"}
)


@dataclass(frozen=True)
class Sense:
    """One WordNet sense of a lemma and the antonyms of that lemma in it."""

    lemma: Any  # nltk Lemma of the word in this synset
    antonyms: tuple[Any, ...]  # nltk Lemmas, sorted by (name, synset)


@dataclass(frozen=True)
class Entry:
    """What WordNet knows about one (lemma, pos): its senses for Lesk, and which have antonyms."""

    synsets: tuple[Any, ...]
    senses: Mapping[str, Sense]  # synset name -> sense, only senses with antonyms
    #: the antonym lemma name with the largest share of the lemma's SemCor frequency, and the share
    dominant: tuple[str, float]
    #: index in ``synsets`` of the lemma's most frequent sense (SemCor counts; WordNet order breaks ties)
    most_frequent: int


class AntonymLexicon:
    """WordNet lookups of one generator's settings, cached per lemma and sense."""

    def __init__(self, verb_pairs: frozenset[tuple[str, str]], prefix_antonyms: bool) -> None:
        self.verb_pairs = verb_pairs  # (word, antonym) both ways
        self.prefix_antonyms = prefix_antonyms
        self._entries: dict[tuple[str, str, bool], Entry | None] = {}
        self._physical_senses: dict[str, bool] = {}
        self._relational_lemmas: dict[str, bool] = {}

    def entry(self, wn: Any, lemma: str, wn_pos: str, any_verb: bool = False) -> Entry | None:
        """Senses of ``lemma`` for Lesk, or None when no sense of it has an antonym (cached);
        a verb's antonym only from ``verb_pairs`` unless ``any_verb``."""
        key = (lemma, wn_pos, any_verb)
        if key in self._entries:
            return self._entries[key]
        entry = None
        name = lemma.replace(" ", "_")
        synsets = tuple(wn.synsets(name, wn_pos))
        senses: dict[str, Sense] = {}
        weight: Counter[str] = Counter()
        frequency: list[int] = []
        for synset in synsets:
            frequency.append(0)
            for lem in synset.lemmas():
                if lem.name().lower() != name:
                    continue
                frequency[-1] = lem.count()
                antonyms = sorted(
                    (a for a in lem.antonyms()
                     if a.name().lower() != name and (any_verb or self.listed(name, a, wn_pos))),
                    key=lambda a: (a.name(), a.synset().name()),
                )
                if antonyms:
                    senses[synset.name()] = Sense(lem, tuple(antonyms))
                    # The word's frequency in this sense, shared among its antonyms by their
                    # own frequency ("early": late 33, middle 1).
                    own = [a.count() + 1 for a in antonyms]
                    for antonym, n in zip(antonyms, own, strict=True):
                        weight[antonym.name().lower()] += lem.count() * n / sum(own)
                break
        most_frequent = max(range(len(synsets)), key=lambda i: (frequency[i], -i)) if synsets else 0
        if synsets and synsets[most_frequent].name() not in senses and self.prefix_antonyms:
            derived = self.prefix_antonym(wn, name, wn_pos, synsets[most_frequent])
            if derived is not None and (any_verb or self.listed(name, derived.antonyms[0], wn_pos)):
                senses[synsets[most_frequent].name()] = derived
                weight[derived.antonyms[0].name().lower()] += max(derived.lemma.count(), 1)
        if senses:
            total = sum(weight.values())
            top = min(weight, key=lambda a: (-weight[a], a))
            entry = Entry(
                synsets, senses, (top, weight[top] / total if total else 0.0), most_frequent
            )
        self._entries[key] = entry
        return entry

    def listed(self, name: str, antonym: Any, wn_pos: str) -> bool:
        """``antonym`` may replace ``name``: any antonym of an adjective or adverb, and of a
        verb only a partner in ``verb_pairs`` ("like"/"dislike", not "buy"/"sell")."""
        return wn_pos != "v" or (name, antonym.name().lower()) in self.verb_pairs

    @staticmethod
    def analytic_degree(token: Any, sense: Sense) -> bool:
        """ "more"/"most" grades the word, and an antonym has its own -er/-est form
        ("more difficult" -> "more easy" should be "easier")."""
        degree = next((c.lower_ for c in token.children if c.lower_ in ("more", "most")), None)
        if degree is None:
            return False
        from lemminflect import getInflection

        tag = "JJR" if degree == "more" else "JJS"
        return any(
            (forms := getInflection(a.name(), tag, inflect_oov=False)) and not forms[0].startswith(degree)
            for a in sense.antonyms
            if "_" not in a.name()
        )

    @staticmethod
    def prefix_antonym(wn: Any, name: str, wn_pos: str, synset: Any) -> Sense | None:
        """``name``'s negative-prefix twin ("comfortable" <-> "uncomfortable") as the antonym of
        its most frequent sense, where WordNet has the twin but no antonym link between them."""
        lemma = next((x for x in synset.lemmas() if x.name().lower() == name), None)
        if lemma is None or name in _FALSE_PREFIXES:
            return None
        twins = [p + name for p in _NEGATIVE_PREFIXES]
        twins += [name[len(p):] for p in _NEGATIVE_PREFIXES if name.startswith(p)]
        for twin in twins:
            if twin in _FALSE_PREFIXES or len(twin) < 4:
                continue
            found = wn.synsets(twin, wn_pos)
            if found:
                other = next((x for x in found[0].lemmas() if x.name().lower() == twin), None)
                if other is not None and other.count() >= 1:  # attested: not "unexcited"
                    return Sense(lemma, (other,))
        return None

    @staticmethod
    def lemmas(wn: Any, token: Any, wn_pos: str) -> list[str]:
        """The lemmas ``token`` may be in WordNet: spaCy's, then WordNet's morphy."""
        lemmas = [token.lemma_.lower()]
        morphy = wn.morphy(token.lower_, wn_pos)
        if morphy and morphy not in lemmas:
            lemmas.append(morphy)
        return [lemma for lemma in lemmas if WORD.fullmatch(lemma)]

    def lookup(self, wn: Any, token: Any, wn_pos: str) -> tuple[str, Entry] | None:
        """The WordNet lemma of ``token`` and its entry: spaCy's lemma, else WordNet's morphy."""
        for lemma in self.lemmas(wn, token, wn_pos):
            entry = self.entry(wn, lemma, wn_pos)
            if entry is not None:
                return lemma, entry
        return None

    def unlisted_verb(self, wn: Any, token: Any) -> bool:
        """``token`` is a verb with an antonym (WordNet's or its prefix twin) that ``verb_pairs``
        leaves out ("sells", "did"), so a sentence with nothing else to replace is counted
        apart from one whose words have no antonym at all."""
        return any(self.entry(wn, lemma, "v", any_verb=True) is not None for lemma in self.lemmas(wn, token, "v"))

    def physical(self, synset: Any) -> bool:
        """The sense names a physical or visual property (temperature, weight, brightness, colour)."""
        name = synset.name()
        if name not in self._physical_senses:
            paths = {s.name() for a in synset.attributes() for p in a.hypernym_paths() for s in p}
            paths |= {a.name() for a in synset.attributes()}
            self._physical_senses[name] = bool(paths & _PHYSICAL_PROPERTIES)
        return self._physical_senses[name]

    def relational(self, wn: Any, lemma: str) -> bool:
        """Some sense of the adjective relates to a noun (a WordNet pertainym: "legal" to law).

        Before a noun such an adjective usually classifies ("a legal aid center",
        "national parks"), and its antonym names another kind of thing.
        """
        if lemma not in self._relational_lemmas:
            self._relational_lemmas[lemma] = any(
                lem.pertainyms()
                for synset in wn.synsets(lemma, "a")
                for lem in synset.lemmas()
                if lem.name().lower() == lemma
            )
        return self._relational_lemmas[lemma]
