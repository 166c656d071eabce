"""Precision filters: which sentences a labelling rule may edit, read off spaCy's parse.

A rule-made label is a claim about meaning: "replacing this adjective by its
antonym makes a contradiction", "prefixing *less than* to a larger number keeps
the sentence true". Such a claim holds only where the edited word is asserted:
in a declarative statement, outside negation, modality, conditionals and
questions. Where it does not hold, the row is dropped, never guessed.

Each check has a name. A generator's ``filters`` setting switches them on or
off (:class:`FilterSwitch`); every unit a filter removes is counted in the
set's manifest under ``filter: <name>``, so ``input = kept + dropped`` still
holds and a reader sees what each filter cost.

The sentence checks look at the spaCy sentence that holds the edited word:

``disfluent``
    transcribed speech: a long sentence (over 15 words) with no capital letter
    and no final stop, a filler (*uh*, *um*, *um-hum*, ...), the lower-case
    pronoun "i", or a word said twice in a row ("it's it's"); or garbled text: a double space before a capital inside
    the sentence ("dangerous to  Every trip"), "??", ".,". Such text is not
    grammatical to begin with, so neither is any edit of it.
``question``
    ends with a question mark, or opens with an auxiliary followed by its
    subject ("Is this a good move", "Did you see the old house"), or with a
    wh-word, an auxiliary and its subject ("What do you think about our governor.").
``imperative``
    the root is a bare verb (tag ``VB``) with no subject ("Find the number",
    "Take a long walk"), or the sentence opens with "let's"/"let us"; the
    antonymy generator also asks :func:`in_imperative_clause` of the edited
    word ("..., please be respectful").
``fragment``
    no finite verb in the sentence ("Very nice.", "A big house on the hill."),
    one that opens it without a subject ("Takes you away from the city."), or a
    text cut off after an article ("... of OMB approved the").

The scope checks look at the edited word's :func:`scope` (the word, the
words above it in the parse, and their dependents), so a negation in a
sibling clause does not count:

``negation``
    a negator (``neg`` dependency, *no*, *never*, *nothing*, *without*, ...)
    or a verb that negates its complement (*deny*, *doubt*, *fail*, *lack*,
    ...): an antonym under negation is not a contradiction ("no discernible"
    -> "no indiscernible", "contributes nothing to the smooth").
``modal``
    a modal auxiliary (tag ``MD``: *might*, *could*, *would*, ...; the future
    *will*/*shall* is let through here, as numerical's "will cost 5 dollars" keeps
    its bound, and left to the antonymy generator's ``future`` filter), a frequency or partial qualifier
    (*often*, *sometimes*, *potentially*, "in some cases") or a hedging adverb (*maybe*, *perhaps*, *probably*, ...): "might take a long
    time" and "might take a short time" are compatible.
``conditional``
    a conditional or non-veridical subordinator or verb (*if*, *unless*,
    *whether*, *when* (unless in the past tense), *as long as*, *suppose*, *hope*, *want*, *require*,
    ...), an infinitive above the word ("hard to make a new language"), an
    embedded question ("considers what makes a good school"), a disjunction
    ("either provocative or conservative") or quotation marks around it: the
    edited word is not asserted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from ..errors import ConfigError

SENTENCE_FILTERS = ("disfluent", "question", "imperative", "fragment")
SCOPE_FILTERS = ("negation", "modal", "conditional")

#: words that negate (lower-cased tokens); spaCy also marks "not"/"n't" as ``neg``
NEGATORS = frozenset(
    {
        *("no", "not", "n't", "never", "nothing", "nobody", "none", "nowhere", "neither"),
        *("nor", "without", "cannot", "hardly", "barely", "scarcely", "rarely", "seldom"),
        *("nope", "noone", "naught"),
    }
)
#: verbs (lemmas) whose complement is negated or not asserted as true
NEGATING_VERBS = frozenset(
    {"deny", "doubt", "fail", "lack", "refuse", "avoid", "prevent", "forbid", "ban", "stop"}
)
#: nouns that do the same ("had trouble believing it was real")
NEGATING_NOUNS = frozenset({"trouble", "difficulty", "doubt"})
#: hedging adverbs: the sentence does not assert its content outright
HEDGES = frozenset(
    {
        *("maybe", "perhaps", "probably", "possibly", "likely", "unlikely", "presumably"),
        *("supposedly", "allegedly", "apparently", "conceivably", "hopefully", "sort", "kind"),
        *("kinda", "sorta"),  # "That sounds kinda interesting to me"
        # frequency and degree: "often the best were minors" and "often the worst were minors"
        *("potentially", "often", "oftentimes", "sometimes", "occasionally", "frequently"),
        *("partly", "partially", "mostly", "largely", "rarely", "generally"),
    }
)
#: subordinators and verbs (lemmas) that put their clause outside what is asserted
CONDITIONALS = frozenset(
    {
        *("if", "unless", "whether", "suppose", "supposing", "assuming", "imagine", "lest"),
        *("wish", "hope", "want", "need", "try", "plan", "expect", "intend", "seek", "pretend"),
        *("until", "when", "whenever", "otherwise"),  # unless past: see _conditional
        # mandative verbs: "requires that the public be made aware" asserts nothing yet
        *("require", "demand", "ask", "insist", "recommend", "propose", "suggest", "urge"),
        # permission: "a situation that lets me make everybody happy" asserts no one is
        *("let", "allow", "permit", "enable"),
    }
)
_TEMPORAL = frozenset({"when", "until", "whenever"})
_MODIFIER_PHRASES = frozenset(
    {"advmod", "npadvmod", "neg", "det", "predet", "quantmod", "mark", "aux", "preconj"}
)
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "csubj", "csubjpass"})
#: prepositions an adjective selects for its complement ("full of", "busy with", "powerless
#: over", "dangerous to", "separate from"); an antonym that is not the word with a negative
#: prefix seldom selects the same one ("empty of energy", "idle with shipping", "joint from
#: one another")
SELECTED_PREPOSITIONS = frozenset({"of", "with", "over", "to", "from"})
_WRAPPERS = "\"'”’)]»"


def _last_char(span: Any) -> str:
    text = span.text.rstrip().rstrip(_WRAPPERS).rstrip()
    return text[-1:] if text else ""


FILLERS = frozenset(
    {"uh", "um", "uh-huh", "um-hum", "uh-hum", "huh", "hm", "hmm", "er", "erm", "mm", "yeah", "oh",
     "ooh", "yep", "nope"}
)


# Text with a hole: a double space before a capital inside the sentence ("dangerous to  Every
# trip"), or characters lost in conversion ("m??tro", "two uninhabited Es Vedr? ,").
# Two sentences run together with no space ("if she needed it.They check") are a hole too.
_GARBLED = re.compile(r"\S {2,}[A-Z]|\?\?|\.,|[a-z]{2}\.[A-Z][a-z]|[A-Za-z]\?\s+,")


def is_disfluent(span: Any) -> bool:
    if _GARBLED.search(span.text.strip()):
        return True
    words = [t for t in span if not (t.is_punct or t.is_space)]
    # A long sentence with no capital and no full stop is a transcript ("yeah well they do it
    # every year and..."); a short lower-case one is a hurried but well-formed sentence.
    if len(words) > 15 and not any(ch.isupper() for ch in span.text) and _last_char(span) not in ".!?":
        return True
    if any(t.lower_ in FILLERS or t.text == "i" for t in words):
        return True  # fillers, and the lower-case "i" of transcripts
    return any(a.lower_ == b.lower_ and a.is_alpha for a, b in pairwise(words))


def is_question(span: Any) -> bool:
    if _last_char(span) == "?":
        return True
    first = next((t for t in span if not t.is_punct), None)
    if first is not None and first.tag_ in ("WP", "WRB", "WDT") and first.i + 2 < span.end:
        # "What do you think about ...": a wh-word, then an auxiliary and its subject (not
        # "What he said was true", nor "What is important is ...")
        aux, subject = first.nbor(1), first.nbor(2)
        return aux.pos_ == "AUX" and subject.dep_ in SUBJECT_DEPS
    if first is None or first.pos_ != "AUX":
        return False
    # "Is this a good move" / "Did you see it": an auxiliary first, its subject right after.
    nxt = first.nbor(1) if first.i + 1 < span.end else None
    return nxt is not None and nxt.dep_ in SUBJECT_DEPS and _last_char(span) != "."


def is_imperative(span: Any) -> bool:
    words = [t for t in span if not t.is_punct]
    if len(words) >= 2 and words[0].lower_ == "let" and words[1].lower_ in ("'s", "us"):
        return True
    root = span.root
    if root.tag_ != "VB" or any(c.dep_ in SUBJECT_DEPS for c in root.children):
        return False
    # Only adverbs, interjections, "please", "do"/"don't" may come before the verb.
    before = [t for t in words if t.i < root.i]
    return all(t.pos_ in ("ADV", "INTJ", "PART", "AUX") or t.lower_ == "please" for t in before)


def in_imperative_clause(token: Any) -> bool:
    """``token`` is predicated in an imperative clause that is not the sentence's first ("We
    are having a conversation, please be respectful."): :func:`is_imperative` reads only the
    sentence's root and what comes before it."""
    verb = token.head if token.dep_ in ("acomp", "attr", "oprd") else token
    return (
        verb.tag_ == "VB"
        and verb.dep_ in ("ROOT", "conj", "parataxis", "ccomp")
        and not any(c.dep_ in ("nsubj", "nsubjpass", "expl", "aux", "auxpass") for c in verb.children)
    )


def is_fragment(span: Any) -> bool:
    """No finite verb anywhere in the sentence ("Very nice.", "Poor and rich.", "Back page
    story about ..."), or a sentence cut off after an article ("The Office ... of OMB
    approved the"). The parser's root is not trusted alone: it is often a noun in a
    misparsed full sentence ("The amount of resources available ... increases")."""
    if not any(t.tag_ in ("VBD", "VBZ", "VBP", "MD") for t in span):
        return True
    words = [t for t in span if not t.is_punct and not t.is_space]
    if words and words[-1].lower_ in ("a", "an", "the"):
        return True
    root = span.root
    return root.tag_ in ("VBD", "VBZ") and not any(c.dep_ in SUBJECT_DEPS for c in root.children) and (
        root.i == next((t.i for t in span if not t.is_punct), root.i)
    )  # "Takes you away from ...": a finite verb with no subject


_LINE_BREAK = re.compile(r"<br\s*/?>|\n", re.IGNORECASE)


def is_passage(doc: Any) -> bool:
    """The text holds more than one sentence: one that ends in a full stop, "!" or "?" is
    followed by another. The others may restate the word an edit changes ("a senior British
    police officer. ... she is the Met's senior officer"), presuppose it ("a female fashion
    model. She has modeled ...") or rank it ("the brightest star ..., and the
    second-brightest in the night sky"), and the edited text then contradicts itself instead
    of the original: 17 of the 26 wrong antonymy labels in the held-out ANLI sample. The
    parser's own splits are not trusted alone: it also splits "(strongly agree) the
    statement ..." and "... of nowhere but they were welcome", where no sentence ends. A
    line break (ANLI's "<br>" after a story's title or between paragraphs) ends one too."""
    if _LINE_BREAK.search(doc.text.strip()):
        return True
    sentences = [sent for sent in doc.sents if any(t.is_alpha for t in sent)]
    return any(_last_char(sent) in ".!?…" for sent in sentences[:-1])


def _negates(token: Any) -> bool:
    return token.dep_ == "neg" or token.lower_ in NEGATORS or (
        token.pos_ in ("VERB", "AUX") and token.lemma_.lower() in NEGATING_VERBS
    ) or (token.pos_ == "NOUN" and token.lemma_.lower() in NEGATING_NOUNS)


#: modals that state the future, not a possibility: the ``modal`` filter lets "it will be cold"
#: through as asserted; the antonymy generator's ``future`` filter (:func:`has_future`) does not
FUTURE = frozenset({"will", "'ll", "shall"})


#: "in some cases", "at times", "in many ways": the statement holds only partly
_PARTIAL_HEADS = frozenset(
    {"case", "instance", "time", "way", "respect", "area", "situation", "circumstance", "point",
     "sense", "place", "part"}
)


def _modal(token: Any) -> bool:
    if token.tag_ == "MD" and token.lower_ not in FUTURE:
        return True
    if token.lower_ in HEDGES:
        return True
    if token.dep_ == "pobj" and token.lower_ in ("many", "some") and token.head.lower_ == "for":
        return True  # "For many, this was considered the best": an opinion some hold
    return token.dep_ == "det" and token.lower_ in ("some", "many", "certain") and (
        token.head.lemma_.lower() in _PARTIAL_HEADS
    )


def _conditional(token: Any) -> bool:
    if token.lower_ in _TEMPORAL:
        # "when it was dark": a past clause tells what happened; a present one is a condition
        clause = token.head
        return not (clause.tag_ == "VBD" or any(c.tag_ == "VBD" for c in clause.children if c.dep_.startswith("aux")))
    if token.lower_ in CONDITIONALS or token.lemma_.lower() in CONDITIONALS:
        return True
    # "as long as": a condition spelled with a comparative
    doc, i = token.doc, token.i
    return token.lower_ == "long" and 0 < i < len(doc) - 1 and doc[i - 1].lower_ == doc[i + 1].lower_ == "as"


def scope(token: Any) -> list[Any]:
    """The tokens whose meaning reaches ``token``: it, its ancestors, and their dependents.

    A negator, modal or conditional attached to the word, to the noun or verb
    it depends on, or to any clause above it takes the word in its scope
    ("no discernible", "might take a long time", "I don't think it is good");
    one in a sibling clause ("It was cold and nobody came") does not.
    """
    chain = [token, *token.ancestors]
    out = list(chain)
    for node in chain:
        for child in node.children:
            if child in chain or child.dep_ == "conj":
                continue
            # Adverbials, determiners and markers bring their whole phrase ("no longer");
            # a subject or object brings its determiner ("no leeway is possible").
            out += list(child.subtree) if child.dep_ in _MODIFIER_PHRASES else [child]
            # ... a prepositional phrase its object: "in some cases".
            if child.dep_ == "prep":
                for obj in child.children:
                    out += [obj, *(d for d in obj.children if d.dep_ == "det")]
            # ... and its quantifier: "Not many cities contain a large array", with the
            # negator the parser hangs on a noun ("Not all gun users have been vetted").
            for d in child.children:
                if d.dep_ == "neg" and child.pos_ in ("NOUN", "PROPN", "PRON"):
                    out.append(d)
                if d.dep_ in ("det", "predet", "amod", "nummod", "quantmod"):
                    out += [x for x in d.subtree if x.dep_ in ("det", "predet", "neg", "advmod") or x is d]
    return out


def has_negation(tokens: Iterable[Any]) -> bool:
    return any(_negates(t) for t in tokens)


def has_modal(tokens: Iterable[Any]) -> bool:
    return any(_modal(t) for t in tokens)


def has_future(tokens: Iterable[Any]) -> bool:
    """A future modal ("will", "'ll", "shall") or "be going to" among ``tokens``.

    A prediction is asserted, but not as a fact: judges split on whether "The
    budget will increase" and "The budget will decrease" contradict (README,
    "Precision filters: labels you can trust"), and a doubtful label is dropped.
    "A dog is going to get wet" and "... get dry" may both come true, one after
    the other.
    """
    return any((t.tag_ == "MD" and t.lower_ in FUTURE) or _going_to(t) for t in tokens)


def _going_to(token: Any) -> bool:
    """``token`` is the "going" of "be going to" + verb ("is going to get", "was gonna be");
    not a motion ("was going to the dance")."""
    return (
        token.lemma_.lower() == "go"
        and token.tag_ == "VBG"
        and any(c.dep_ == "aux" and c.lemma_.lower() == "be" for c in token.children)
        and any(c.dep_ == "xcomp" and c.tag_ == "VB" for c in token.children)
    )


def has_conditional(tokens: Iterable[Any]) -> bool:
    return any(_conditional(t) for t in tokens)


def in_wh_clause(token: Any) -> bool:
    """A clause above ``token`` is an embedded question or free relative ("considers what
    makes a good school", "asks which road is safe"): its content is not asserted."""
    for node in token.ancestors:
        if node.pos_ in ("VERB", "AUX") and node.dep_ in ("ccomp", "csubj", "pcomp", "advcl", "xcomp") and any(
            c.tag_ in ("WP", "WDT", "WRB", "WP$") for c in node.children
        ):
            return True
    return False


def in_disjunction(token: Any) -> bool:
    """``token`` (or a phrase above it) is one side of an "or" ("either provocative or
    conservative"): neither side is asserted."""
    for node in (token, *token.ancestors):
        conjuncts = [node, *node.conjuncts]
        if any(c.dep_ == "cc" and c.lower_ in ("or", "either", "nor") for n in conjuncts for c in n.children):
            return True
        if node.dep_ not in ("conj", "amod", "acomp", "attr", "advmod", "compound"):
            break  # the disjunction must coordinate the word's own phrase
    return False


_CHECKS = {
    "disfluent": is_disfluent,
    "question": is_question,
    "imperative": is_imperative,
    "fragment": is_fragment,
}
_SCOPE_CHECKS = {
    "negation": has_negation,
    "modal": has_modal,
    "conditional": has_conditional,
}


class FilterSwitch:
    """The filters a generator runs: its known names, each on or off (``filters`` setting).

    Unknown names are refused, so a misspelt filter cannot silently stay on.
    """

    def __init__(
        self, where: str, known: Sequence[str], settings: Mapping[str, Any] | None
    ) -> None:
        settings = dict(settings or {})
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise ConfigError(
                f"{where}.filters: unknown filter(s) {', '.join(unknown)} (known: {', '.join(known)})"
            )
        self.known = tuple(known)
        self.on = {name: settings.get(name, True) for name in known}

    def __call__(self, name: str) -> bool:
        return self.on[name]

    def active(self) -> list[str]:
        return [name for name in self.known if self.on[name]]


def sentence_reasons(
    span: Any, switch: FilterSwitch, names: Sequence[str] = SENTENCE_FILTERS
) -> list[str]:
    """Switched-on sentence filters among ``names`` (disfluent, question, imperative,
    fragment) that reject ``span``."""
    return [
        name for name in names if name in switch.on and switch(name) and _CHECKS[name](span)
    ]


#: predicates whose infinitive complement is asserted ("was able to see", "seems to be")
IMPLICATIVES = frozenset(
    {"manage", "start", "begin", "continue", "happen", "seem", "appear", "tend", "use", "get",
     "remember", "proceed", "go"}
)


def in_infinitive(token: Any) -> bool:
    """A verb above ``token`` is an infinitive ("hard to make a new language", "to provide a
    useful view", "is able to buy 5 more for $300"): a purpose, an ability or a possibility,
    not something said to happen. Infinitives of implicative predicates ("managed to see",
    "seems to be") assert their content."""
    return any(
        a.tag_ == "VB"
        and any(c.dep_ == "aux" and c.lower_ == "to" for c in a.children)
        and a.head.lemma_.lower() not in IMPLICATIVES
        for a in token.ancestors
    )


#: verbs that introduce speech ("'It's cold,' she said", "he added that ..."): what they report
#: is said, not asserted by the text (:func:`in_reported_clause`), and their clause may follow a
#: comma (:mod:`.source_grammar`)
SPEECH_VERBS = frozenset(
    {"say", "ask", "reply", "cry", "shout", "answer", "whisper", "add", "tell", "exclaim",
     "remark", "murmur", "continue", "mutter", "call", "scream", "yell", "respond", "explain"}
)


def in_quotes(token: Any) -> bool:
    """``token`` is inside double quotation marks: a line mentioned ("One of my favorite lines
    was "I'm guilty"") or what someone said ("'You are early,' Boris said"), which the text
    reports and does not assert, as with indirect speech (:func:`in_reported_clause`)."""
    sent = token.sent
    before = sent.doc.text[sent.start_char : token.idx]
    return sum(before.count(q) for q in ('"', "“", "”")) % 2 == 1


#: nouns whose content clause is mentioned, not asserted ("the statement alcoholics are
#: difficult to treat received a mean score of 6.25", "the claim that prices are high")
CONTENT_NOUNS = frozenset(
    {"statement", "claim", "idea", "notion", "belief", "assertion", "view", "theory", "hypothesis",
     "rumor", "rumour", "argument", "proposition", "suggestion", "myth", "saying", "slogan", "motto",
     # what someone was led to think or fears: "created the impression that the scramble was a
     # logical response"
     "impression", "assumption", "illusion", "perception", "allegation", "suspicion", "fear"}
)


def in_mentioned_statement(token: Any) -> bool:
    """``token`` is in the content of a noun such as "statement" or "claim": a survey item or a
    claim someone made is named, and its opposite may be named with the same score ("liked the
    idea of being healthy" says nothing of being unhealthy)."""
    for node in (token, *token.ancestors):
        if (
            node.dep_ in ("acl", "ccomp", "appos") and node.head.pos_ == "NOUN"
            and node.head.lemma_.lower() in CONTENT_NOUNS
        ):
            return True  # "the claim that prices are high"
        if (
            node.dep_ == "pcomp" and node.head.lower_ == "of" and node.head.head.pos_ == "NOUN"
            and node.head.head.lemma_.lower() in CONTENT_NOUNS
        ):
            return True  # "the idea of being healthy"
        if any(  # "the statement alcoholics are difficult": the noun parsed as a compound
            c.dep_ == "compound" and c.lemma_.lower() in CONTENT_NOUNS
            for s in node.children if s.dep_ in SUBJECT_DEPS
            for c in s.children
        ):
            return True
    return False


#: verbs (with :data:`SPEECH_VERBS`) whose clausal complement someone says, thinks or hopes,
#: without the text asserting it ("Dealers say everyone is smart", "I think it is important"):
#: the same subject may say or think the opposite at another time, and different dealers may
#: say different things. Factive verbs ("know", "realize", "show") presuppose their complement
#: and are not here.
REPORTING_VERBS = frozenset(
    {"think", "believe", "guess", "suppose", "claim", "argue", "suggest", "assume", "expect",
     "hope", "fear", "feel", "reckon", "imagine", "figure", "report", "state", "insist", "maintain",
     "contend", "predict", "estimate", "doubt", "wish", "pretend", "assert", "allege", "hear",
     "worry", "consider", "complain", "speculate", "conclude", "recommend", "propose", "warn",
     "note", "imply", "occur"}  # "it occurred to me that the standard was a low one"
)
#: verbs of a charge or suspicion: what someone is "indicted for" or "accused of" is alleged,
#: not asserted ("indicted for illegally taping conversations")
ALLEGING_VERBS = frozenset({"accuse", "charge", "indict", "suspect", "arrest", "sue", "blame", "prosecute"})
#: adjectives of a concern or hope whose content is not asserted ("concerned about emissions
#: reducing too quickly", "afraid that it is dangerous")
CONCERN_ADJECTIVES = frozenset({"concerned", "worried", "afraid", "fearful", "anxious", "hopeful"})


def in_reported_clause(token: Any) -> bool:
    """``token`` is in what someone is reported to say, think or fear ("The CEO told the
    committee it was necessary", "I am glad she wasn't, said Jon", "We're concerned about
    emissions reducing too quickly") or is charged with ("indicted for illegally taping"):
    the text asserts the report, not its content, and the same speaker may say the opposite
    another time."""
    for node in (token, *token.ancestors):
        head = node.head
        if node.dep_ in ("ccomp", "pcomp") and head.lemma_.lower() in REPORTING_VERBS | SPEECH_VERBS:
            return True
        if node.dep_ == "ccomp" and head.lower_ in CONCERN_ADJECTIVES:
            return True
        if node.dep_ in ("pcomp", "pobj") and head.dep_ == "prep" and head.lower_ in ("about", "of", "for") and (
            head.head.lower_ in CONCERN_ADJECTIVES or head.head.lemma_.lower() in ALLEGING_VERBS
        ):
            return True
    return False


def non_asserted(token: Any) -> bool:
    """An infinitive, an embedded question, a disjunction, quotation marks, a mentioned
    statement or a reported one around ``token``."""
    return (
        in_infinitive(token) or in_wh_clause(token) or in_disjunction(token) or in_quotes(token)
        or in_mentioned_statement(token) or in_reported_clause(token)
    )


def scope_reasons(token: Any, switch: FilterSwitch) -> list[str]:
    """Switched-on scope filters (negation, modal, conditional) that reject an edit of ``token``.

    ``conditional`` also covers an infinitive above the word (:func:`in_infinitive`).
    """
    tokens = scope(token)
    return [
        name for name, check in _SCOPE_CHECKS.items()
        if name in switch.on and switch(name)
        and (check(tokens) or (name == "conditional" and non_asserted(token)))
    ]


def wordnet_compound(
    wn: Any, token: Any, cache: dict[str, bool], antonyms: tuple[str, ...] = ()
) -> bool:
    """``token`` and a neighbour or its head form a WordNet multiword lemma.

    "public health", "high school", "hot dog", "brand-new": the word is part
    of a name for something else, and changing it changes the thing, not a
    property of it. A compound whose antonym twin is a WordNet lemma too
    ("young man" / "old man") is a lexicalised contrast and does not count.
    ``cache`` maps joined names to the answer.
    """
    doc = token.doc
    pairs = []
    if token.i + 1 < len(doc):
        nxt = doc[token.i + 1]
        pairs += [(token.lower_, nxt.lower_), (token.lemma_.lower(), nxt.lemma_.lower())]
    if token.i > 0:
        pairs.append((doc[token.i - 1].lower_, token.lower_))
    if token.dep_ in ("amod", "compound"):
        pairs.append((token.lemma_.lower(), token.head.lemma_.lower()))
    for a, b in pairs:
        if not (a.isalpha() and b.isalpha()):
            continue
        if _in_wordnet(wn, f"{a}_{b}", cache) and not any(
            _in_wordnet(wn, f"{x}_{b}" if token.lower_ in (a,) or token.lemma_.lower() == a else f"{a}_{x}", cache)
            for x in antonyms
        ):
            return True
    return False


def _in_wordnet(wn: Any, name: str, cache: dict[str, bool]) -> bool:
    """``name`` ("young_man") or its hyphenated spelling is a WordNet lemma (cached)."""
    if name not in cache:
        cache[name] = bool(wn.synsets(name) or wn.synsets(name.replace("_", "-")))
    return cache[name]


def falls_under(synset: Any, classes: Iterable[str]) -> bool:
    """``synset`` or one of its WordNet hypernyms is named in ``classes`` ("person.n.01")."""
    names = set(classes)
    return any(s.name() in names for path in synset.hypernym_paths() for s in path)


def drop_reason(name: str) -> str:
    """The manifest's drop reason for a filter."""
    return f"filter: {name}"


def decisive(reasons: Iterable[str], order: Sequence[str]) -> str:
    """The reason a unit with several rejected candidates is dropped under: the commonest, then filter order."""
    counts = Counter(reasons)
    return min(counts, key=lambda r: (-counts[r], order.index(r) if r in order else len(order)))
