"""Where a word stands in its parsed sentence, for the antonymy filters.

Each function reads one spaCy token (or sentence) and answers one question the
filters of :mod:`.antonymy` ask before a word may be replaced by its antonym:
is it predicative, which noun does it describe, does that noun name a person,
some of a kind, a contest; is the word coordinated with another, set against
another clause, said of some occasions or under a condition. None of them
looks a word up in WordNet beyond the noun classes passed in as ``wn``; the
antonyms themselves are :mod:`.antonym_lexicon`'s.
"""

from __future__ import annotations

from typing import Any

from .precision import falls_under

# Dependencies of a predicative adjective: "is dark", "seems happy", "made it possible".
PREDICATIVE = {"acomp", "attr", "oprd"}
# Determiners and quantifiers under which a noun phrase may denote only some of its kind.
EXISTENTIAL = frozenset(
    {"some", "many", "several", "few", "most", "various", "numerous", "certain", "any",
     "more", "other", "lots", "lot", "plenty", "myriad", "couple", "number", "dozens", "hundreds",
     "thousands", "millions", "both", "either", "such", "these", "those", "half"}
)
# Subordinators of a concession ("older even though she was only eighteen").
CONCESSIVE = frozenset({"though", "although", "whereas"})
# Conjunctions that set a clause against the one before ("important, but there are also ...").
CONTRAST = frozenset({"but", "yet"})
# Subordinators of a cause ("as it was too difficult", "because he was distracted").
CAUSAL = frozenset({"because", "as", "since"})
# Words that head a prepositional cause with "to": "due to", "owing to", "thanks to".
_CAUSE_HEADS = frozenset({"due", "owing", "thanks"})
# Verbs that link a predicative adjective to what it describes: the copula, verbs of seeming,
# staying and becoming ("seems happy", "remained open", "gets wet"), and verbs that make or
# judge their object so ("made it possible", "found it easy", "kept it secret").
LINKING_VERBS = frozenset(
    {"be", "seem", "appear", "look", "sound", "feel", "smell", "taste", "become", "remain", "stay",
     "get", "prove", "keep", "make", "find", "consider", "deem", "call", "leave", "render", "think",
     "believe", "declare", "judge"}
)
# Verbs of a change into a state: "gets wet", "became ill", "turned cold".
CHANGE_VERBS = frozenset({"get", "become", "turn", "grow", "go"})
# Indefinite pronouns: "Something was approved" and "Something was disapproved" may be two things.
SOME_ONE = frozenset({"something", "someone", "somebody", "some"})
# How a degree attaches to a verb: an adverb, or a noun phrase used as one ("the best").
DEGREE_DEPS = frozenset({"advmod", "npadvmod"})
# Dependencies of a verb that states its clause: main, complement or adverbial. Not a relative
# clause, which may say which thing is meant ("People who like giving speeches", "Programs to
# increase efficiency"), nor an infinitive under another verb ("unable to maximize").
_CLAUSE_HEADS = frozenset({"ROOT", "ccomp", "advcl"})
_PERSON_INDEFINITES = frozenset(
    {"anyone", "anybody", "someone", "somebody", "everyone", "everybody", "nobody", "no-one"}
)
_PERSON_PRONOUNS = frozenset({"i", "you", "he", "she", "we", "they", "me", "him", "her", "us", "them"})
# Interjections that agree with what follows ("Yes, that's absolutely true"): said of the
# antonym they agree with nothing ("Yes, that's absolutely false").
_AGREEMENT_WORDS = frozenset({"yes", "yeah", "yep"})
# WordNet classes of what is won or lost: a contest, a war or battle, an election, a lawsuit.
_CONTESTS = frozenset({"contest.n.01", "military_action.n.01", "war.n.01", "election.n.01", "lawsuit.n.01",
                       "game.n.01", "game.n.02"})
# How often: a property of some occasions, whose antonym may hold on others ("is sometimes
# available" and "is sometimes unavailable"; "successfully invaded hundreds of times").
_FREQUENCY_ADVERBS = frozenset(
    {"sometimes", "often", "frequently", "occasionally", "repeatedly", "rarely", "seldom"}
)
# Subordinators and prepositions that place an event before or after a state ("smiled after
# being satisfied", "named after India became independent"): the state held at some time, and
# its antonym may have held at another ("after being dissatisfied" is true as well).
_TIME_ORDER = frozenset({"after", "before", "once", "until", "till"})
# Determiners of a noun phrase that refers to a thing known to the reader: a restrictive
# relative clause on it says which thing is meant ("the problems that were available").
_DEFINITE = frozenset({"the", "this", "that", "these", "those"})
# Universal quantifiers, whose restrictive clause says which things they range over.
_UNIVERSAL = frozenset({"everybody", "everyone", "everything", "all", "every", "each", "anyone", "anybody"})
# Feelings that take "for" in a sense their antonyms lack ("happy for Dave": glad on his
# behalf; "happy for the cold air": grateful; "sad for").
_FEELINGS = frozenset({"happy", "unhappy", "glad", "sad", "sorry"})


def position(token: Any) -> str:
    """Predicative, attributive or other; a conjunct takes its first conjunct's place.

    A noun is predicative only as an indefinite predicate nominal ("it was a
    success", "there was an increase"): anywhere else it names a thing, and
    its antonym names another thing ("the employer" vs "the employee").
    """
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    if token.pos_ == "VERB":
        # A verb heading a clause says what its subject does or feels ("She loves me");
        # as a modifier ("including taxes", "the approved plan") it picks out a thing.
        return "predicative" if token.dep_ in _CLAUSE_HEADS else "other"
    if token.pos_ == "NOUN":
        indefinite = any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in token.children)
        return "predicative" if token.dep_ == "attr" and indefinite else "other"
    if token.pos_ == "ADV":
        # A manner adverb of a verb ("ran quickly") says how the event went; sentence
        # adverbs ("Unfortunately, ...") and others ("still", "here") do not.
        doc = token.doc
        manner = (
            token.lower_.endswith("ly")
            and token.dep_ == "advmod"
            and token.head.pos_ == "VERB"
            and token.i > token.sent.start
            and not (token.i + 1 < len(doc) and doc[token.i + 1].text == ",")
        )
        return "predicative" if manner else "other"
    if token.dep_ == "amod":
        return "attributive"
    if token.dep_ in PREDICATIVE:
        return "predicative"
    if token.dep_ == "ccomp" and any(c.dep_ == "nsubj" for c in token.children):
        return "predicative"  # a small clause: "make information available"
    return "other"


def linked(token: Any) -> bool:
    """The predicative adjective follows a linking verb (:data:`LINKING_VERBS`).

    After any other verb it is a depictive or a resultative, whose sense the verb
    colours: "stands tall", "died young", "shake themselves dry", "works pretty good".
    Their antonyms make no phrase or no clear contradiction ("stands short above a
    crowd", "shake themselves wet"), and "come alive", "go bad", "run dry", "fall ill"
    are idioms of the same kind.
    """
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    return token.head.lemma_.lower() in LINKING_VERBS


def with_clause(token: Any) -> bool:
    """The adjective has a clause to be sure of: a complement ("sure they did") or the
    clause it is a parenthetical of ("You, I'm sure, will", "He'll be back, I'm sure")."""
    doc = token.doc
    following = doc[token.i + 1].text if token.i + 1 < len(doc) else ""
    verb = token.head if token.dep_ == "acomp" else token
    return (
        any(c.dep_ == "ccomp" for c in (*token.children, *verb.children))
        or verb.dep_ in ("parataxis", "appos")
        or following == ","
    )


def described(token: Any) -> Any | None:
    """The noun (or pronoun) the adjective describes: its head, or the subject of its verb."""
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    if token.dep_ == "amod":
        return token.head
    own = next((c for c in token.children if c.dep_ == "nsubj"), None)
    if own is not None:
        return own  # the subject of a small clause
    if token.dep_ == "oprd":  # "left 300 Madeirans dead": the object is what is dead
        own = next((c for c in token.head.children if c.dep_ == "dobj"), None)
        if own is not None:
            return own
    verb = token.head if token.dep_ != "ROOT" else token
    while True:
        for child in verb.children:
            if child.dep_ in ("nsubj", "nsubjpass", "expl"):
                if child.tag_ in ("WP", "WDT") and verb.dep_ == "relcl":
                    return verb.head  # "women who have become rich": the women
                return child
        if verb.dep_ != "xcomp" or verb.head.i == verb.i:
            return None
        verb = verb.head  # "Certain colors seem to be more acceptable": the colors


def is_person(wn: Any, noun: Any | None) -> bool:
    """The noun names a person or people (WordNet person.n.01 or people.n.01 in its first
    sense, a personal pronoun other than "they"/"it", or "anyone", "someone", ...). spaCy's
    PERSON entity counts only for a capitalised word: it tags "The bin is old" so too."""
    if noun is None:
        return False
    if noun.lower_ in _PERSON_INDEFINITES:
        return True
    if noun.pos_ == "PRON":
        return noun.lower_ in ("i", "you", "he", "she", "we", "me", "him", "her", "us")
    return (noun.ent_type_ == "PERSON" and noun.text[:1].isupper()) or any(
        s.name() in ("person.n.01", "people.n.01")
        for synset in wn.synsets(noun.lemma_.lower(), "n")[:1]
        for path in synset.hypernym_paths()
        for s in path
    )


def may_be_person(wn: Any, noun: Any | None) -> bool:
    """The noun names a person, or is a pronoun that may stand for people ("they")."""
    if noun is not None and noun.pos_ == "PRON" and noun.lower_ in _PERSON_PRONOUNS:
        return True
    return is_person(wn, noun)


def is_physical(wn: Any, noun: Any | None) -> bool:
    """The noun is a physical thing in its first WordNet sense, or a person pronoun."""
    if noun is None:
        return False
    if noun.pos_ == "PRON":
        return noun.lower_ in _PERSON_PRONOUNS
    senses = wn.synsets(noun.lemma_.lower(), "n")
    return bool(senses) and falls_under(senses[0], {"physical_entity.n.01"}) and not falls_under(
        senses[0], {"abstraction.n.06"}
    )


def predicate_nominal(noun: Any) -> bool:
    """The noun phrase is predicated of something ("it was a good idea", "made it a big success").

    Anywhere else an adjective's noun phrase may name another referent once
    the adjective changes: an indefinite one may be one of several things of
    its kind ("A conventional siege was useless" and "An unconventional siege
    was useless", "has a senior division" and "has a junior division", "had
    a good laugh"), and a definite or possessive one may pick out another
    ("the evil sergeant", "their internal funds").
    """
    return noun.dep_ in ("attr", "oprd")


def existential(noun: Any | None, bare_plural: bool) -> bool:
    """The noun phrase may denote only some of its kind: a number, "some"/"many", and (when
    ``bare_plural``) a bare plural. A bare plural object speaks of some ("sells cheap cars"
    and "sells expensive cars"), and so does a bare plural subject, episodic ("Pagers were
    affected") or generic ("Drinks are expensive" and "Drinks are cheap" may each hold of
    different drinks, as "Dogs are friendly" of different dogs). Bare "people" likewise:
    "people will be happy" and "people will be unhappy" speak of some people each."""
    if noun is None:
        return False
    if noun.lower_ in EXISTENTIAL or (noun.tag_ == "CD" and noun.lower_ != "one"):  # "300 dead"
        return True
    if noun.lower_ in ("people", "folks") and not any(c.dep_ in ("det", "poss") for c in noun.children):
        return True
    dets = [c for c in noun.children if c.dep_ in ("det", "nummod", "quantmod", "amod", "predet")]
    if any(c.lower_ in EXISTENTIAL or c.dep_ == "nummod" or c.like_num for c in dets):
        return True
    # "a few", "a couple of", "a number of": the noun is the object of "of" under such a head.
    if noun.head.lower_ == "of" and noun.head.head.lower_ in EXISTENTIAL:
        return True
    has_det = any(c.dep_ in ("det", "poss", "predet") for c in noun.children)
    return bare_plural and noun.tag_ in ("NNS", "NNPS") and not has_det


def coordinated(token: Any) -> bool:
    """The word is coordinated with another ("available and expensive"), its predicate
    shares its subject with another ("independent and do not need me at all", "strong,
    yet brittle"), another predicate says it again of the same subject ("that's good,
    that's great"), its clause is set against another ("important, but there are also
    other worthy causes", "older even though she was only eighteen", "Despite growing
    brighter, it was difficult"), or is the reason for another or its result
    ("extremely bright, so bring a camera"), or the sentence gives a cause ("easy because
    it takes many hours", "unpopular due to their reefs": :func:`gives_cause`), or "yes"
    has said it already ("Yes, that's absolutely true").

    The other part may presuppose or restate the word (only what is available
    can be expensive), and the edited sentence then contradicts itself.
    """
    if token.dep_ == "conj" or any(c.dep_ == "conj" for c in token.children) or gives_cause(token):
        return True
    verb = token.head.head if token.dep_ == "amod" else token.head
    if verb.pos_ not in ("VERB", "AUX"):
        return False
    subject = next((c.lower_ for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is not None and any(  # "that's good, that's great": said again of "that"
        t.i != token.i and t.dep_ == "acomp" and any(
            c.dep_ in ("nsubj", "nsubjpass") and c.lower_ == subject for c in t.head.children
        )
        for t in token.sent
    ):
        return True
    if (
        reason_or_result(token)
        or change_with_cause(token)
    ):
        return True
    if any(  # "older even though she was eighteen": a concession sets the two against each other
        (c.dep_ == "advcl" and any(m.dep_ == "mark" and m.lower_ in CONCESSIVE for m in c.children))
        or (c.dep_ == "prep" and c.lower_ == "despite")  # "Despite growing brighter, it was difficult"
        for v in (verb, *verb.ancestors)  # ... or above it: "Even though it has flaws, I think it's good"
        for c in (*v.children, v)
    ) or any(a.lower_ == "despite" and a.dep_ == "prep" for a in token.ancestors):
        return True
    if token.lemma_.lower() in ("true", "false", "right", "wrong", "correct", "incorrect") and any(
        w.lower_ in _AGREEMENT_WORDS for w in token.sent if w.i < token.i
    ):
        return True  # "Yes, that's absolutely true": "yes" says it first
    conjuncts = [c for c in verb.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX", "ADJ")]
    return any(not any(d.dep_ in ("nsubj", "nsubjpass", "expl") for d in c.children) for c in conjuncts) or (
        bool(conjuncts) and any(c.dep_ == "cc" and c.lower_ in CONTRAST for c in verb.children)
    )


def is_contest(wn: Any, noun: Any) -> bool:
    """``noun``'s most frequent WordNet sense is a contest, war, election or lawsuit."""
    senses = wn.synsets(noun.lemma_.lower().replace(" ", "_"), "n")
    return bool(senses) and falls_under(senses[0], _CONTESTS)


def on_behalf(wn: Any, token: Any, lemma: str) -> bool:
    """A feeling "for" someone or something ("She was happy for Dave", "They were happy
    for the cold air", "She felt bad for Dave"): glad on their behalf, grateful, sorry,
    senses whose antonyms do not take "for" ("unhappy for Dave", "felt good for Dave").
    "good for the community" (beneficial) is left alone."""
    holders = (*token.children, *(token.head.children if token.dep_ == "acomp" else ()))  # "felt bad for"
    objects = [o for c in holders if c.dep_ == "prep" and c.lower_ == "for"
               for o in c.children if o.dep_ == "pobj"]
    if not objects:
        return False
    if lemma in _FEELINGS:
        return True
    return lemma in ("good", "bad") and token.head.lemma_.lower() == "feel" and any(
        is_person(wn, o) for o in objects
    )


def gives_cause(token: Any) -> bool:
    """The word's sentence gives a cause: a clause that "because", "since" or "as" introduces
    ("easy because it takes many hours", "dependent since they have more to do", "accepted
    defeat ..., as it was too difficult") or a phrase "because of", "due to", "owing to" or
    "thanks to". A "since" or "as" clause of time or manner ("as they get older", "as long
    as") is taken too: the parse does not tell them from a cause, and dropping one only costs
    yield; "since 1989" and "as an adult" are prepositions and are kept.

    The cause was written to explain the word or to be explained by it, and after the edit
    it mostly explains nothing ("Driving is easy because it takes many hours"): in the judged
    census of MNLI dev-matched (2026-11-25) 17 of the 30 such pairs were judged
    ungrammatical (an incoherent edit counts), and 4 of the dev-mismatched sample's 8."""
    sent = token.sent
    for t in sent:
        if t.lower_ == "because" or (t.dep_ == "mark" and t.lower_ in CAUSAL and t.head.dep_ == "advcl"):
            return True
        after = t.doc[t.i + 1] if t.i + 1 < sent.end else None
        if t.lower_ in _CAUSE_HEADS and after is not None and after.lower_ == "to" and after.pos_ == "ADP":
            return True
    return False


def change_with_cause(token: Any) -> bool:
    """The word is the state something gets into, and the sentence says what put it there
    ("gets wet from a splash of water", "gets wet running in water"): the cause brings
    about the word, so "gets dry from a splash of water" contradicts itself."""
    verb = token.head
    return token.dep_ == "acomp" and verb.lemma_.lower() in CHANGE_VERBS and any(
        (c.dep_ == "prep" and c.lower_ in ("from", "by")) or (c.dep_ == "advcl" and c.tag_ == "VBG")
        for c in verb.children
    )


def reason_or_result(token: Any) -> bool:
    """The word's clause is the reason for another clause or its result, joined by "so"
    ("extremely bright, so bring a camera", "give it to the public, so it is available
    to all campaigns"): the antonym leaves the other clause without its reason or
    reasoning from the opposite one, and the edited sentence contradicts itself."""
    chain = {t.i for t in (token, *token.ancestors)}
    for so in token.sent:
        result = so.head
        if not (
            so.lower_ == "so" and so.dep_ in ("advmod", "mark", "cc") and so.i > token.sent.start
            and result.pos_ in ("VERB", "AUX") and so.i < result.i
        ):
            continue  # (not "so smart", "I think so", nor "So, ..." after another sentence)
        reasons = [c for c in result.children if c.dep_ in ("ccomp", "advcl", "conj") and c.i < so.i]
        if result.dep_ in ("advcl", "conj", "ccomp") and result.head.i < so.i:
            reasons.append(result.head)
        if reasons and chain & {result.i, *(r.i for r in reasons)}:
            return True
    return False


def on_some_occasions(token: Any) -> bool:
    """The word or its clause's verb says how often ("sometimes available", "invaded
    successfully hundreds of times"): the antonym may hold on the other occasions.
    "at all times" and "every time" say always, and are left alone."""
    verb = token
    while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:  # (a root heads itself)
        verb = verb.head
    for child in (*token.children, *verb.children):
        if child.dep_ == "advmod" and child.lower_ in _FREQUENCY_ADVERBS:
            return True
        words = [t.lower_ for t in child.subtree]
        if "times" in words and not {"all", "every"} & set(words) and any(
            t.like_num or t.lower_ in EXISTENTIAL for t in child.subtree
        ):
            return True
    return False


def at_another_time(token: Any) -> bool:
    """The word is in a clause or phrase that an event comes before or after ("smiled
    after being satisfied", "after India became independent"), or is the degree of
    "after"/"before" ("resigned quickly after"): the state held at some time, and
    the antonym may have held at another, so both sentences may be true."""
    doc = token.doc
    if token.head.lower_ in _TIME_ORDER or (
        token.pos_ == "ADV" and token.i + 1 < len(doc) and doc[token.i + 1].lower_ in _TIME_ORDER
    ):
        return True  # "resigned quickly after": soon after, however the parse attaches it
    return any(
        (node.dep_ == "advcl" and any(c.dep_ == "mark" and c.lower_ in _TIME_ORDER for c in node.children))
        or (node.dep_ in ("pcomp", "pobj") and node.head.lower_ in _TIME_ORDER)
        for node in (token, *token.ancestors)
    )


def identifying_clause(token: Any) -> bool:
    """The word is in a restrictive relative clause of a definite or universally quantified
    noun phrase ("all of the problems that were available", "The one we thought was timid",
    "Everybody that is visible"), or of an indefinite pronoun ("Someone who is visible"):
    the clause says which thing is meant, as an attributive
    adjective does ("the available problems"), so the antonym speaks of another thing. A
    clause after a comma adds a fact about the thing, and one on an indefinite noun
    describes it ("a drug that works very quickly")."""
    for node in (token, *token.ancestors):
        if node.dep_ != "relcl":
            continue
        start = node.left_edge.i
        if start > 0 and node.doc[start - 1].text == ",":
            continue
        noun = node.head
        if noun.dep_ == "ROOT":
            continue  # a sentence parsed as a noun with a clause: the clause is its predicate
        if any(c.dep_ == "poss" or (c.dep_ == "det" and c.lower_ in _DEFINITE) for c in noun.children):
            return True
        if noun.lower_ in _UNIVERSAL or any(c.dep_ == "det" and c.lower_ in _UNIVERSAL for c in noun.children):
            return True  # "Everybody that is visible": the clause picks out whom it speaks of
        if noun.lower_ in SOME_ONE and noun.dep_ != "attr":
            # "Someone who is visible" -> "Someone who is invisible": another one (but
            # "That's something that's believable" says what "that" is)
            return True
    return False


def reported_by_some(token: Any) -> bool:
    """The sentence reports the view of some of a group ("According to some professionals,
    cooler times are the best"): other members may hold the opposite one."""
    return any(
        w.lower_ == "according"
        and any(existential(o, bare_plural=True) for t in w.children for o in t.children if o.dep_ == "pobj")
        for w in token.sent
    )


def some_places(noun: Any) -> bool:
    """A domain of only some things ("in many shops", "for several people"), where the
    antonym may hold of the others; not a stretch of time ("in the past few weeks") and
    not "most", which leaves no room for both."""
    return (
        noun.ent_type_ not in ("DATE", "TIME")
        and not any(t.lower_ == "most" for t in noun.subtree)
        and existential(noun, bare_plural=False)
    )


def focus_even(sent: Any) -> bool:
    """``sent`` has a scalar "even", which ranks what it focuses as the least expected of a
    series ("We have cable, but even that is useless", "You'll even be able to consult a
    herbalist"): flipping a word of the sentence turns the series against its polarity ("but
    even that is useful", "You'll even be unable"). The "even" of a comparative ("even
    smaller") grades a degree, the adjective ("the floor wasn't even", which the parser
    may tag as an adverb) ends its phrase, where a particle comes before what it focuses, and
    "even though", "even if" and "even so" join clauses (a concession, ``coordination``, or a
    condition, ``conditional``)."""
    doc = sent.doc
    return any(
        t.lower_ == "even" and t.pos_ == "ADV" and t.head.tag_ not in ("JJR", "RBR")
        and t.i + 1 < sent.end and not (doc[t.i + 1].is_punct or doc[t.i + 1].pos_ == "CCONJ")
        and doc[t.i + 1].lower_ not in ("though", "if", "so")
        for t in sent
    )


def under_condition(token: Any) -> bool:
    """The word's clause, or one above it, holds only under a condition: an "if", "unless" or
    "whenever" clause, or a "when" clause in the present tense or with "only" ("When his
    colleagues aren't sadistic, they are successful", "The staff is friendly only when you
    give them tips"). Either sentence may then be true by its condition alone (it never holds,
    or the staff is neither when untipped); a past "when" names one occasion and is kept
    ("When we arrived, the room was empty")."""
    for node in (token, *token.ancestors):
        for clause in node.children:
            if clause.dep_ != "advcl":
                continue
            markers = {m.lower_ for m in clause.children if m.dep_ in ("mark", "advmod")}
            if markers & {"if", "unless", "whenever"}:
                return True
            present = clause.tag_ in ("VBP", "VBZ") or any(
                c.dep_ in ("aux", "auxpass") and c.tag_ in ("VBP", "VBZ") for c in clause.children
            )  # "when the process is producing gypsum"
            if "when" in markers and (present or any(t.lower_ == "only" for t in clause.subtree)):
                return True
    return False


def adverb_of(word: Any, verb: Any) -> bool:
    """``word`` grades ``verb`` through a chain of adverbs ("like him even more now", "like
    rock music the best")."""
    node = word
    while node.dep_ in DEGREE_DEPS and node.head.i != node.i:
        node = node.head
        if node.i == verb.i:
            return True
    return False
