"""Antonymy stress test (Naik et al. 2018, section 3.1) on the real MultiNLI dev sets.

The set is built once per module from ../shared/data/mnli with the real spaCy
model and WordNet (tests/shared.yaml); every pair is re-checked against
WordNet, and premise and hypothesis must differ exactly at the recorded edit.
Hand-written sentences cover only edge cases (capitalisation, inflection,
articles) that the real data cannot pin down; they run with the precision
filters off, which tests/test_precision.py covers on real rows.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from nlistress.canonical import build_nli_table
from nlistress.config import DatasetSpec, PrepareSettings, deep_merge
from nlistress.errors import ConfigError
from nlistress.manifest import RowCounts
from nlistress.perturb.antonymy import (
    DROP_DUPLICATE,
    DROP_NO_ANTONYM,
    DROP_UNLISTED_VERB,
    FILTERS,
    Antonymy,
    _inflect,
)
from nlistress.perturb.base import SET_SCHEMA, Context, SetRow, rows_to_table
from nlistress.perturb.wording import match_case, negative_prefix
from nlistress.readers import open_source
from nlistress.resources import wordnet

from .support import ROOT, project_params, read_csv, reimport, shared_override

SEED = 2018


@pytest.fixture(scope="module")
def params() -> dict[str, Any]:
    return deep_merge(project_params(), shared_override())


def _mnli(params: dict[str, Any], split: str) -> pa.Table:
    spec = DatasetSpec.from_params(params, "mnli")
    split_spec = spec.split(split)
    rows = open_source(split_spec.source, split_spec.source.path)
    table, _ = build_nli_table(
        rows, spec, split, split_spec.labelled, PrepareSettings.from_params(params)
    )
    return table


def _generate(
    params: dict[str, Any], table: pa.Table, split: str, seed: int = SEED,
    dropped: list[SetRow] | None = None, **settings: Any,
) -> tuple[list[SetRow], RowCounts]:
    """The set's rows and counts; ``dropped``, where given, collects the pairs the filters dropped."""
    merged = {**params["stress"]["tests"]["antonymy"], **settings}
    counts = RowCounts(unit="sentence")
    generator = Antonymy("antonymy", merged, params)
    generator.dropped = dropped
    rows = list(generator.generate(table, Context("mnli", split, "en", seed), counts))
    return rows, counts


@pytest.fixture(scope="module")
def matched_run(params) -> tuple[pa.Table, list[SetRow], RowCounts, list[SetRow]]:
    """MNLI dev-matched built once, keeping the pairs the filters dropped (``--dropped``)."""
    table = _mnli(params, "dev_matched")
    dropped: list[SetRow] = []
    rows, counts = _generate(params, table, "dev_matched", dropped=dropped)
    return table, rows, counts, dropped


@pytest.fixture(scope="module")
def matched(matched_run) -> tuple[pa.Table, list[SetRow], RowCounts]:
    return matched_run[:3]


@pytest.fixture(scope="module")
def dropped(matched_run) -> list[SetRow]:
    return matched_run[3]


def _rebuild(row: SetRow) -> str:
    """The hypothesis re-derived from the premise and the recorded edits only."""
    p = row.params
    edits = [(p["char_start"], p["char_end"], p["replacement"])]
    if p["article"] is not None:
        a = p["article"]
        assert row.premise[a["char_start"] : a["char_end"]] == a["word"]
        edits.append((a["char_start"], a["char_end"], a["replacement"]))
    text = row.premise
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def test_count_on_mnli_dev_matched(matched):
    table, rows, counts = matched
    print(
        f"\nantonymy on MNLI dev-matched: {len(rows):,} pairs from {table.num_rows:,} rows "
        f"({counts.as_dict()}); the paper reports 1,561"
    )
    # 454 with the default settings and seed (issue 13 asks for 1,000: the filters added after
    # the 2026-11 judged samples drop the rows judged wrong or unreadable, the last of them
    # the 30 sentences that give a cause, whose edits the census judges found incoherent more
    # than half the time, the 14 predictions of `future`, whose labels the judges split on, and
    # "works pretty good", an adjective after a verb that does not link it (`position`);
    # `antonymy_reviewed` holds the 1,000; README says so).
    assert len(rows) == 453
    assert rows_to_table(rows).schema == SET_SCHEMA


def test_the_committed_judgements_are_of_the_rows_that_build_today(matched):
    """The census in reviews/ judges exactly today's rows, and each sample draws from them:
    a filter change that drops or adds a pair must come with its judgements updated."""
    _, rows, _ = matched
    built = {(r.uid, r.premise, r.hypothesis) for r in rows}
    folder = ROOT / "reviews"
    census = read_csv(folder / "stress/antonymy/mnli_dev_matched.census.csv")
    assert {(r["uid"], r["premise"], r["hypothesis"]) for r in census} == built
    for sample in ("stress", "blind/stress", "second/stress"):
        judged = read_csv(folder / sample / "antonymy/mnli_dev_matched.csv")
        assert {(r["uid"], r["premise"], r["hypothesis"]) for r in judged} <= built
        # each drew 100 rows from an earlier build and keeps the ones that still build: the
        # blind sample lost its two-sentence text to `passage`, the narrower antonyms of
        # `exclude_lemmas` one row of each, the strict recheck's rules 11 to 16, and the cause
        # rule of 2026-11-25 six to nine rows of each (their judgements are in the census's
        # reviews/dropped/stress/antonymy/mnli_dev_matched.cause.csv), `future` one to seven,
        # and the linking-verb rule none of the three
        assert len(judged) >= 74


def test_the_committed_summaries_are_what_their_csvs_say(matched, tmp_path):
    """Each summary in reviews/ that judges MNLI dev-matched is its CSV imported today
    (the rates, the problems and where the grammar faults lie): a CSV edited by hand
    must be imported again. The set is written here from the built rows, so its sha256
    is the one other tests check, not compared again."""
    _, rows, _ = matched
    built = tmp_path / "mnli_dev_matched.parquet"
    pq.write_table(rows_to_table(rows), built)
    summaries = sorted((ROOT / "reviews").glob("**/antonymy/mnli_dev_matched*.json"))
    # the paper-mode build's sample is checked against that build (tests/test_paper_mode.py),
    # the judged dropped pairs against those pairs (below)
    summaries = [p for p in summaries if not p.name.endswith(".paper.json")
                 and "dropped" not in p.relative_to(ROOT / "reviews").parts]  # fmt: skip
    # census, sample, blind sample, second judge, strict recheck, strict pass, third judge, and
    # four fresh judges' census of the 454-pair build (453 of its rows build today)
    assert len(summaries) == 8
    for path in summaries:
        summary = json.loads(path.read_text(encoding="utf-8"))
        again = reimport(path, built, tmp_path / path.name)
        assert {**again, "sets": None} == {**summary, "sets": None}, path


def test_dropped_pairs_name_their_filter_and_leave_the_set_alone(matched, dropped):
    """`perturb --dropped`: every pair a filter rejected, built as the set's pairs are and
    naming its filter; a kept sentence's rejected words are among them, its kept ones not."""
    _, rows, _ = matched
    by_filter = Counter(r.params["filter"] for r in dropped)
    print(f"\n{len(dropped):,} pairs the filters dropped on MNLI dev-matched: {dict(by_filter.most_common())}")
    assert len(dropped) == 9247
    assert set(by_filter) <= set(FILTERS)
    assert {r.uid for r in rows}.isdisjoint(r.uid for r in dropped)
    assert len({r.uid for r in dropped}) == len(dropped)
    for row in dropped:
        assert row.label == "contradiction" and row.perturbation == "antonymy"
        assert _rebuild(row) == row.hypothesis != row.premise
    kept = {r.premise for r in rows}
    assert any(r.premise in kept for r in dropped)  # a sentence can give both


def test_the_judged_dropped_pairs_are_of_the_pairs_dropped_today(dropped, tmp_path):
    """reviews/dropped/: pairs the filters dropped, two blind judges each, a strict third on the
    pairs both passed and a fourth on the coherence of those: a sample drawn per filter, and the
    census of the pairs of `position`, of eight more filters, of `excluded_lemma` and `modal`, and
    of six more (`negation`, `conditional` and four smaller ones), and the census rows the cause
    rule, the `future` filter and the linking-verb rule of `position` moved out of the set
    (`cause`, `future`, `linking`, their judgements carried over).
    Every judged pair is one dropped today, by the same filter, and
    each summary (with the rates of each filter, --by filter) is its CSV imported today."""
    built = {r.uid: r for r in dropped}
    file = tmp_path / "mnli_dev_matched.dropped.parquet"
    pq.write_table(rows_to_table(dropped), file)
    folder = ROOT / "reviews/dropped/stress/antonymy"
    summaries = sorted(folder.glob("mnli_dev_matched*.json"))
    assert [p.name for p in summaries] == ["mnli_dev_matched.cause.json",
                                           "mnli_dev_matched.disfluent_question_imperative.json",
                                           "mnli_dev_matched.excluded_lemma_modal.json",
                                           "mnli_dev_matched.future.json", "mnli_dev_matched.json",
                                           "mnli_dev_matched.linking.json",
                                           "mnli_dev_matched.more_pools.json", "mnli_dev_matched.pools.json",
                                           "mnli_dev_matched.position.json", "mnli_dev_matched.six_pools.json"]  # fmt: skip
    seen: set[str] = set()
    for path in summaries:
        judged = read_csv(path.with_suffix(".csv"))
        for record in judged:
            row = built[record["uid"]]
            assert (record["premise"], record["hypothesis"]) == (row.premise, row.hypothesis)
            assert json.loads(record["perturbation_params"])["filter"] == row.params["filter"]
        uids = {r["uid"] for r in judged}
        assert seen.isdisjoint(uids) and len(uids) == len(judged)
        seen |= uids
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert {**reimport(path, file, tmp_path / "again.json"), "sets": None} == {**summary, "sets": None}
        assert summary["by"]["param"] == "filter"
    sample = json.loads((folder / "mnli_dev_matched.json").read_text(encoding="utf-8"))
    groups = sample["by"]["groups"]
    # drawn per filter before `future` was written (its 14 pairs are all in .future)
    assert sample["reviewed"] == 377 and set(groups) == set(FILTERS) - {"future"}
    # the filter whose dropped pairs are most often right: still far below the set's 95%
    assert max(g["label_correct_rate"] for g in groups.values() if g["reviewed"] >= 20) < 0.75
    position = json.loads((folder / "mnli_dev_matched.position.json").read_text(encoding="utf-8"))
    # the census of `position`'s pairs; one of them ("They ran slowly because they were tired")
    # is `coordination`'s since the linking-verb rule of 2026-11-25 let manner adverbs of "run"
    # through `position`
    assert {k: g["reviewed"] for k, g in position["by"]["groups"].items()} == {"position": 1287, "coordination": 1}
    pools = json.loads((folder / "mnli_dev_matched.excluded_lemma_modal.json").read_text(encoding="utf-8"))
    assert {k: g["reviewed"] for k, g in pools["by"]["groups"].items()} == {"excluded_lemma": 1322, "modal": 886}
    # every pair judged: the last, those of `disfluent`, `question` and `imperative` (transcribed,
    # asked or ordered sentences), on 2026-11-25; and the 14 census rows `future` moved out and
    # the one the linking-verb rule did
    assert len(seen) == 9247
    last = json.loads((folder / "mnli_dev_matched.disfluent_question_imperative.json").read_text(encoding="utf-8"))
    assert {k: g["reviewed"] for k, g in last["by"]["groups"].items()} == {
        "disfluent": 875, "question": 115, "imperative": 53}  # fmt: skip


def test_the_reviewed_set_is_the_rows_every_judge_passed(params, matched, dropped, tmp_path):
    """antonymy_reviewed keeps the built rows the census says yes to on both answers and the
    dropped pairs every judge of reviews/dropped/ passed, and its committed fresh sample
    (reviews/stress/antonymy_reviewed) is its CSV imported today."""
    from nlistress.perturb import make_generator
    from nlistress.review import read_judgements

    _, rows, _ = matched
    reviewed = make_generator("antonymy_reviewed", params)
    paths = [ROOT / p for p in reviewed.reviews["mnli/dev_matched"]]
    judged = {uid: j for path in paths for uid, j in read_judgements(path).items()}
    kept = [r for r in [*rows, *dropped] if reviewed._fault(r, judged.get(r.uid)) is None]
    passed = [r["uid"] for path in paths for r in read_csv(path)
              if r["label_correct"] == "yes" and r["grammatical"] == "yes"]  # fmt: skip
    assert sorted(r.uid for r in kept) == sorted(passed)  # every yes of every review is a row today
    # 314 of the rules' rows (the 334 the census's judges passed, less the 20 the four fresh
    # judges of the rule-made set faulted) and 755 dropped pairs, 11 of them census rows the
    # cause rule moved and 13 of `disfluent`, `question` and `imperative` (issue 13 asks for
    # 1,000; README)
    assert len(kept) == 1069
    built = tmp_path / "mnli_dev_matched.parquet"
    pq.write_table(rows_to_table(kept), built)
    path = ROOT / "reviews/stress/antonymy_reviewed/mnli_dev_matched.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    again = reimport(path, built, tmp_path / path.name)
    assert {**again, "sets": None} == {**summary, "sets": None}
    # drawn from the 1,089-row build; 98 of its rows are in today's
    assert summary["reviewed"] == 98 and summary["sets"][0]["rows"] == len(kept)
    # and four more fresh judges' census of every row of today's build
    census = ROOT / "reviews/stress/antonymy_reviewed/mnli_dev_matched.census.json"
    judged = read_csv(census.with_suffix(".csv"))
    assert sorted((r["uid"], r["premise"], r["hypothesis"]) for r in judged) == sorted(
        (r.uid, r.premise, r.hypothesis) for r in kept)  # fmt: skip
    summary = json.loads(census.read_text(encoding="utf-8"))
    assert summary["census"] and summary["reviewed"] == len(kept)
    assert {**reimport(census, built, tmp_path / census.name), "sets": None} == {**summary, "sets": None}
    # the checks of the set's earlier builds the same day: the rules' 422 rows alone (before any
    # dropped pair joined), 970 rows (before the last filters' pairs were judged), 1,035 (before
    # the fourth judge took the incoherent dropped pairs), 858 (before it read the rules' rows)
    # 810 (before the pools of `excluded_lemma` and `modal` were judged), 1,092 (before a
    # fifth judge read the 810 rows again), 1,121 (before a sixth read every row) and 1,076 (the
    # same pairs before the cause rule moved 11 of them to the dropped pairs; then, after it, by
    # seed 2043, before the pairs of the last three filters were judged): each judged row
    # builds today, and each summary's rates are its CSV's
    pool = {r.uid: r for r in [*rows, *dropped]}
    for name in ("422", "1172", "970", "1035", "858", "810", "1092", "1121", "1076", "1076-2043"):
        size = int(name.split("-")[0])
        path = ROOT / "reviews/stress/antonymy_reviewed/before" / f"mnli_dev_matched.{name}.json"
        sample = read_csv(path.with_suffix(".csv"))
        assert all((pool[r["uid"]].premise, pool[r["uid"]].hypothesis) == (r["premise"], r["hypothesis"])
                   for r in sample)  # fmt: skip
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert summary["sets"][0]["rows"] == size and summary["reviewed"] == len(sample) == 100
        assert summary["label_correct_rate"] == sum(r["label_correct"] == "yes" for r in sample) / 100
        assert summary["grammatical_rate"] == sum(r["grammatical"] == "yes" for r in sample) / 100


@pytest.mark.parametrize("review", ["anli_dev", "snli_dev", "snli_test", "verbs", "strict"])
def test_the_held_out_judgements_are_of_rows_that_build_today(params, review):
    """Every row judged in reviews/heldout/stress/antonymy (those naming today's builds; the
    `.before` reviews name earlier builds on purpose) is built again, the same,
    from its source sentence alone: a pair depends on its sentence and the seed only, so this
    needs no rebuild of ANLI or SNLI, and a rule that drops or changes a judged row fails.
    Each build is rebuilt on its own (the strict review spans SNLI dev read from the canonical
    table and from the JSON-lines file, which share sentences a build reads once)."""
    judged = read_csv(ROOT / "reviews/heldout/stress/antonymy" / f"{review}.csv")
    builds: dict[str, dict[str, tuple[str, str]]] = {}
    for r in judged:
        source_uid, side, _ = r["uid"].removeprefix("antonymy:").rsplit(":", 2)
        builds.setdefault(source_uid.rsplit(":", 1)[0], {})[r["premise"]] = (source_uid, side)
    built = set()
    for sources in builds.values():
        table = pa.table({
            "uid": [uid for uid, _ in sources.values()],
            "premise": [text if side == "premise" else "" for text, (_, side) in sources.items()],
            "hypothesis": [text if side == "hypothesis" else "" for text, (_, side) in sources.items()],
        })
        rows, _ = _generate(params, table, "heldout")
        built |= {(r.uid, r.premise, r.hypothesis) for r in rows}
    assert {(r["uid"], r["premise"], r["hypothesis"]) for r in judged} <= built


def test_accounting_is_in_sentences(matched):
    table, rows, counts = matched
    distinct = len(
        set(table.column("premise").to_pylist()) | set(table.column("hypothesis").to_pylist())
    )
    assert counts.unit == "sentence"
    assert counts.input == 2 * table.num_rows
    counts.check()  # input == kept + dropped
    assert counts.dropped[DROP_DUPLICATE] == counts.input - distinct
    # Every other drop is a sentence with no candidate word, or a named precision filter.
    filters = {f"filter: {name}" for name in FILTERS}
    assert set(counts.dropped) - {DROP_DUPLICATE, DROP_NO_ANTONYM, DROP_UNLISTED_VERB} <= filters
    assert {"filter: negation", "filter: modal", "filter: question"} <= set(counts.dropped)
    # Each kept sentence gives one pair per replaced word (max_per_sentence words at most).
    assert counts.kept == len({(r.source_uid, r.params["side"]) for r in rows})
    assert counts.kept <= len(rows) <= 3 * counts.kept


def test_every_pair_is_a_wordnet_antonym_pair(params, matched):
    wn = wordnet(params)
    _, rows, _ = matched
    for row in rows:
        p = row.params
        synset = wn.synset(p["synset"])
        assert synset.pos() in {"ADJ": "as", "ADV": "r", "VERB": "v"}[p["pos"]], p
        if p["pos"] == "VERB":  # only the verb_pairs, never a converse ("buy"/"sell")
            listed = params["stress"]["tests"]["antonymy"]["verb_pairs"]
            assert [p["lemma"], p["antonym_lemma"]] in listed or [p["antonym_lemma"], p["lemma"]] in listed, p
        (lemma,) = [lem for lem in synset.lemmas() if lem.name() == p["lemma"]]
        antonyms = {(a.name(), a.synset().name()) for a in lemma.antonyms()}
        # A WordNet antonym link, or the word's negative-prefix twin ("comfortable" /
        # "uncomfortable") where WordNet has both words but no link (prefix_antonyms).
        assert (p["antonym_lemma"], p["antonym_synset"]) in antonyms or negative_prefix(
            p["antonym_lemma"], p["lemma"]
        ) or negative_prefix(p["lemma"], p["antonym_lemma"]), p
        base = p["antonym_lemma"].replace("_", " ")
        if p["word"].lower() == p["lemma"].lower().replace("_", " "):
            assert p["replacement"].lower() == base.lower(), p


def test_premise_and_hypothesis_differ_only_at_the_recorded_span(matched):
    table, rows, _ = matched
    first_uid = {}
    for uid, premise, hypothesis in zip(
        table.column("uid").to_pylist(),
        table.column("premise").to_pylist(),
        table.column("hypothesis").to_pylist(),
        strict=True,
    ):
        first_uid.setdefault(premise, uid)
        first_uid.setdefault(hypothesis, uid)
    for row in rows:
        p = row.params
        assert row.premise[p["char_start"] : p["char_end"]] == p["word"]
        assert row.hypothesis != row.premise
        assert _rebuild(row) == row.hypothesis
        assert row.source_uid == first_uid[row.premise]


def test_labels_and_provenance(matched):
    _, rows, _ = matched
    assert {r.label for r in rows} == {"contradiction"}
    assert {r.label_id for r in rows} == {2}
    assert {(r.dataset, r.split, r.perturbation) for r in rows} == {
        ("mnli", "dev_matched", "antonymy")
    }
    assert len({r.uid for r in rows}) == len(rows)
    for row in rows[:200]:
        p = row.params
        assert row.uid == f"antonymy:{row.source_uid}:{p['side']}:{p['token_index']}"
        assert json.loads(row.as_record()["perturbation_params"]) == p
    sides = Counter(r.params["side"] for r in rows)
    assert sides["premise"] > 0 and sides["hypothesis"] > 0
    assert Counter(r.params["pos"] for r in rows).keys() == {"ADJ", "ADV", "VERB"}
    assert {r.params["position"] for r in rows} == {"predicative", "attributive"}


def test_same_seed_same_rows_and_a_subset_gets_the_same_edits(params, matched):
    table, rows, _ = matched
    head = table.slice(0, 300)
    a, _ = _generate(params, head, "dev_matched")
    b, _ = _generate(params, head, "dev_matched")
    assert a and a == b
    uids = set(head.column("uid").to_pylist())
    # `matched` also kept the dropped pairs: the set is the same without them
    assert a == [r for r in rows if r.source_uid in uids]
    # The seed picks the word when a sentence has more candidates than max_per_sentence: the
    # source rows of the sentences that give more than one pair.
    pairs = Counter((r.source_uid, r.params["side"]) for r in rows)
    several = sorted({uid for (uid, _), n in pairs.items() if n > 1})
    assert several
    more = table.filter(pc.is_in(table.column("uid"), value_set=pa.array(several)))
    picks = {
        tuple(r.hypothesis for r in _generate(params, more, "dev_matched", seed=seed, max_per_sentence=1)[0])
        for seed in range(SEED, SEED + 8)
    }
    assert len(picks) > 1


def test_dev_mismatched_sample(params, tmp_path):
    table = _mnli(params, "dev_mismatched")
    dropped: list[SetRow] = []
    rows, counts = _generate(params, table, "dev_mismatched", dropped=dropped)
    print(f"\nantonymy on the 1,000-row MNLI dev-mismatched sample: {len(rows):,} pairs")
    assert counts.input == 2 * table.num_rows == 2_000
    counts.check()
    assert 40 <= len(rows) <= 300  # 48 with the default settings
    assert all(_rebuild(r) == r.hypothesis for r in rows)
    # judged whole in reviews/ (the held-out judgement of reviews/HISTORY.md, narrowed to today's rows), and
    # again by a strict blind judge; each summary is its CSV imported today
    built = tmp_path / "mnli_dev_mismatched.parquet"
    pq.write_table(rows_to_table(rows), built)
    for review in ("stress", "blind/stress"):
        path = next((ROOT / "reviews" / review / "antonymy").glob("mnli_dev_mismatched*.csv"))
        judged = read_csv(path)
        assert {(r["uid"], r["premise"], r["hypothesis"]) for r in judged} == {
            (r.uid, r.premise, r.hypothesis) for r in rows
        }
        summary = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        again = reimport(path.with_suffix(".json"), built, tmp_path / "again.json")
        assert {**again, "sets": None} == {**summary, "sets": None}, path
    # reviews/dropped/: the census rows the cause rule and `future` moved out of the set, with
    # their judgements, and every other pair the filters dropped, judged by six judges (those of
    # `disfluent`, `question` and `imperative` apart, and by a seventh); each judged pair is one
    # dropped today, by the same filter, and each summary is its CSV imported today
    by_uid = {r.uid: r for r in dropped}
    dropped_set = tmp_path / "mnli_dev_mismatched.dropped.parquet"
    pq.write_table(rows_to_table(dropped), dropped_set)
    judged_pairs: set[str] = set()
    for name in ("cause", "future", "pools", "disfluent_question_imperative"):
        path = ROOT / f"reviews/dropped/stress/antonymy/mnli_dev_mismatched.{name}.json"
        for record in read_csv(path.with_suffix(".csv")):
            pair = by_uid[record["uid"]]
            assert json.loads(record["perturbation_params"])["filter"] == pair.params["filter"]
            assert (record["premise"], record["hypothesis"]) == (pair.premise, pair.hypothesis)
            assert record["uid"] not in judged_pairs
            judged_pairs.add(record["uid"])
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert {**reimport(path, dropped_set, tmp_path / "again.json"), "sets": None} == {**summary, "sets": None}
    assert judged_pairs == {r.uid for r in dropped}  # every pair the filters dropped is judged
    # the reviewed set keeps the rows and pairs every judge passed, and four fresh judges' census
    # is of them
    from nlistress.perturb import make_generator
    from nlistress.review import read_judgements

    reviewed = make_generator("antonymy_reviewed", params)
    census = {uid: j for path in reviewed.reviews["mnli/dev_mismatched"] for uid, j in read_judgements(ROOT / path).items()}
    kept = [r for r in [*rows, *dropped] if reviewed._fault(r, census.get(r.uid)) is None]
    # 29 of the rules' rows, 3 the cause rule moved, 116 dropped pairs of the other filters and 3
    # of `disfluent`, `question` and `imperative`
    assert len(kept) == 151
    reviewed_set = tmp_path / "reviewed.parquet"
    pq.write_table(rows_to_table(kept), reviewed_set)
    fresh = ROOT / "reviews/stress/antonymy_reviewed/mnli_dev_mismatched.json"
    assert sorted(r["uid"] for r in read_csv(fresh.with_suffix(".csv"))) == sorted(r.uid for r in kept)
    for path in (ROOT / "reviews/stress/antonymy_reviewed/passes/mnli_dev_mismatched.json", fresh):
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert {**reimport(path, reviewed_set, tmp_path / "again.json"), "sets": None} == {**summary, "sets": None}
    # the 32 rows kept before the dropped pairs were judged: the fifth and sixth judges of
    # dev-matched passed them all (passes/, above), and a third judge's census of that build
    # (before/, naming it) is of rows that still build, its rates its CSV's
    before = ROOT / "reviews/stress/antonymy_reviewed/before/mnli_dev_mismatched.32.json"
    sample = read_csv(before.with_suffix(".csv"))
    assert len(sample) == 32 and {r["uid"] for r in sample} <= {r.uid for r in kept}
    assert {r["uid"] for r in read_csv(ROOT / "reviews/stress/antonymy_reviewed/passes/mnli_dev_mismatched.csv")} == {
        r["uid"] for r in sample}
    summary = json.loads(before.read_text(encoding="utf-8"))
    assert summary["sets"][0]["rows"] == 32
    assert summary["label_correct_rate"] == sum(r["label_correct"] == "yes" for r in sample) / 32
    # and four fresh judges' census of the 148-pair build, before the last three filters' pairs
    # were judged: its rows still build, and its rates are its CSV's
    before = ROOT / "reviews/stress/antonymy_reviewed/before/mnli_dev_mismatched.148.json"
    sample = read_csv(before.with_suffix(".csv"))
    assert len(sample) == 148 and {r["uid"] for r in sample} <= {r.uid for r in kept}
    summary = json.loads(before.read_text(encoding="utf-8"))
    assert summary["sets"][0]["rows"] == 148
    assert summary["grammatical_rate"] == sum(r["grammatical"] == "yes" for r in sample) / 148


def _hypotheses(params: dict[str, Any], *sentences: str) -> set[str]:
    table = pa.table(
        {
            "uid": [f"t:{i}" for i in range(len(sentences))],
            "premise": list(sentences),
            "hypothesis": list(sentences),
            "genre": ["test"] * len(sentences),
        }
    )
    off = dict.fromkeys(FILTERS, False)  # form only: the filters are tested on real rows
    rows, counts = _generate(
        params, table, "test", max_per_sentence=10, pos=["ADJ", "NOUN"], filters=off,
        word_sense="lesk",
    )
    counts.check()
    assert counts.dropped[DROP_DUPLICATE] == len(sentences)  # hypothesis == premise
    for row in rows:
        assert _rebuild(row) == row.hypothesis
        assert row.genre == "test"
    indexes = Counter((r.source_uid, r.params["token_index"]) for r in rows)
    assert max(indexes.values()) == 1  # each pair of a sentence replaces a different word
    return {r.hypothesis for r in rows}


def test_capitalisation_and_inflection_follow_the_word(params):
    out = _hypotheses(
        params,
        "We saw the OLDER women.",
        "My wives bought two old cars.",
        "Women and men came to the big party.",
        "the tallest BOYS won.",
        "Interesting ideas came from the cheapest stores.",
    )
    assert {
        "We saw the YOUNGER women.",  # UPPER, comparative
        "We saw the OLDER men.",  # irregular plural
        "My husbands bought two old cars.",  # irregular plural lemma
        "Men and men came to the big party.",  # Title
        "the shortest BOYS won.",  # superlative
        "Interesting ideas came from the most expensive stores.",  # analytic superlative
        "Uninteresting ideas came from the cheapest stores.",
    } <= out


def test_indefinite_article_follows_the_replacement(params):
    out = _hypotheses(
        params, "he was an impatient man.", "It was an unhappy ending for a patient boy."
    )
    assert "he was a patient man." in out
    assert "It was a happy ending for a patient boy." in out
    assert "It was an unhappy ending for an impatient boy." in out


def test_helpers():
    assert match_case("WOMEN", "men") == "MEN"
    assert match_case("Women", "men") == "Men"
    assert match_case("women", "Men") == "men"
    assert _inflect("woman", "NNS", "NOUN") == "women"
    assert _inflect("natural_object", "NNS", "NOUN") == "natural objects"
    assert _inflect("bad", "JJR", "ADJ") == "worse"
    assert _inflect("expensive", "JJS", "ADJ") == "most expensive"
    assert _inflect("many", "JJR", "ADJ") == "more"
    assert _inflect("natural_object", "", "NOUN") == "natural object"


def test_settings_are_validated(params):
    with pytest.raises(ConfigError, match=r"stress\.tests\.antonymy\.pos"):
        Antonymy("antonymy", {"pos": ["PROPN"]}, params)
    with pytest.raises(ConfigError, match="max_per_sentence"):
        Antonymy("antonymy", {"max_per_sentence": 0}, params)
    with pytest.raises(ConfigError, match="batch_size"):
        Antonymy("antonymy", {"batch_size": "many"}, params)


def test_card_notes_compare_with_the_paper(params, matched):
    _, rows, counts = matched
    gen = Antonymy("antonymy", {}, params)
    notes = gen.card_notes(
        {"rows": counts.as_dict(), "output_rows": len(rows), "split": "dev_matched"}
    )
    assert f"{len(rows):,}" in notes and "1,561" in notes and "`negation`" in notes
    notes = gen.card_notes({"output_rows": 123, "split": "dev_mismatched"})
    assert "123" in notes and "1,734" in notes
    assert gen.tests_for.strip()
