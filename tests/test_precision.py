"""The precision filters on real rows: each failure class of issue 13 dropped, good rows kept.

Every sentence here is copied from a file in ../shared/data, and each test
first checks that it is still there, so the cases stay real. A case names the
filter that must drop it (the manifest's ``filter: <name>`` reason), or the
edit it must give.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest

from nlistress.config import deep_merge
from nlistress.errors import ConfigError
from nlistress.manifest import RowCounts
from nlistress.perturb.antonymy import DROP_UNLISTED_VERB, Antonymy
from nlistress.perturb.base import Context
from nlistress.perturb.numerical import Numerical
from nlistress.perturb.precision import drop_reason
from nlistress.perturb.runner import read_input
from nlistress.perturb.source_grammar import SourceGrammar, WordFrequencyBounds
from nlistress.perturb.tautology import conjoin
from nlistress.resources import spacy_pipeline, wordnet
from nlistress.swap.lexicons import substitutes
from nlistress.swap.occurrences import OccurrenceFilter

from .support import SHARED_DATA, canonical_table, project_params, shared_override


@pytest.fixture(scope="module")
def params() -> dict[str, Any]:
    return deep_merge(project_params(), shared_override())


def _in_file(rel: str, text: str) -> None:
    """``text`` occurs (JSON-escaped) in the real file ``../shared/data/<rel>``."""
    assert json.dumps(text)[1:-1] in (SHARED_DATA / rel).read_text(encoding="utf-8"), text


MNLI = "mnli/multinli_1.0_dev_matched.jsonl"
MNLI_MISMATCHED = "mnli/multinli_1.0_dev_mismatched.sample1000.jsonl"
SNLI = "snli/snli_1.0_dev.jsonl"
AQUA = "aqua_rat/dev.json"


def _in_any_file(text: str) -> None:
    """``text`` occurs in one of the shared SNLI, MultiNLI or AQuA-RAT files."""
    files = (SNLI, "snli/snli_1.0_test.jsonl", MNLI, AQUA, "aqua_rat/test.json")
    escaped = json.dumps(text)[1:-1]
    assert any(escaped in (SHARED_DATA / rel).read_text(encoding="utf-8") for rel in files), text

# -- antonymy ------------------------------------------------------------------

ANTONYMY_DROPPED = [
    # a letter lost in conversion ("Es Vedr\u00e0" read as "Es Vedr?")
    ("The route passes in sight of two uninhabited Es Vedr?\xa0, which hovers like an apparition on the "
     "horizon off to the west, and Espalmador, which is popular with yachtsmen for its white-sand beach.",
     "disfluent"),
    # a sentence cut off after an article (judged wrong in the census of the verb rows)
    ("The Office of Information and Regulatory Affairs of OMB approved the", "fragment"),
    # quantifiers and determiners ("A few" -> "A many", "most others" -> "least others")
    ("A few foreigners were left free after the purge on foreigners.", "excluded_lemma"),
    ("For the beginner ' and for most others, too ' Beaune is the place to buy.", "excluded_lemma"),
    # negation and downward-entailing scope
    ("There's really no discernible feeling when to comes to uploading.", "negation"),
    ("James Surowiecki asserts that the equity stock option market contributes nothing to the "
     "smooth functioning of capital markets.", "negation"),
    # questions, imperatives, modals
    ("Is it possible there would be a decline in all the Postal Service volumes?", "question"),
    ("Be careful of the overseer.", "imperative"),
    ("It might take a long time to do that because getting inside a person's head takes time.",
     "modal"),
    # generic statements whose edit is compatible ("fed up with women who have become rich")
    ("The tabs are getting fed up with women who have become rich and famous by telling "
     "everyone else how to be better.", "conditional"),
    # word senses and names ("a random House spokesman" -> "nonrandom", "fine view")
    ("Toobin spoke through a random House spokesman.", "rare_sense"),
    ("A little past the small theater built for local dramatic performances, there's a fine view "
     "across the bay to Basse-Terre.", "position"),
    ("The public health official's version of the line, Take my wife, please, is Tell Americans "
     "to eat kale five times a week.", "position"),
    # found by the judged sample of the 2026-11 build: a comparative WordNet lists apart from its
    # excluded base ("greater" -> "lesser than"), a sense-dependent antonym ("soft" is "hard"
    # or "loud"), an attitude that asserts nothing ("had trouble believing"), a source typo
    # ("beed") and two sentences run together ("it.They")
    # ("greater" itself is an excluded lemma; the sentence's commonest reason is the other
    # adjectives' attributive position)
    ("Net nonfederal saving was greater than net federal saving.", "position"),
    ("He is way too loud.", "abstract_subject"),
    ("It moved softly in his hand, alerting him to the presence.", "excluded_lemma"),
    ("They had trouble believing the setting was based on a real place.", "negation"),
    ("It's beed super dry.", "source_grammar"),
    # ... and by the judged sample of the rebuilt set: a contrast with the antonym beside the
    # word ("male, female" -> "male, male"), a degree word on the copula ("sorely absent"), a
    # relative clause picking out a group, an opinion some hold ("For many"), "unmarried to"
    ("Interpreters will be distributed at an even male, female ratio.", "position"),
    ("Restaurants and cuisine are sorely absent in Dublin", "comparison_standard"),
    ("For many, this was considered the best position the US had ever been in financially.", "modal"),
    ("Louis XIV was married to Madame de Maintenon on the chateau.", "excluded_lemma"),
    # "There is an old woman" and "There is a young woman" may both hold
    ("There is an old woman in the village that I have been visiting. ", "existential_scope"),
    # ... and so may a house built, or any contribution: an indefinite noun phrase that is not
    # predicated of anything may be one of several
    ("Gates constructed a large house in the Seattle area.", "position"),
    ("A bigger contribution means to support candidate Y.", "position"),
    # "sure" with a clause: "unsure" takes "whether" ("I'm unsure they did" is not English),
    # nor can it stand as a parenthetical ("You, I'm unsure, will find it")
    ("I'm sure they did", "position"),
    # a question with no question mark
    ("What do you think about our governor, regardless of the fact that she's female.", "question"),
    ("You, I'm sure, will find it more than adequate.", "position"),
    # "a little" after the article is the quantifier ("a little fan", "a little increase")
    ("Eisner is a big fan of ABC.", "position"),
    # found by the blind samples of the 2026-11-23 build: a goal asserts no property, and
    # "300 (left) dead" and "300 (left) alive" may both hold
    ("The first step to building a more effective government in Texas was the ability to produce "
     "fairly stated external financial reports.", "conditional"),
    ("He unleashed a 16-day reign of terror that left 300 Madeirans dead, stocks of sugar destroyed, "
     "and the island plundered.", "existential_scope"),
    ("Having her own furniture in the house made it much more comfortable for her. Yet still able "
     "get assistance if she needed it.They check on them two or three times a day and give their "
     "medication also.", "disfluent"),
]
ANTONYMY_KEPT = [
    ("The air is warm.", "The air is cool."),
    # a "will" in a coordinated clause does not reach the word (`future`)
    ("The system is fair and he'll receive the sentence he deserves regardless of parole.",
     "The system is unfair and he'll receive the sentence he deserves regardless of parole."),
    # "even" as an adjective (which the parser tags as an adverb) is no scalar particle
    ("well, you're aware that the floor wasn't even", "well, you're unaware that the floor wasn't even"),
    ("Julius was right that we were incorrect.", "Julius was right that we were correct."),
    ("He was very tall.", "He was very short."),
    ("He is very sure of himself.", "He is very unsure of himself."),
    # what the strict recheck's rules leave: a past "when" (one occasion)
    ("I was very impressed when I saw that yesterday.", "I was very unimpressed when I saw that yesterday."),
    ("The phone modem was easy to set up and use.", "The phone modem was difficult to set up and use."),
    # a relative clause after a comma adds to what is said of one bar
    ("They have a bar, which is always empty.", "They have a bar, which is always full."),
    # "true" with no "of"; "times" with no count
    ("That is true.", "That is false."),
    ("The marble from the island was desirable in ancient times.",
     "The marble from the island was undesirable in ancient times."),
    # a complement both take
    ("The library was good for the community.", "The library was bad for the community."),
    # a frequent antonym (Zipf 3.9) passes rare_antonym
    ("It is absolutely correct.", "It is absolutely incorrect."),
    # a relative clause on an indefinite predicate noun describes the subject; a state the
    # word's own clause is in after dark is said of that time
    ("Strychnine  is a drug that works very quickly. ", "Strychnine  is a drug that works very slowly. "),
    ("The cathedral in particular is impressive after dark.", "The cathedral in particular is unimpressive after dark."),
    # a "since" of time and an "as" of role give no cause
    ("The allowance has been increased since 1989.", "The allowance has been decreased since 1989."),
    ("It is very difficult to learn the dance as an adult.", "It is very easy to learn the dance as an adult."),
    # definite "parts" are all of them, not some
    ("The remaining parts of the north, although enticing, are difficult to explore.",
     "The remaining parts of the north, although enticing, are easy to explore."),
    # "happy" with a gerund is content, not willing; a general degree adverb grades either pole
    ("Severn was happy being poor.", "Severn was unhappy being poor."),
    ("I found Steven E. Landsburg's piece Pay Scales in Black and White extremely unconvincing.",
     "I found Steven E. Landsburg's piece Pay Scales in Black and White extremely convincing."),
]

# Edits the judged sample of the 2026-11-23 build found wrong or unreadable, each with the
# filter that now rejects it (the sentence may keep an edit of another word).
ANTONYMY_EDITS_REJECTED = [
    # a sentence that gives a cause: written to fit the word, it explains nothing after the edit
    # (17 of the 30 such pairs of the census judged ungrammatical, 2026-11-25)
    ("Driving is difficult because it takes many hours.", "Driving is easy because it takes many hours.",
     "coordination"),
    ("The hot flame was hard to control because it was big. ",
     "The hot flame was hard to control because it was little. ", "coordination"),
    ("Papyrus paper was only used by wealthy Egyptians because it was so expensive.",
     "Papyrus paper was only used by wealthy Egyptians because it was so cheap.", "coordination"),
    ("My mother was domineering since she filled in my father's shoes.",
     "My mother was submissive since she filled in my father's shoes.", "coordination"),
    ("The Anse Labord beaches are popular for snorkeling due to their unique temperate reefs.",
     "The Anse Labord beaches are unpopular for snorkeling due to their unique temperate reefs.", "coordination"),
    # judged wrong in the samples of the 592-pair build (2026-11-24): a restrictive relative
    # clause of a definite noun phrase says which thing is meant, and a state an event comes
    # after may have had its antonym at another time
    ("I had outlined all of the problems that were available.",
     "I had outlined all of the problems that were unavailable.", "position"),
    ("The one we thought was timid ended up being the last one to learn.",
     "The one we thought was bold ended up being the last one to learn.", "position"),
    ("She smiled after being satisfied with how she looked.",
     "She smiled after being dissatisfied with how she looked.", "existential_scope"),
    ("He resigned very quickly after the reign of terror.", "He resigned very slowly after the reign of terror.",
     "existential_scope"),
    ("The park was established in 1935 and was given Corbett's name after India became independent.",
     "The park was established in 1935 and was given Corbett's name after India became dependent.",
     "existential_scope"),
    # judged ungrammatical in the samples of the 580-pair build: "perfectly" grades one pole, a
    # clause that follows from "so long", a concession with "despite"
    ("It was perfectly normal.", "It was perfectly abnormal.", "comparison_standard"),
    ("The tourism season is so long that he will be successful eventually.",
     "The tourism season is so long that he will be unsuccessful eventually.", "comparison_standard"),
    ("Despite growing brighter, it was difficult to make out what the thing was.",
     "Despite growing brighter, it was easy to make out what the thing was.", "coordination"),
    # ... and in those of the 574-pair build: a feeling "for" someone, "yes" before "true", a
    # concession above the word's clause, "usual" as a predicate
    ("She was happy for Dave.", "She was unhappy for Dave.", "position"),
    ("She felt bad for Dave.", "She felt good for Dave.", "position"),
    ("She felt bad for Dave, he died a terrible death.", "She felt good for Dave, he died a terrible death.",
     "position"),
    ("Yes, that's absolutely true.", "Yes, that's absolutely false.", "coordination"),
    ("Even though this book has flaws, I think it's a good thing.",
     "Even though this book has flaws, I think it's a bad thing.", "coordination"),
    ("This was unusual for the world.", "This was usual for the world.", "excluded_lemma"),
    # judged wrong by a strict blind judge of 100 random rows of the 614-pair build
    # (reviews/blind/stress/antonymy/recheck_614.before): a reported claim, a concern, a bare
    # plural subject, a clause under a condition, "unbelievable" (astonishing)
    ("Dealers say everyone is smart that is playing.", "Dealers say everyone is stupid that is playing.",
     "conditional"),
    ("Welbeck's CEO told the committee it was necessary to ensure employees were trained, prepared and "
     "compensated in ways that enabled them to react to shifting markets.",
     "Welbeck's CEO told the committee it was unnecessary to ensure employees were trained, prepared and "
     "compensated in ways that enabled them to react to shifting markets.", "conditional"),
    ("We're concerned about emissions reducing too quickly. ",
     "We're concerned about emissions reducing too slowly. ", "conditional"),
    ("Drinks are super cheap.", "Drinks are super expensive.", "existential_scope"),
    ("When his colleagues aren't sadistic, they are successful.",
     "When his colleagues aren't sadistic, they are unsuccessful.", "conditional"),
    ("The staff is friendly only when you give them tips.",
     "The staff is unfriendly only when you give them tips.", "conditional"),
    ("That's something that's believable.", "That's something that's unbelievable.", "excluded_lemma"),
    # ... and by the strict blind pass over the rest of the census: direct speech, which the
    # speaker may say otherwise another time, and bare plural subjects of a verb or of a
    # predicate noun
    ("I am glad she wasn't, said Jon.", "I am sad she wasn't, said Jon.", "conditional"),
    ("When he was appearing, Boris looked at the clock and said, 'You are early.'",
     "When he was appearing, Boris looked at the clock and said, 'You are late.'", "conditional"),
    ("Prices always increase, regardless of the money in circulation.",
     "Prices always decrease, regardless of the money in circulation.", "existential_scope"),
    ("Cultural festivals are the best place to have performances.",
     "Cultural festivals are the worst place to have performances.", "existential_scope"),
    # antonyms of narrower use than the word, faulted in most judged rows of every review
    ("The Carmel market in the Yemenite Quarter is very busy.",
     "The Carmel market in the Yemenite Quarter is very idle.", "excluded_lemma"),
    ("There is no clear beginning and end, it's a continuous cycle.",
     "There is no clear beginning and end, it's a discontinuous cycle.", "excluded_lemma"),
    ("Salt was the dominant luxury item of the era.", "Salt was the subordinate luxury item of the era.",
     "excluded_lemma"),
    ("Monte is a normal location, outside of a period of pious devotion.",
     "Monte is an abnormal location, outside of a period of pious devotion.", "excluded_lemma"),
    ("I'm sort of an acting process scientists but officially I handle the mail for the week.",
     "I'm sort of an acting process scientists but unofficially I handle the mail for the week.",
     "excluded_lemma"),
    ("Unsurprisingly, golfing is prohibitively expensive.", "Unsurprisingly, golfing is prohibitively cheap.",
     "comparison_standard"),
    # ... and in those of the 561-pair build: "too" where a cause is given, "possible" of a name
    ("The person accepted defeat after seven days, as it was too difficult.",
     "The person accepted defeat after seven days, as it was too easy.", "coordination"),
    ("Turin was possible due to new centralized control and collection of taxes.",
     "Turin was impossible due to new centralized control and collection of taxes.", "abstract_subject"),
    # "especially true" says where something applies; a clause joined by "so" to its reason
    ("This is especially true on Menorca, where cold winter winds limit the season's length.",
     "This is especially false on Menorca, where cold winter winds limit the season's length.", "position"),
    ("Web companies freely give this demographic information to the public, so it is available to all "
     "campaigns. ",
     "Web companies freely give this demographic information to the public, so it is unavailable to all "
     "campaigns. ", "coordination"),
    ("The interior of the place is extremely bright, so bring a camera and snap a few pictures.",
     "The interior of the place is extremely dull, so bring a camera and snap a few pictures.", "coordination"),
    # judged wrong in the samples of the 601-pair build (2026-11-23, evening):
    # a result clause that follows from the degree ("so ungrateful ... that he sent flowers")
    ("He was so grateful to receive the message that he sent the sender a bunch of flowers.",
     "He was so ungrateful to receive the message that he sent the sender a bunch of flowers.",
     "comparison_standard"),
    # the view of some of a group: others may hold the opposite
    ("According to some professionals, cooler times are the best for getting a catch.",
     "According to some professionals, cooler times are the worst for getting a catch.", "existential_scope"),
    # judged ungrammatical in the samples of the 558-pair build (2026-11-24): "happy to" is
    # willing and has no "unhappy to"; an "-ly" adverb that grades the word alone
    ("Agreed-upon Auditors are happy to perform the testing to issue a specific report.",
     "Agreed-upon Auditors are unhappy to perform the testing to issue a specific report.", "position"),
    ("She kept her eyes firmly closed. ", "She kept her eyes firmly open. ", "comparison_standard"),
    ("Safed is a historically old village.", "Safed is a historically new village.", "comparison_standard"),
    ("Base year data will be actual receipt and outlay data.",
     "Base year data will be potential receipt and outlay data.", "excluded_lemma"),
    # ... and wrong in those of the 548-pair build: "high" said of a name
    ("California is high", "California is low", "abstract_subject"),
    # "prepared to" is willing, "unprepared to" is not ready
    ("The whole organization was prepared to fight to keep whole life policies with a term life with annuity.",
     "The whole organization was unprepared to fight to keep whole life policies with a term life with annuity.",
     "position"),
    # a survey statement named, not asserted: its opposite may get the same score
    ("On a scale of 0 (strongly disagree) to 7 (strongly agree) the statement alcoholics are difficult to "
     "treat received a mean score of 6.25, and the statement alcoholism is a treat-able disease received "
     "a mean score of 5.27.",
     "On a scale of 0 (strongly disagree) to 7 (strongly agree) the statement alcoholics are easy to "
     "treat received a mean score of 6.25, and the statement alcoholism is a treat-able disease received "
     "a mean score of 5.27.", "conditional"),
    # "early"/"late" before a noun name a period: an early and a late material may both matter
    ("An important early material, obsidian, was discovered on the island of Milos.",
     "An important late material, obsidian, was discovered on the island of Milos.", "position"),
    # a health adjective of a thing ("That is well" means "that is fine")
    ("That is unwell.", "That is well.", "abstract_subject"),
    # people kept out of danger are safe, and may be dangerous
    ("A few foreigners were confined to Dejima Island because they were dangerous.",
     "A few foreigners were confined to Dejima Island because they were safe.", "abstract_subject"),
    # "true of/about" is a set phrase; "false about" is not
    ("That's true about the traffic.", "That's false about the traffic.", "position"),
    # "less" before a negative-prefix antonym
    ("I think because you have lower income you are less educated.",
     "I think because you have lower income you are less uneducated.", "comparison_standard"),
    # antonyms too rare to read as English (Zipf 2.2 and 1.5)
    ("Harlem was the last permanent office ", "Harlem was the last impermanent office ", "rare_antonym"),
    ("The administration of Rao in general was profoundly corrupt.",
     "The administration of Rao in general was profoundly incorrupt.", "rare_antonym"),
    # ... and by the two samples of the build with those filters: a word coordinated with another
    # that presupposes it, a predicate sharing its subject with one that restates it, a clause
    # set against the next
    ("Drinks are available and expensive.", "Drinks are unavailable and expensive.", "coordination"),
    ("My kids are independent and do not need me at all.",
     "My kids are dependent and do not need me at all.", "coordination"),
    ("Reducing HIV is important, but there are also other worthy causes.",
     "Reducing HIV is unimportant, but there are also other worthy causes.", "coordination"),
    ("It was strong, yet brittle.", "It was weak, yet brittle.", "coordination"),
    ("She looked older even though she was only barely eighteen. ",
     "She looked younger even though she was only barely eighteen. ", "coordination"),
    # an indefinite noun phrase not predicated of anything may be one of several
    ("the referenced organization has a senior management division.",
     "the referenced organization has a junior management division.", "position"),
    ("I had a good laugh when I took it for the two thousand mile checkup.",
     "I had a bad laugh when I took it for the two thousand mile checkup.", "position"),
    # "people" and "myriad things" are some of them
    ("Any multi-pollutant bill is opposed by the Administration, that means people will be happy about that.",
     "Any multi-pollutant bill is opposed by the Administration, that means people will be unhappy about "
     "that.", "existential_scope"),
    ("Myriad things are available for purchase here.", "Myriad things are unavailable for purchase here.",
     "existential_scope"),
    # ... and by the two samples of the build with those: an idiom-bound "nice" and "perfect",
    # "more unimportant", "completely related", a complement only the word selects
    ("It was nice meeting you", "It was nasty meeting you", "excluded_lemma"),
    ("Her empathy was more important than her actions because it was infectious.",
     "Her empathy was more unimportant than her actions because it was infectious.", "comparison_standard"),
    ("ED and alcohol dependency issues are completely unrelated.",
     "ED and alcohol dependency issues are completely related.", "comparison_standard"),
    ("She is full of energy.", "She is empty of energy.", "position"),
    ("Pollution is very dangerous to our health.", "Pollution is very safe to our health.", "position"),
    # ... and by the samples of the build with those: the antonym elsewhere in the sentence, the
    # property said again of the same subject, an imperative after a comma
    ("That is not bad, it is actually pretty good.", "That is not bad, it is actually pretty bad.",
     "comparison_standard"),
    ("well that's good that's great", "well that's bad that's great", "coordination"),
    ("We are having a conversation, please be respectful.",
     "We are having a conversation, please be disrespectful.", "imperative"),
    # ... and by the strict double judgement of the 512-pair census: a hedge, a thought that
    # occurred to someone, a charge, an attitude in the passive without whose it is
    ("That sounds kinda interesting to me.", "That sounds kinda uninteresting to me.", "modal"),
    ("Then it occurred to me that the criminal standard was a low one.",
     "Then it occurred to me that the criminal standard was a high one.", "conditional"),
    ("Linda Tripp was indicted for illegally taping telephone conversations with Monica Lewinsky.",
     "Linda Tripp was indicted for legally taping telephone conversations with Monica Lewinsky.", "conditional"),
    ("Now political debate died down in Calcutta especially, where Karl Marx was hated.",
     "Now political debate died down in Calcutta especially, where Karl Marx was loved.", "existential_scope"),
    ("everybody in the USA is approved already", "everybody in the USA is disapproved already",
     "existential_scope"),
    # ... and by its grammar faults: a scalar "even" anywhere in the sentence
    ("We have cable, but even that is useless.", "We have cable, but even that is useful.",
     "comparison_standard"),
    ("You'll even be able to consult a traditional herbalist to cure your ailments.",
     "You'll even be unable to consult a traditional herbalist to cure your ailments.", "comparison_standard"),
    # ... and by the census's strict fifth judge: a prediction (`future`), which other judges
    # passed as a contradiction, so the label is in doubt
    ("The United States national defense budget will increase by 6 billion dollars.",
     "The United States national defense budget will decrease by 6 billion dollars.", "future"),
    ("You will find it acceptable.", "You will find it unacceptable.", "future"),
]


def _antonymy(params: dict[str, Any], text: str, **overrides: Any) -> tuple[list[str], RowCounts]:
    settings = {k: v for k, v in params["stress"]["tests"]["antonymy"].items() if k != "generator"}
    settings |= overrides
    table = pa.table({"uid": ["mnli:dev_matched:1"], "premise": [text], "hypothesis": [text]})
    counts = RowCounts(unit="sentence")
    rows = Antonymy("antonymy", settings, params).generate(
        table, Context("mnli", "dev_matched", "en", 2018), counts
    )
    hypotheses = [r.hypothesis for r in rows]
    counts.check()
    return hypotheses, counts


@pytest.mark.parametrize(("text", "reason"), ANTONYMY_DROPPED)
def test_antonymy_drops_each_failure_class(params, text, reason):
    _in_file(MNLI, text)
    # the broad filters off unless they are the reason, as in _assert_rejected_by
    filters = params["stress"]["tests"]["antonymy"]["filters"] | {
        name: False for name in ("conditional", "existential_scope") if name != reason
    }
    hypotheses, counts = _antonymy(params, text, filters=filters)
    assert hypotheses == []
    assert counts.dropped[drop_reason(reason)] == 1, counts.dropped


def test_a_relative_clause_that_picks_out_a_group_is_not_edited(params):
    """ "Women who have become rich ..." and "Women who have become poor ..." speak of two groups."""
    text = ("Women who have become rich and famous by telling everyone else how to better do their "
            "laundry are making people fed up.")
    _in_file(MNLI, text)
    settings = {k: v for k, v in params["stress"]["tests"]["antonymy"].items() if k != "generator"}
    generator = Antonymy("antonymy", settings, params)
    table = pa.table({"uid": ["mnli:dev_matched:1"], "premise": [text], "hypothesis": [text]})
    rows = list(generator.generate(table, Context("mnli", "dev_matched", "en", 2018), RowCounts(unit="sentence")))
    assert rows == [] and generator.rejected["existential_scope"] >= 1, generator.rejected


# Edits judged wrong in the census of the dev-mismatched sample's 63-pair build, which no
# filter had been tuned on (2026-11-24)
ANTONYMY_MISMATCHED_REJECTED = [
    # ... and, by the cause rule written from dev-matched's census, a cause the antonym leaves
    # without its reason
    ("I enjoyed it because it was interesting .", "I enjoyed it because it was uninteresting .", "coordination"),
    ("Only one of the two plants is able to make the same product set .",
     "Only one of the two plants is unable to make the same product set .", "existential_scope"),
    ("There is only something wrong with what people do with the images .",
     "There is only something right with what people do with the images .", "existential_scope"),
    ("Parts of Europe are still illiterate .", "Parts of Europe are still literate .", "existential_scope"),
    ("The boldface type will be distinct from the lightface text .",
     "The boldface type will be indistinct from the lightface text .", "excluded_lemma"),
    # ... and by its strict blind pass (2026-11-24): a hedge "generally", what an account made
    # someone think
    ("People generally seem to find dialect study interesting .",
     "People generally seem to find dialect study uninteresting .", "modal"),
    ("The inaccurate accounts created the impression that the Langley scramble was a logical response to an "
     "actual hijacked aircraft .", "The inaccurate accounts created the impression that the Langley scramble "
     "was an illogical response to an actual hijacked aircraft .", "conditional"),
]


@pytest.mark.parametrize(("text", "edited", "reason"), ANTONYMY_MISMATCHED_REJECTED)
def test_antonymy_rejects_each_judged_failure_of_the_held_out_set(params, text, edited, reason):
    _in_file(MNLI_MISMATCHED, text)
    _assert_rejected_by(params, text, edited, reason)


# Edits judged wrong in the held-out SNLI test reviews (reviews/heldout/stress/antonymy), for
# which a rule was then written: a complement only the adjective selects ("separate from", in
# snli_test.before), a restrictive relative clause of an indefinite pronoun (in the census)
ANTONYMY_SNLI_TEST_REJECTED = [
    ("The group is separate from one another .", "The group is joint from one another .", "position"),
    ("Someone who is visible is more than fifteen years old .",
     "Someone who is invisible is more than fifteen years old .", "position"),
    # "visible" and "busy" in exclude_lemmas (their antonyms are of narrower use)
    ("A wall hung with multicolored crosses is visible behind the group of young men as they converse .",
     "A wall hung with multicolored crosses is invisible behind the group of young men as they converse .",
     "excluded_lemma"),
    ("The traffic is busy .", "The traffic is idle .", "excluded_lemma"),
    # judged wrong in the held-out review of 2026-11-24 and ruled on 2026-11-25: "be going to"
    # is a prediction like "will" (`future`)
    ("A dog is going to get wet .", "A dog is going to get dry .", "future"),
]

# Adjectives after a verb that does not link them to their subject (a depictive or a
# resultative), judged wrong in the held-out reviews (SNLI dev, ANLI) and the dev-matched
# census: `position` keeps a predicative adjective only after a linking verb
ANTONYMY_UNLINKED_REJECTED = [
    (SNLI, "Two brown dogs shake themselves dry at the beach .",
     "Two brown dogs shake themselves wet at the beach ."),
    (SNLI, "A costumed man stands tall above a crowd of his contemporaries in the midst of a party in a white "
     "room , furnished with overhead lights and a gray-scale painting on the wall behind him .",
     "A costumed man stands short above a crowd of his contemporaries in the midst of a party in a white "
     "room , furnished with overhead lights and a gray-scale painting on the wall behind him ."),
    ("anli/R2_dev.jsonl", "Paul Revere died young.", "Paul Revere died old."),
    (MNLI, "It works pretty good at the right time of year.", "It works pretty bad at the right time of year."),
]


def test_the_content_of_an_idea_is_not_asserted(params):
    """"liked the idea of being healthy" (judged wrong in the held-out ANLI review): an idea's
    content is named, not asserted, after "of" as after "that" (`conditional`)."""
    text = "Maddie liked the idea of being healthy"
    _in_file("anli/R3_dev.jsonl", text)
    _assert_rejected_by(params, text, "Maddie liked the idea of being unhealthy", "conditional")


# Edits judged wrong in the held-out ANLI dev sample (reviews/heldout/stress/antonymy/
# anli_dev.before), for which rules were then written: a passage whose other sentences say
# the word again ("a female ... model. She has modeled"), "Not all" on the subject, "get
# older", a rank before a superlative, "successfully"
ANTONYMY_ANLI_REJECTED = [
    ("anli/R1_dev.jsonl", "Kamila Filipcikova (born 1991) is a female Slovakian fashion model. She has modeled in "
     "fashion shows for designers such as Marc Jacobs, Chanel, Givenchy, Dolce & Gabbana, and Sonia Rykiel. And "
     "appeared on the cover of Vogue Italia two times in a row.",
     "Kamila Filipcikova (born 1991) is a male Slovakian fashion model. She has modeled in "
     "fashion shows for designers such as Marc Jacobs, Chanel, Givenchy, Dolce & Gabbana, and Sonia Rykiel. And "
     "appeared on the cover of Vogue Italia two times in a row.", "passage"),
    ("anli/R3_dev.jsonl", "Not all gun users have been properly vetted.",
     "Not all gun users have been improperly vetted.", "negation"),
    ("anli/R3_dev.jsonl", "The number of men's eggs decrease as they get older.",
     "The number of men's eggs decrease as they get newer.", "position"),
    ("anli/R1_dev.jsonl", " At 78 m (255 feet) tall, it is the second tallest building in the city, after the "
     "102 m, St Paul's Tower on Arundel Gate, which was topped out in 2009.",
     " At 78 m (255 feet) tall, it is the second shortest building in the city, after the "
     "102 m, St Paul's Tower on Arundel Gate, which was topped out in 2009.", "position"),
    ("anli/R1_dev.jsonl", "prohibition successfully closed down mayfield brewery",
     "prohibition unsuccessfully closed down mayfield brewery", "excluded_lemma"),
]


# Edits judged wrong in the held-out SNLI dev sample (reviews/heldout/stress/antonymy/
# snli_dev.before), for which rules were then written: a proportion ("Half of"), a noun
# read as a predicate ("the county fair"), a universal quantifier's restrictive clause, a
# change of state with its cause, "odd" (its antonym is the number sense's)
ANTONYMY_SNLI_DEV_REJECTED = [
    ("Half of the children are male .", "Half of the children are female .", "existential_scope"),
    ("A group is at the county fair .", "A group is at the county unfair .", "position"),
    ("Everybody that is visible is the exact same age .",
     "Everybody that is invisible is the exact same age .", "position"),
    ("A girl gets wet from a splash of water .", "A girl gets dry from a splash of water .", "coordination"),
    ("The dog with the black fur gets wet running in water .",
     "The dog with the black fur gets dry running in water .", "coordination"),
    ("A woman looks odd sitting on the sidewalk with several bags and a bottle while wearing a bathing suit .",
     "A woman looks even sitting on the sidewalk with several bags and a bottle while wearing a bathing suit .",
     "excluded_lemma"),
]


@pytest.mark.parametrize(("text", "edited", "reason"), ANTONYMY_SNLI_DEV_REJECTED)
def test_antonymy_rejects_each_judged_failure_of_the_snli_dev_sample(params, text, edited, reason):
    _in_file(SNLI, text)
    _assert_rejected_by(params, text, edited, reason)


def test_an_adverb_after_a_prepositional_object_is_still_edited(params):
    """The noun-read-as-predicate rule is for adjectives: "sliding on the ground quickly" is
    a manner adverb of the verb."""
    text = "The woman is sliding on the ground quickly to get back to her base ."
    _in_file(SNLI, text)
    hypotheses, counts = _antonymy(params, text)
    assert counts.kept == 1
    assert hypotheses == ["The woman is sliding on the ground slowly to get back to her base ."]


@pytest.mark.parametrize(("rel", "text", "edited", "reason"), ANTONYMY_ANLI_REJECTED)
def test_antonymy_rejects_each_judged_failure_of_the_anli_sample(params, rel, text, edited, reason):
    _in_file(rel, text)
    _assert_rejected_by(params, text, edited, reason)


@pytest.mark.parametrize(("text", "edited", "reason"), ANTONYMY_SNLI_TEST_REJECTED)
def test_antonymy_rejects_a_judged_failure_of_the_snli_test_set(params, text, edited, reason):
    _in_file("snli/snli_1.0_test.jsonl", text)
    _assert_rejected_by(params, text, edited, reason)


@pytest.mark.parametrize(("rel", "text", "edited"), ANTONYMY_UNLINKED_REJECTED)
def test_an_adjective_after_a_verb_that_does_not_link_it_is_not_edited(params, rel, text, edited):
    _in_file(rel, text)
    _assert_rejected_by(params, text, edited, "position")


@pytest.mark.parametrize(("text", "edited"), [
    # linking verbs: being, seeming, becoming, making and finding so
    ("They made sure the setting looked very convincing.", "They made sure the setting looked very unconvincing."),
    ("The men looked weak.", "The men looked strong."),
    # a motion "going to" is no prediction
    ("Jon was happy that Jane was not going to the dance. ", "Jon was unhappy that Jane was not going to the dance. "),
])
def test_linked_adjectives_and_a_motion_going_to_are_edited(params, text, edited):
    _in_file(MNLI, text)
    hypotheses, counts = _antonymy(params, text)
    assert hypotheses == [edited] and counts.kept == 1


@pytest.mark.parametrize(("text", "edited", "reason"), ANTONYMY_EDITS_REJECTED)
def test_antonymy_rejects_each_judged_failure(params, text, edited, reason):
    _in_file(MNLI, text)
    _assert_rejected_by(params, text, edited, reason)


def test_a_property_of_some_occasions_is_not_edited(params):
    """"hundreds of times": the antonym may hold on other occasions (the row is also dropped
    earlier, for "successfully", so that filter is off here)."""
    text = "Russia has been successfully invaded hundreds of times."
    _in_file(MNLI, text)
    _assert_rejected_by(params, text, "Russia has been unsuccessfully invaded hundreds of times.",
                        "existential_scope", others_off=("excluded_lemma",))


def test_an_outcome_for_a_bare_plural_is_not_edited(params):
    """"patients will end up dead": an event that befalls some of a bare plural
    (`existential_scope`). "end up" does not link "dead" to its subject as "be" does, so
    `position` drops the row first (since 2026-11-25) and is off here."""
    text = "Managed care bought Republican votes and patients will end up dead because of this."
    _in_file(MNLI, text)
    _assert_rejected_by(
        params, text, "Managed care bought Republican votes and patients will end up alive because of this.",
        "existential_scope", others_off=("position",),
    )


def test_a_clause_on_a_predicate_pronoun_is_kept(params):
    """An indefinite pronoun as the predicate says what the subject is: its relative clause
    picks out no other thing (`position` keeps it). "believable" itself is in
    `exclude_lemmas` ("unbelievable" reads "astonishing"), so the list is emptied here."""
    text = "That's something that's believable."
    _in_file(MNLI, text)
    hypotheses, counts = _antonymy(params, text, exclude_lemmas=[])
    assert hypotheses == ["That's something that's unbelievable."] and counts.kept == 1


def _assert_rejected_by(params: dict[str, Any], text: str, edited: str, reason: str,
                        others_off: tuple[str, ...] = ()) -> None:
    """Filter ``reason`` rejects the edit of ``text`` into ``edited``, and without it the edit is
    made (with the filters ``others_off`` off throughout). ``exclude_lemmas`` is emptied, and the
    broad ``conditional``, ``existential_scope``, ``coordination`` and ``future`` filters switched
    off, unless they are the reason: a word listed later ("visible", "normal"), a reported claim
    ("I think it's a good thing"), a bare plural subject ("Drinks are available and expensive"),
    a cause anywhere in the sentence ("because they were dangerous") or a prediction ("will end
    up dead") must not hide the rule the row was written for."""
    settings = {k: v for k, v in params["stress"]["tests"]["antonymy"].items() if k != "generator"}
    broad = tuple(name for name in ("conditional", "existential_scope", "coordination", "future")
                  if name != reason)
    settings = deep_merge(settings, {"filters": dict.fromkeys((*others_off, *broad), False)})
    if reason != "excluded_lemma":
        settings["exclude_lemmas"] = []
    generator = Antonymy("antonymy", settings, params)
    table = pa.table({"uid": ["mnli:dev_matched:1"], "premise": [text], "hypothesis": [text]})
    rows = generator.generate(table, Context("mnli", "dev_matched", "en", 2018), RowCounts(unit="sentence"))
    assert edited not in [r.hypothesis for r in rows]
    assert generator.rejected[reason] >= 1, generator.rejected

    # with that filter off, the edit is made: the filter is what rejects it
    off = deep_merge(settings, {"filters": {reason: False}})
    rows = Antonymy("antonymy", off, params).generate(
        table, Context("mnli", "dev_matched", "en", 2018), RowCounts(unit="sentence")
    )
    assert edited in [r.hypothesis for r in rows]


# Verbs (verb_pairs): edits of listed verbs that the rules reject, each seen in a build of
# MNLI dev-matched with verbs switched on (2026-11-24), with the filter that rejects it
ANTONYMY_VERBS_REJECTED = [
    # a relative clause may say which people are meant; an infinitive keeps the original's frame
    ("People who like giving speeches make me uncomfortable. ",
     "People who dislike giving speeches make me uncomfortable. ", "position"),
    ("Siegel likes to wear brightly colored shirts.", "Siegel dislikes to wear brightly colored shirts.", "position"),
    # a range, a degree, the antonym elsewhere in the sentence
    ("Emissions will increase from current emissions of 480 tons to a cap of 2600 tons in 2012.",
     "Emissions will decrease from current emissions of 480 tons to a cap of 2600 tons in 2012.",
     "comparison_standard"),
    ("I like him even more now. ", "I dislike him even more now. ", "comparison_standard"),
    # "by some citizens": other citizens may like it
    ("The Ile Saint-Louis is disliked by some citizens of Paris.",
     "The Ile Saint-Louis is liked by some citizens of Paris.", "existential_scope"),
    # ... and judged wrong in the census of that build's verb rows: some things, something, a
    # generic subject ("People hate playing billiards"), a win of something other than a contest
    ("family-planning organizations agree with the Clinton administration about certain things.",
     "family-planning organizations disagree with the Clinton administration about certain things.",
     "existential_scope"),
    ("Something was approved by the office of affairs.", "Something was disapproved by the office of affairs.",
     "existential_scope"),
    ("A very big decision strengthens our family.", "A very big decision weakens our family.", "existential_scope"),
    ("People hate playing billiards.", "People love playing billiards.", "existential_scope"),
    ("In a new retrospective, the Vienna modernist (1890-1918) wins critics' grudging respect.",
     "In a new retrospective, the Vienna modernist (1890-1918) loses critics' grudging respect.", "position"),
    # a reason, a clause set beside it, another clause the parser split off
    ("We hate them out of jealousy for being smarter than us. ",
     "We love them out of jealousy for being smarter than us. ", "coordination"),
    ("I never use eggs when I cook, I hate them.", "I never use eggs when I cook, I love them.", "coordination"),
    ("I hate the hundred degree days but we get them.", "I love the hundred degree days but we get them.",
     "coordination"),
]


@pytest.mark.parametrize(("text", "edited", "reason"), ANTONYMY_VERBS_REJECTED)
def test_antonymy_rejects_each_verb_failure(params, text, edited, reason):
    _in_file(MNLI, text)
    _assert_rejected_by(params, text, edited, reason)


# Verb edits judged wrong in the held-out sample of ANLI dev and SNLI dev/test verb pairs
# (2026-11-24), for which rules were then written: a contest with other participants, a
# passive "was lost by", "many" or a number of wins, a bare plural that feels, "somewhat",
# "the best"
ANTONYMY_VERBS_HELD_OUT_REJECTED = [
    (SNLI, "A wrestler won the fight .", "A wrestler lost the fight .", "existential_scope"),
    ("anli/R2_dev.jsonl", "The Frank J. Selke Memorial Trophy was won by Nixon.",
     "The Frank J. Selke Memorial Trophy was lost by Nixon.", "position"),
    ("anli/R1_dev.jsonl", "Alexander Sarnavskiy has won many MMA fights in America.",
     "Alexander Sarnavskiy has lost many MMA fights in America.", "existential_scope"),
    ("anli/R3_dev.jsonl", "People loved Scarlet Days", "People hated Scarlet Days", "existential_scope"),
    ("anli/R3_dev.jsonl", "They agree somewhat on the issue of health",
     "They disagree somewhat on the issue of health", "comparison_standard"),
    (SNLI, "They like rock music the best .", "They dislike rock music the best .", "comparison_standard"),
]


@pytest.mark.parametrize(("rel", "text", "edited", "reason"), ANTONYMY_VERBS_HELD_OUT_REJECTED)
def test_antonymy_rejects_each_held_out_verb_failure(params, rel, text, edited, reason):
    _in_file(rel, text)
    _assert_rejected_by(params, text, edited, reason)


# Listed verbs kept, inflected as the original ("hated" -> "loved", "has been increased" ->
# "has been decreased")
ANTONYMY_VERBS_KEPT = [
    ("He hated her.", "He loved her."),
    ("I agree with what you said.", "I disagree with what you said."),
    ("The allowance has been increased since 1989.", "The allowance has been decreased since 1989."),
    ("She loves her children.", "She hates her children."),
    # a passive that says whose attitude it is
    ("She was loved by him.", "She was hated by him."),
]


@pytest.mark.parametrize(("text", "edited"), ANTONYMY_VERBS_KEPT)
def test_antonymy_edits_listed_verbs(params, text, edited):
    _in_file(MNLI, text)
    hypotheses, counts = _antonymy(params, text)
    assert hypotheses == [edited] and counts.kept == 1


@pytest.mark.parametrize("text", [
    "The pub sells a larger range of beers than any other pub in the city.",  # WordNet: sell/buy
    "They were waiting for someone to open the door for them.",  # open/close
    "Harlem did a great job ",  # do/undo
])
def test_verb_antonyms_outside_verb_pairs_are_never_used(params, text):
    """WordNet's verb antonyms are mostly converses and undoings ("sells" -> "buys", "open" ->
    "close"), which a sentence can say together with the original: only verb_pairs are used."""
    _in_file(MNLI, text)
    hypotheses, _ = _antonymy(params, text)
    assert hypotheses == []


@pytest.mark.parametrize("text", [
    "After that I left for Colorado.",  # leave/arrive: a converse
    "A man like me can only succeed.",  # succeed/fail
])
def test_a_sentence_with_only_an_unlisted_verb_is_counted_as_such(params, text):
    """Not as a sentence with no antonym: WordNet has one, verb_pairs does not list it."""
    _in_file(MNLI, text)
    hypotheses, counts = _antonymy(params, text)
    assert hypotheses == [] and counts.dropped[DROP_UNLISTED_VERB] == 1


def test_verb_pairs_go_both_ways_and_only_with_verbs_switched_on(params):
    settings = {k: v for k, v in params["stress"]["tests"]["antonymy"].items() if k != "generator"}
    generator = Antonymy("antonymy", settings, params)
    assert {("like", "dislike"), ("dislike", "like")} <= generator.verb_pairs
    text = "He hated her."
    off = Antonymy("antonymy", {**settings, "pos": ["ADJ", "ADV"]}, params)
    table = pa.table({"uid": ["mnli:dev_matched:1"], "premise": [text], "hypothesis": [text]})
    assert list(off.generate(table, Context("mnli", "dev_matched", "en", 2018), RowCounts(unit="sentence"))) == []


@pytest.mark.parametrize(("text", "edited"), [
    # judged wrong in the held-out SNLI dev review: a thing is "new", people are "young"
    # (spaCy tags "bin" as a PERSON entity; "people" is a group of persons in WordNet)
    ("The bin is old .", "The bin is new ."),
    ("the people are old", "the people are young"),
])
def test_the_sense_of_old_follows_what_it_describes(params, text, edited):
    _in_file(SNLI, text)
    hypotheses, _ = _antonymy(params, text)
    assert hypotheses == [edited]


@pytest.mark.parametrize(("text", "edited"), ANTONYMY_KEPT)
def test_antonymy_keeps_asserted_properties(params, text, edited):
    _in_file(MNLI, text)
    hypotheses, counts = _antonymy(params, text)
    assert hypotheses == [edited] and counts.kept == 1


# -- numerical -------------------------------------------------------------------

NUMERICAL_DROPPED = [
    # questions and imperatives kept as premises
    ("test", "How far can Bill travel on a windy day in 21 minutes?"),
    ("dev", "If a cellphone is purchased for Rs.490 and sold for Rs.465.50 find the loss percentage?"),
    # entities that are NER mistakes: amounts, variables, points
    ("dev", "If P represents a single digit in the four digit number x=18P6, how many different "
            "values of P are there such that x is divisible by 8?"),
    ("test", "Minor arc AC is 160°, and minor arc BD is 150°."),
    # numbers in hyphen compounds, coordinated under one "less than", after "about"
    ("dev", "The H.C.F and L.C.M. of two numbers are 50 and 100 respectively."),
    ("test", "On a normal day Bill usually averages about 15 mph when riding his bicycle."),
]
NUMERICAL_KEPT = [("test", "Anna has 4 books."), ("dev", "Scott bought three bags of candy with 75 pieces in each one.")]


@pytest.fixture(scope="module")
def numerical(params, tmp_path_factory):
    """Premises of the numerical sets of the real AQuA-RAT dev and test files."""
    folder = tmp_path_factory.mktemp("precision_numerical")
    settings = {k: v for k, v in params["stress"]["tests"]["numerical"].items() if k != "generator"}
    premises = {}
    for split in ("dev", "test"):
        source = canonical_table(params, "aqua_rat", split, f"aqua_rat/{split}.json", folder)
        table, _ = read_input(source, "aqua", params)
        counts = RowCounts(unit="sentence")
        rows = list(Numerical("numerical", settings, params).generate(
            table, Context("aqua_rat", split, "en", 2018), counts))  # fmt: skip
        premises[split] = {r.premise for r in rows if r.label != "neutral"}
        premises[f"{split}_questions"] = " ".join(table["question"].to_pylist())
    return premises


@pytest.mark.parametrize(("split", "sentence"), NUMERICAL_DROPPED)
def test_numerical_drops_each_failure_class(numerical, split, sentence):
    assert sentence in " ".join(numerical[f"{split}_questions"].split())  # a real question
    assert sentence not in numerical[split]


@pytest.mark.parametrize(("split", "sentence"), NUMERICAL_KEPT)
def test_numerical_keeps_plain_statements(numerical, split, sentence):
    assert sentence in numerical[split]


# -- word-pair swaps ---------------------------------------------------------------


def test_substitutes_come_from_the_antonym_sense_only(params):
    """I_TA2/I_TA3 substitutes: "A wave in all black", "A cat is jumping" are gone."""
    for_man = {word for word, _, _ in substitutes("man", "woman", params)}
    assert {"gentleman", "adult", "guy"} <= for_man and not {"cat", "world", "wave"} & for_man
    for_woman = {word for word, _, _ in substitutes("woman", "man", params)}
    assert {"lady", "girl"} <= for_woman and not {"wave", "son", "wife"} & for_woman
    # "outdoors" stands in for the adverb "outside", never for the noun ("the outdoors of a house")
    for_outside = set(substitutes("outside", "inside", params))
    assert ("outdoors", "synonym", "r") in for_outside and not any(
        word == "outdoors" and pos == "n" for word, _, pos in for_outside
    )


@pytest.mark.parametrize(
    ("text", "word", "other", "reason", "relation"),
    [
        # a compound modifier swapped: "soccer field" -> "game field"
        ("Two men in uniforms are in soccer field behind a line waiting to play .", "soccer",
         "game", "compound", "hypernym"),
        # a particle: "patching up a hut" -> "patching down a hut"
        ("A roofer is patching up a hut in a village .", "up", "down", "part_of_speech", "antonym"),
        # a gendered noun in a sentence with a gendered pronoun
        ("A woman brushes her teeth .", "woman", "man", "gendered_pronoun", "antonym"),
        # the source's own error ("A young women") stays in every row built from it
        ("A young women , in a black shirt , is holding a bike , while a young boy is holding a "
         "skateboard .", "black", "white", "source_grammar", "antonym"),
        # "a tool" -> "a scissors" (a plural-only noun after "a")
        ("A woman uses a tool .", "tool", "scissors", "agreement", "hypernym"),
        # judged in the antonym swap samples: a complement only "full" takes, "same ... as"
        ("There is a room full of pictures all in the wall and a woman in a coat is looking back over her "
         "shoulders strangely .", "full", "empty", "fixed_expression", "antonym"),
        ("A man is chasing an SUV that is going in the same direction as him .", "same", "other",
         "fixed_expression", "antonym"),
        # judged in the hypernym census: "a female adult" -> "a female woman"
        ("A young child wearing a pink top is with a female adult .", "adult", "woman", "gendered_pronoun", "hypernym"),
    ],
)
def test_swap_occurrences_that_cannot_be_swapped(params, text, word, other, reason, relation):
    _in_file(SNLI, text)
    occurrences = OccurrenceFilter(params, "swap.filters", {})
    occurrences.check_grammar()
    allowed = occurrences.pair_pos(word, other, relation)
    assert reason in occurrences.reasons(text, word, allowed, other)


@pytest.mark.parametrize(
    ("text", "word", "other"),
    [
        ("A man is jumping over a rock .", "man", "woman"),
        # "full" with no complement; "the same" with no "as"
        ("The garbage bin is full .", "full", "empty"),
        ("Girls are dressed in the same color .", "same", "different"),
    ],
)
def test_swap_occurrence_that_can_be_swapped(params, text, word, other):
    _in_any_file(text)
    occurrences = OccurrenceFilter(params, "swap.filters", {})
    occurrences.check_grammar()
    assert occurrences.reasons(text, word, occurrences.pair_pos(word, other, "antonym"), other) == []


# -- distraction and noise -----------------------------------------------------------


def test_an_abbreviation_keeps_its_period():
    for text, expected in [
        ("Are you from the U.S.?", "Are you from the U.S. and true is true?"),
        ("Benchmarked by U.S.", "Benchmarked by U.S. and true is true."),
    ]:
        _in_file(MNLI, text)
        assert conjoin(text, " and true is true", ".!?;:…\"'”’)]")[0] == expected


def test_a_spelling_error_never_makes_another_word(params, tmp_path):
    """ "form" -> "from" would change the meaning: the real_word filter redraws it."""
    from nlistress.perturb.spelling import SpellingError

    source = canonical_table(params, "mnli", "dev_matched", MNLI, tmp_path)
    table, _ = read_input(source, "nli", params)
    is_word = SpellingError("spelling_error", {}, params)._lexicon(table)
    assert is_word("from") and is_word("form") and is_word("forms") and not is_word("fomr")


# -- source grammar -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("A man is seraching for something", "typo 'seraching'"),
        ("An old women in a purple skirt is gardening with a old tool .", "singular determiner"),
        ("indain woman playing cricket with white woman", "no determiner on 'woman'"),
        ("A brown a dog and a black dog in the edge of the ocean with a wave under them boats are "
         "on the water in the background .", "two determiners"),
        # the rows judged ungrammatical in the 2026-11 samples
        ("Flaming are shooting from the rear of a race car .", "gerund 'Flaming' with a plural verb"),
        ("A boy in a red shirt with arms outstretched on the side of hill .", "no determiner on 'hill'"),
        ("Last year Joe grew 2 inch and Sally grew 200 percent more than Joe grew", "plural number on 'inch'"),
        ("Last year Sahara, Tata, Singhania and Birla each has 250 industries",
         "present 'has' with a past time"),
        ("10% of total students are interested in Basketball and remaining 20 students are not "
         "interested in any games", "no article before 'remaining'"),
        ("A girl stands near a clothing rack ,", "ends in a comma"),
        ("A man with white tennis shoes and an orange jacket , is sitting in a lawn chair .",
         "a comma between the subject and 'is'"),
        ("A man in a striped shirt and lady in a black hat are watching a young band perform on stage .",
         "no determiner on 'lady'"),
        ("A Man in a blue shirt and jeans is walking across the street .", "capital on the common noun 'Man'"),
        ("John buys koolaid for 12$ at a local store", "currency sign after the number"),
        ("In a class, 8% of total students are interested in Football", "no article before 'total'"),
        ("An asian man wearing a blue shirt is kicking up water .", "lower-case 'asian'"),
        ("Street performer with bowler hat and high boots performs outside .",
         "no determiner on the subject 'performer'"),
        ("Beautiful red car among many at a car show full of excited car enthusiasts held on a tree "
         "lined street .", "no determiner on the subject 'car'"),
        ("Diamonds are rated alphabetically, the ones from D to F are considered the best.",
         "comma splice before 'considered'"),
        # "it's" for "its", judged ungrammatical in the antonymy sample of the 2026-11-23 build
        ("Espalmador is popular with yachtsmen for it's white sand beach.", "\"it's\" for \"its\""),
        ("The Vienna modernist was relatively unknown at the time of it's birth.", "\"it's\" for \"its\""),
        ("It's discount name designer outlet stores are very popular.", "\"it's\" for \"its\""),
        ("The motion was quickly approve because everyone thought it was amazing.", "bare 'approve' after 'be'"),
        # judged ungrammatical in the samples of the 2026-11-23 builds: a word general English
        # never uses, a doubled consonant typed once, capitalised words run together, "be" + modal
        ("A girl in green looks at the camera and stands in front of a huge crowd of indescript faces .",
         "typo 'indescript'"),
        ("A lady siting on the ground cutting decorating out a white sheet .", "typo 'siting'"),
        ("They expelled him from Rand because he commited a crime", "typo 'commited'"),
        ("Cruises are available from the Bhansi Ghat, which is near the CityPalace.",
         "words run together in 'CityPalace'"),
        ("Harrer was will aware that she was.", "'was' before the modal 'will'"),
        # judged ungrammatical in the AQuA-RAT census: a name split from its compound, "which"
        # for people, a simple present after "by the time"
        ("A ticket to Disney land costs $24.", "Disney 'land' for 'disneyland'"),
        # judged ungrammatical in the swap samples: a verb-only word after "a", an adjective-only
        # word as the noun
        ("A toddler dressed only in a pamper is sitting on the floor", "'pamper' is no noun"),
        ("A man rows a small dingy laden with green plants on a river .", "'dingy' is no noun"),
        ("The three girls are arm wrestling in China town .", "China 'town' for 'chinatown'"),
        ("Bert and Ernie are among 12 tenants on Sesame Street, from which 9 tenants are to be selected",
         "'which' for the people 'tenants'"),
        ("By the time they meet for the second time, Bob covers 48 km more than Allen.",
         "simple present after 'by the time'"),
        # judged ungrammatical in the hypernym census: two predicates with no "and"
        ("Two men , both have glasses , are wearing striped shirts are in the kitchen preparing a meal and "
         "washing up .", "a second verb 'are'"),
        ("A man is in a purple bathrobe is inside his home cooking breakfast .", "a second verb 'is'"),
        # judged ungrammatical in the samples of the 580-pair antonymy build
        ("If one get's distracted, it's very easy to make a fatal mistake. ", "\"get's\" for a verb"),
        ("In addition to looking pale, she also look very weak.", "'look' after a singular pronoun"),
        # ... and in the census of the 558-pair build
        ("They volunteers were happy to help.", "'They' before the noun 'volunteers'"),
        ("They are the best team in the league, by they are not my favorite.",
         "preposition 'by' before a clause"),
        ("He's definitely afraid of losing he's No.", "a capital 'No' inside a clause"),
        # ... and in the census of the 507-pair build: a quotation closed alone, a footnote number
        ('Anyway, she was found dead this morning."', "unmatched quotation mark"),
        ("5 The share of gross national saving used to replace depreciated capital has increased "
         "over the past 40 years.", "footnote number before the sentence"),
        # ... and in the census of the 500-pair build: a singular subject with "were"/"have"
        ("My choice of dishes were better than yours but yours were good too.",
         "singular 'choice' with the plural verb"),
        ("Concentration of greenhouse gases, especially CO2, have increased substantially since the "
         "beginning of the industrial revolution.", "singular 'Concentration' with the plural verb"),
        ("The man are pulling in tuna fish .", "singular 'man' with the plural verb"),
        # ... and in the swap censuses: a described idiom noun with no article, a hyphen that
        # joins an adjective to the noun heading its phrase
        ("Interior scene of fairly full tour bus .", "no determiner on 'bus'"),
        ("A smiling young girl with blond-hair , blue eyes , and a pink shirt , is holding a yellow "
         "flower towards the viewer outside .", "hyphen in the noun phrase 'blond-hair'"),
    ],
)
def test_source_grammar_finds_errors_the_source_already_has(params, text, fault):
    _in_any_file(text)
    doc = spacy_pipeline(params)(text)
    assert any(f.startswith(fault) for f in SourceGrammar(wordnet(params)).faults(doc[:])), fault


def test_a_plural_spelt_as_its_singular_takes_a_plural_verb(params):
    """"fish" is its own plural: the agreement check leaves "Fresh fish are" alone (the
    caption has no article, which another check faults)."""
    text = "Fresh fish are for sale at an outdoor marketplace ."
    _in_any_file(text)
    doc = spacy_pipeline(params)(text)
    assert not any(SourceGrammar._plural_verb_for_singular(t) for t in doc)
    faults = SourceGrammar(wordnet(params)).faults(doc[:])
    assert faults and not any("plural verb" in f for f in faults)


def test_source_grammar_frequency_bounds_come_from_params(params):
    """The typo bounds are the `source_grammar` section: "siting" (2.7) is a slip for
    "sitting" (4.9) at the default `common_zipf` 4.5, and is not above 5; a bad bound is
    refused with its key path."""
    text = "A lady siting on the ground cutting decorating out a white sheet ."
    _in_any_file(text)
    doc = spacy_pipeline(params)(text)
    # params.yaml states the API's defaults, so a caller without the section filters alike
    assert WordFrequencyBounds.from_params(params) == WordFrequencyBounds() == WordFrequencyBounds(3.0, 2.0, 4.5)
    strict = WordFrequencyBounds.from_params(deep_merge(params, {"source_grammar": {"common_zipf": 5.0}}))
    assert strict.common_zipf == 5.0
    assert SourceGrammar(wordnet(params), strict).faults(doc[:]) == []
    assert SourceGrammar(wordnet(params), WordFrequencyBounds.from_params(params)).faults(doc[:])
    with pytest.raises(ConfigError, match="source_grammar.typo_gap"):
        WordFrequencyBounds.from_params({"source_grammar": {"typo_gap": -1}})


@pytest.mark.parametrize(
    "text",
    [
        "A man wears a green mask that turns him into a superhero .",  # a new word, not a typo
        "A child in winter gear is hiding from his friends in a cave made of snow .",  # mass noun
        "Someone is selling oranges",
        # "a" belongs to the jacket, not to "jeans"
        "A child in a jeans jacket and shorts holding up a white dress as another darker-skinned "
        "child looks at it .",
        # unit symbols do not take a plural; a measure before an adjective is a modifier
        "Kevin drove from A to B at a constant speed of 70 mph",
        "A stunning six foot blonde woman sat at the bar with the men after work.",
        # a role after "as", an irregular participle
        "Wallace was reelected as governor of Illinois.",
        "My parents have never gone sailing or white water rafting.",
        # a shared article, a name in capitals, a bare plural after "Entire"
        "A man and woman are sitting at a table in front of a sign that reads IL PORTO and two wine "
        "bottles and two wineglasses are on the table .",
        "The kids are playing Ticket to Ride while riding a kayak down the New River .",
        "Entire neighborhoods have been flattened just to make life easier for them.",
        # a trademark used as a common noun; a noun after "kind of"
        "The dog is trying to catch a frisbee .",
        "I think it's one or the other kind of shirt.",
        # "it's" for "it is"
        "Sir James thinks it's totally reasonable.",
        "It's easy to overdose on the many temples, palaces, and museums in India.",
        # one edit from a far more common word ("missing", "amids"), yet words of their own
        "A cat is hissing at something .",
        "A taxi is trying to drive on a street amidst a crowd of people .",
        "The 49ers are ready to play versus their rivals .",
        # "Never mind" opens a clause; "Web site" is a standard spelling; "which" for a book;
        # a past tense after "by the time"
        "(Never mind the strictest reading, which supposes that creation took a week.)",
        "By the time I came here in eighty seven, punch cards were no longer required.",
        "He said the Web site will help bridge the digital divide that keeps the poor from using the "
        "Internet as a resource.",
        # a verb used as a noun with its adjective: English
        "Multiple people starting to pack their parachutes after a successful skydive .",
        "I was displeased with your actions and I don't think you deserve a thank you.",
        "A costume worn by this little boy is making him feel a little insecure .",
        # "be" after a verb of thinking, whose subject is extracted
        "It is that prospect that may bring Republicans together to defend a CPI everyone knows is inaccurate.",
        "Come on, let's have tea. ",
        "Reich refers to a chart that he misunderstood.",
        # a subject pronoun before its verb, which the tagger reads as a noun
        "He gestures towards a nearby car .",
        # quotation marks in pairs; a number that is the subject's own
        '"An egg has got to hatch," he said.',
        "6 cents are used for domestic investment.",
        # agreement the check must not fault: a group, a zero plural, a coordinated subject the
        # parser splits, a plural the tagger reads as singular
        "A group of people are sitting on horses .",
        "The censure and community service are very important.",
        "The oxen are pulling the carriage .",
        # a hyphenated modifier, and a bare idiom noun as the idiom has it
        "A worried blond-haired baby is sitting inside a large , shiny metal cooking pot that is on "
        "top of an electric stove .",
        "A man is singing on stage .",
    ],
)
def test_source_grammar_passes_well_formed_sentences(params, text):
    _in_any_file(text)
    doc = spacy_pipeline(params)(text)
    assert SourceGrammar(wordnet(params)).faults(doc[:]) == []
