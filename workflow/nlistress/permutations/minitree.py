"""POS mini-tree overlap of Sinha et al. (2021), section 6, eq. 4 and appendix B.

The hypothesis under test: models accept permutations because each word
carries ("projects") the parts of speech it usually has around it. For every
word type w of a training split, ψ_r{w, D_train} is the distribution of the 17
universal POS tags among the tokens within ``radius`` positions of w (left and
right, w itself excluded), averaged over w's occurrences. For a sentence s,
ψ_r{w, s} is the same distribution within s (averaged over w's occurrences in
s), and

    β^k{w, s} = |topk(ψ_r{w, D_train}) ∩ topk(ψ_r{w, s})| / k
    β^k{s}    = mean of β^k{w, s} over the tokens of s whose word has a train statistic.

Per example, the ratio β^k(permuted) / β^k(original) is binned against the
share of permutations the model accepts (Figure 4; see
:func:`nlistress.permutations.metrics.minitree_bins`).

Choices the paper leaves open:

- Tokens are the permuted set's tokens (the configured tokenizer), tagged by
  running the spaCy pipeline on a ``Doc`` built from exactly those words, so
  tags align 1:1 with the set's ``premise_order`` / ``hypothesis_order``.
- A permuted sentence is not re-tagged: each word keeps the tag it has in the
  original sentence and moves with it. Tagging a million ungrammatical
  sentences would take hours, and the paper's argument is word-anchored (a
  word's usual neighbours), not about what a tagger makes of word salad.
- Word types are lower-cased token texts. spaCy tags outside the 17 universal
  tags (``SPACE``, empty) count as ``X``.
- ``topk`` takes the k highest probabilities, ties (to 1e-9) broken by the
  fixed UPOS order below, so it is deterministic; when fewer than k tags have
  any mass the remainder are zero-probability tags in UPOS order, as an
  argmax-k over the 17-vector does.
- The sentence average is over tokens (the paper's 1/|s| Σ over w_i ∈ s_i);
  words with no train statistic are left out (not counted as 0). Sentences of
  one token have no neighbours: β is undefined (NaN).
- A reversed sentence has exactly the neighbours of the original (the window
  is symmetric), so reversal leaves β unchanged; only permutations that change
  who stands next to whom lower it.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DataError
from ..manifest import RowCounts, write_manifest
from ..parquet_io import open_parquet, write_parquet
from ..progress import with_progress
from ..resources import spacy_pipeline
from ..schema import checked

log = logging.getLogger(__name__)

Tokenizer = Callable[[str], list[str]]

#: Pipeline components the POS tags do not need (UPOS comes from tagger + attribute_ruler).
POS_DISABLE = ("parser", "ner", "lemmatizer")
#: The 17 universal POS tags (UD v2), in the order that breaks top-k ties.
UPOS = (
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM",
    "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X",
)  # fmt: skip
_TAG_ID = {tag: i for i, tag in enumerate(UPOS)}
_X = _TAG_ID["X"]
N_TAGS = len(UPOS)
# One-hot rows per tag id; row -1 (padding) is all zeros.
_ONE_HOT = np.vstack([np.eye(N_TAGS), np.zeros((1, N_TAGS))])
# Probabilities equal to this many decimals are ties.
_TIE_DECIMALS = 9
SIDES = ("premise", "hypothesis")


def whitespace_tokens(text: str) -> list[str]:
    """The English tokenizer of the permuted sets: split on whitespace."""
    return text.split()


@dataclass(frozen=True)
class MinitreeSettings:
    """The knobs of the mini-tree analysis (params.yaml, e.g. ``permute.minitree``)."""

    radius: int  # neighbourhood radius r (Figure 7: 2)
    k: int  # top-k tags compared (the authors' script defaults to 2)
    batch_size: int  # spaCy nlp.pipe batch size

    @classmethod
    def from_mapping(cls, section: Any, where: str = "permute.minitree") -> MinitreeSettings:
        """The section at key path ``where``; the schema checks each value (k <= N_TAGS)."""
        section = checked(section, *where.split("."))
        return cls(radius=section["radius"], k=section["k"], batch_size=section["batch_size"])


# ---------------------------------------------------------------------------
# Tagging and neighbour distributions
# ---------------------------------------------------------------------------


def pos_tagger(params: Mapping[str, Any]) -> Any:
    """The configured spaCy pipeline (``resources.spacy_model``) with only what POS tags need."""
    return spacy_pipeline(params, disable=POS_DISABLE)


def tag_ids(tags: Iterable[str]) -> np.ndarray:
    """UPOS names -> ids (int8); anything outside the 17 tags is X."""
    return np.fromiter((_TAG_ID.get(t, _X) for t in tags), dtype=np.int8)


def tag_token_lists(
    nlp: Any, token_lists: Iterable[Sequence[str]], batch_size: int, n_process: int = 1
) -> Iterator[tuple[Sequence[str], np.ndarray]]:
    """(tokens, UPOS ids) per token list, the ids aligned 1:1 with the given tokens.

    Each list becomes ``Doc(nlp.vocab, words=tokens)`` and goes through the
    pipeline's components, so spaCy's own tokenizer never re-splits a token.
    Streams: only one batch of documents is held at a time.
    """
    from spacy.tokens import Doc

    pairs = ((Doc(nlp.vocab, words=list(tokens)), tokens) for tokens in token_lists)
    for doc, tokens in nlp.pipe(pairs, batch_size=batch_size, as_tuples=True, n_process=n_process):
        yield tokens, tag_ids(token.pos_ for token in doc)


def tag_distinct(
    nlp: Any, token_lists: Sequence[Sequence[str]], batch_size: int, n_process: int = 1
) -> list[np.ndarray]:
    """UPOS ids for each token list, tagging each distinct list once (premises repeat)."""
    distinct: dict[tuple[str, ...], int] = {}
    index = [distinct.setdefault(tuple(tokens), len(distinct)) for tokens in token_lists]
    tagged = [tags for _, tags in tag_token_lists(nlp, distinct, batch_size, n_process)]
    return [tagged[i] for i in index]


def neighbour_counts(tags: np.ndarray, radius: int) -> np.ndarray:
    """Counts of each UPOS tag within ``radius`` of every position, shape ``tags.shape + (17,)``.

    ``tags`` holds tag ids along its last axis; -1 marks padding (no token),
    which is never counted, so sentences laid end to end with ``radius``
    padding between them do not see each other.
    """
    one_hot = _ONE_HOT[np.asarray(tags, dtype=np.int64)]
    counts = np.zeros_like(one_hot)
    n = one_hot.shape[-2]
    for d in range(1, min(radius, n - 1) + 1):
        counts[..., d:, :] += one_hot[..., :-d, :]  # neighbour d to the left
        counts[..., :-d, :] += one_hot[..., d:, :]  # neighbour d to the right
    return counts


def _distributions(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-normalised counts and the mask of rows that have any neighbour."""
    total = counts.sum(axis=-1, keepdims=True)
    has = total[..., 0] > 0
    return counts / np.where(total > 0, total, 1.0), has


def topk_mask(psi: np.ndarray, k: int) -> np.ndarray:
    """Boolean mask of the k most probable tags along the last axis (ties: UPOS order)."""
    order = np.argsort(-np.round(psi, _TIE_DECIMALS), axis=-1, kind="stable")[..., :k]
    mask = np.zeros(psi.shape, dtype=bool)
    np.put_along_axis(mask, order, True, axis=-1)
    return mask


# ---------------------------------------------------------------------------
# The train statistic ψ_r{w, D_train}
# ---------------------------------------------------------------------------


@dataclass
class TrainStatistic:
    """ψ_r{w, D_train} for every word type of a training split."""

    words: pd.Index  # lower-cased word types
    psi: np.ndarray  # (V, 17) float64, rows sum to 1
    occurrences: np.ndarray  # (V,) occurrences with at least one neighbour
    radius: int
    _masks: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    _ids: dict[str, int] | None = field(default=None, repr=False)

    def ids(self, words: Sequence[str]) -> np.ndarray:
        """Row of each word in ``psi``, -1 for words without a train statistic."""
        if self._ids is None:
            self._ids = {w: i for i, w in enumerate(self.words)}
        return np.fromiter((self._ids.get(w, -1) for w in words), np.int64, len(words))

    def mask(self, k: int) -> np.ndarray:
        """topk(ψ_train) of every word as a (V, 17) boolean mask (cached per k)."""
        if k not in self._masks:
            self._masks[k] = topk_mask(self.psi, k)
        return self._masks[k]

    def to_table(self) -> pa.Table:
        order = np.argsort(self.words.to_numpy(dtype=object).astype(str), kind="stable")
        columns: dict[str, Any] = {
            "word": pa.array(self.words.to_numpy(dtype=object)[order].tolist(), pa.string()),
            "occurrences": pa.array(self.occurrences[order], pa.int64()),
            "radius": pa.array(np.full(len(order), self.radius, dtype=np.int16), pa.int16()),
        }
        for i, tag in enumerate(UPOS):
            columns[tag] = pa.array(self.psi[order, i], pa.float64())
        return pa.table(columns)


class _Accumulator:
    """Running sums of per-occurrence neighbour distributions per word type."""

    def __init__(self, radius: int) -> None:
        self.radius = radius
        self.words = pd.Index([], dtype=object)
        self.sums = np.zeros((0, N_TAGS))
        self.occurrences = np.zeros(0)

    def add(self, sentences: Sequence[tuple[Sequence[str], np.ndarray, int]]) -> None:
        """Add tagged sentences (tokens, tag ids, how many times the sentence occurs)."""
        pad = np.full(self.radius, -1, dtype=np.int64)
        parts, words, weights = [], [], []
        for tokens, tags, count in sentences:
            if len(tokens) < 2:
                continue
            parts += [tags.astype(np.int64), pad]
            words += [t.lower() for t in tokens] + [""] * self.radius
            weights += [float(count)] * len(tokens) + [0.0] * self.radius
        if not parts:
            return
        flat = np.concatenate(parts)
        dist, has = _distributions(neighbour_counts(flat, self.radius))
        keep = (flat >= 0) & has
        local, uniques = pd.factorize(pd.Index(words, dtype=object)[keep])
        at = self.words.get_indexer(uniques)
        new = at < 0
        if new.any():
            at[new] = len(self.words) + np.arange(int(new.sum()))
            self.words = self.words.append(pd.Index(uniques[new], dtype=object))
            self.sums = np.vstack([self.sums, np.zeros((int(new.sum()), N_TAGS))])
            self.occurrences = np.concatenate([self.occurrences, np.zeros(int(new.sum()))])
        ids = at[local]
        weight = np.asarray(weights)[keep]
        self.occurrences += np.bincount(ids, weights=weight, minlength=len(self.words))
        kept = dist[keep] * weight[:, None]
        for t in range(N_TAGS):
            self.sums[:, t] += np.bincount(ids, weights=kept[:, t], minlength=len(self.words))

    def result(self) -> TrainStatistic:
        psi = self.sums / np.maximum(self.occurrences, 1)[:, None]
        return TrainStatistic(
            self.words, psi, np.rint(self.occurrences).astype(np.int64), self.radius
        )


def train_statistic(
    sentences: Iterable[tuple[Sequence[str], np.ndarray] | tuple[Sequence[str], np.ndarray, int]],
    radius: int,
    chunk: int = 10_000,
) -> tuple[TrainStatistic, RowCounts]:
    """ψ_r{w, D_train} from tagged sentences, in chunks to bound memory.

    Each item is (tokens, UPOS ids) or (tokens, UPOS ids, count) for a
    sentence that occurs ``count`` times (it then weighs as ``count`` copies).
    """
    accumulator = _Accumulator(radius)
    counts = RowCounts(unit="sentence")
    batch: list[tuple[Sequence[str], np.ndarray, int]] = []
    for item in sentences:
        tokens, tags = item[0], item[1]
        count = int(item[2]) if len(item) > 2 else 1
        if len(tokens) != len(tags):
            raise ValueError(f"{len(tokens)} tokens but {len(tags)} tags")
        counts.input += count
        if len(tokens) >= 2:
            counts.kept += count
        batch.append((tokens, tags, count))
        if len(batch) >= chunk:
            accumulator.add(batch)
            batch = []
    if batch:
        accumulator.add(batch)
    if counts.input > counts.kept:
        counts.drop("one token (no neighbours)", counts.input - counts.kept)
    return accumulator.result(), counts


def _canonical_texts(path: Path) -> Iterator[str]:
    """Every premise, then every hypothesis, read in batches."""
    file = open_parquet(path, SIDES, "canonical table")
    for side in SIDES:
        for batch in file.iter_batches(columns=[side], batch_size=65_536):
            yield from batch.column(0).to_pylist()


def build_train_statistic(
    canonical_paths: Sequence[str | Path],
    output: str | Path,
    nlp: Any,
    radius: int,
    batch_size: int,
    tokenize: Tokenizer = whitespace_tokens,
    compression: str = "zstd",
    manifest_params: Mapping[str, Any] | None = None,
    n_process: int = 1,
) -> dict[str, Any]:
    """Tag the premises and hypotheses of ``canonical_paths``, write ψ_r{w, D_train} to ``output``.

    Every sentence counts as often as it occurs (MultiNLI premises come three
    times), but each distinct sentence is tagged once. ``output`` is a Parquet
    table (``word``, ``occurrences``, ``radius`` and one float64 column per
    UPOS tag), sorted by word, plus its manifest; it is built once per
    training split and radius and read by :func:`load_train_statistic`.
    """
    paths = [Path(p) for p in canonical_paths]
    occurrences: Counter[str] = Counter()
    for path in paths:
        occurrences.update(_canonical_texts(path))
    texts = list(occurrences)  # first-seen order: deterministic

    def tagged() -> Iterator[tuple[Sequence[str], np.ndarray, int]]:
        token_lists = (tokenize(text) for text in texts)
        pairs = tag_token_lists(nlp, token_lists, batch_size, n_process)
        for text, (tokens, tags) in zip(
            texts, with_progress(pairs, str(output), "sentences tagged", log, total=len(texts)),
            strict=True,
        ):  # fmt: skip
            yield tokens, tags, occurrences[text]

    stat, counts = train_statistic(tagged(), radius)
    if not len(stat.words):
        raise DataError(paths[0] if paths else output, "no sentence with two or more tokens")
    write_parquet(stat.to_table(), output, compression)
    return write_manifest(
        output,
        counts,
        {"canonical": [str(p) for p in paths]},
        {"radius": radius, **(manifest_params or {})},
        word_types=len(stat.words),
        distinct_sentences=len(texts),
        tags=list(UPOS),
    )


def load_train_statistic(path: str | Path, radius: int | None = None) -> TrainStatistic:
    """Read a table written by :func:`build_train_statistic`; check its radius if given."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "mini-tree train statistic not found")
    table = pq.read_table(path)
    missing = [c for c in ("word", "occurrences", "radius", *UPOS) if c not in table.column_names]
    if missing:
        raise DataError(path, f"missing column(s) {', '.join(missing)}")
    radii = set(table["radius"].to_pylist())
    if len(radii) != 1:
        raise DataError(path, f"expected one radius, found {sorted(radii)}")
    found = radii.pop()
    if radius is not None and found != radius:
        raise DataError(path, f"built with radius {found}, asked for {radius}: rebuild it")
    psi = np.column_stack([table[tag].to_numpy() for tag in UPOS]).astype(np.float64)
    return TrainStatistic(
        pd.Index(table["word"].to_pylist(), dtype=object),
        psi,
        table["occurrences"].to_numpy().astype(np.int64),
        int(found),
    )


# ---------------------------------------------------------------------------
# β^k of sentences and of their permutations
# ---------------------------------------------------------------------------


def sentence_beta(
    tokens: Sequence[str],
    tags: np.ndarray,
    stat: TrainStatistic,
    k: int,
    orders: np.ndarray | None = None,
) -> np.ndarray:
    """β^k{s} of a sentence under each order, shape (q,); (1,) for the sentence as it is.

    ``orders[j]`` lists original positions in permuted order (permuted token i
    is original token ``orders[j, i]``); words keep their original tags. All q
    orders are scored at once: (q, n, 17) neighbour counts, then per-type
    averages by one matrix product.
    """
    n = len(tokens)
    tags = np.asarray(tags, dtype=np.int64)
    if orders is None:
        orders = np.arange(n)[None, :]
    orders = np.asarray(orders, dtype=np.int64)
    q = orders.shape[0]
    if n < 2:
        return np.full(q, np.nan)
    types: dict[str, int] = {}
    local = np.fromiter((types.setdefault(t.lower(), len(types)) for t in tokens), np.int64, n)
    train_id = stat.ids(list(types))
    known = train_id >= 0
    if not known.any():
        return np.full(q, np.nan)

    # Neighbour distributions at each permuted position (n >= 2: each has a neighbour).
    dist, _ = _distributions(neighbour_counts(tags[orders], stat.radius))
    # Average them per word type: type of the word at each permuted position.
    known_types = np.flatnonzero(known)
    member = local[orders][:, None, :] == known_types[None, :, None]  # (q, types, n)
    occurrences = np.bincount(local, minlength=len(types))[known_types].astype(np.float64)
    psi = np.matmul(member.astype(np.float64), dist) / occurrences[None, :, None]
    overlap = (topk_mask(psi, k) & stat.mask(k)[train_id[known]][None]).sum(axis=-1) / k
    return overlap @ occurrences / occurrences.sum()


@dataclass
class _SideOrders:
    """One side's order column: flat values, offsets into them, and validity per row."""

    values: np.ndarray
    offsets: np.ndarray
    valid: np.ndarray

    @classmethod
    def read(cls, path: Path, column: str) -> _SideOrders:
        array = pq.read_table(path, columns=[column])[column].combine_chunks()
        return cls(
            array.values.to_numpy(zero_copy_only=False),
            array.offsets.to_numpy(),
            array.is_valid().to_numpy(zero_copy_only=False),
        )

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def block(self, rows: np.ndarray, n: int) -> np.ndarray:
        """The (len(rows), n) orders of ``rows`` (all valid, all of length n)."""
        return self.values[self.offsets[rows][:, None] + np.arange(n)[None, :]].astype(np.int64)


def _check_texts(
    set_path: Path,
    rows: np.ndarray,
    uids: pa.Array,
    expected: Callable[[int, str], str],
) -> None:
    """Compare the set's text of ``rows`` with ``expected(row, side)``, streaming the file."""
    wanted = np.sort(rows)
    file = pq.ParquetFile(set_path)
    start = 0
    for batch in file.iter_batches(columns=list(SIDES), batch_size=65_536):
        stop = start + batch.num_rows
        lo, hi = np.searchsorted(wanted, [start, stop])
        if hi > lo:
            picked = batch.take(pa.array(wanted[lo:hi] - start))
            for side in SIDES:
                for row, text in zip(wanted[lo:hi], picked.column(side).to_pylist(), strict=True):
                    if text != expected(int(row), side):
                        raise DataError(
                            set_path,
                            f"{side} of {uids[int(row)].as_py()!r} is not its original's tokens in "
                            f"{side}_order: the set was built with another tokenizer (or the "
                            "canonical table changed)",
                        )
        start = stop


def example_betas(
    set_path: str | Path,
    canonical_path: str | Path,
    stat: TrainStatistic,
    nlp: Any,
    k: int,
    batch_size: int,
    tokenize: Tokenizer = whitespace_tokens,
    joiner: str | None = " ",
    n_process: int = 1,
) -> pd.DataFrame:
    """β^k of every used example of a permuted set, original and permuted, and their ratio.

    One row per example (in the set's order): ``beta_premise``,
    ``beta_hypothesis``, ``beta_original`` (mean of the two sides that are
    defined), the same averaged over the example's permutations
    (``beta_permuted_*``; a side left as it was keeps its original β), and
    ``ratio = beta_permuted / beta_original`` (null where undefined).
    ``tokenize`` must be the tokenizer the set was built with; with ``joiner``
    (the string that tokenizer's tokens were joined with) the first
    permutation of every example is checked against its text. ``n_process``
    is passed to spaCy's ``nlp.pipe``.
    """
    set_path, canonical_path = Path(set_path), Path(canonical_path)
    for path, columns, what in (
        (set_path, ("uid", "source_uid", "perm_index", "premise_order", "hypothesis_order"),
         "permuted set"),
        (canonical_path, ("uid", "premise", "hypothesis"), "canonical table"),
    ):  # fmt: skip
        if not path.is_file():
            raise DataError(path, f"{what} not found")
        names = pq.read_schema(path).names
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataError(path, f"{what}: missing column(s) {', '.join(missing)}")

    meta = pq.read_table(set_path, columns=["uid", "source_uid", "perm_index"])
    uids = meta["uid"].combine_chunks()  # Python strings only for error messages
    example, example_uids = pd.factorize(meta["source_uid"].to_pandas(), sort=False)
    perm_index = meta["perm_index"].to_numpy()
    del meta
    n_ex = len(example_uids)
    by_example = np.lexsort((perm_index, example))
    bounds = np.searchsorted(example[by_example], np.arange(n_ex + 1))

    canonical = pq.read_table(canonical_path, columns=["uid", "premise", "hypothesis"])
    at = pd.Index(canonical["uid"].to_pandas()).get_indexer(example_uids)
    if (at < 0).any():
        missing_uids = ", ".join(repr(str(u)) for u in np.asarray(example_uids)[at < 0][:5])
        raise DataError(
            canonical_path,
            f"{int((at < 0).sum())} source_uids of {set_path.name} are not in it: {missing_uids}",
        )
    texts = {side: canonical[side].take(pa.array(at)).to_pylist() for side in SIDES}
    del canonical
    tokens = {side: [tokenize(t) for t in texts[side]] for side in SIDES}
    tags = {side: tag_distinct(nlp, tokens[side], batch_size, n_process) for side in SIDES}

    orders = {side: _SideOrders.read(set_path, f"{side}_order") for side in SIDES}
    for side in SIDES:
        n_tokens = np.array([len(t) for t in tokens[side]], dtype=np.int64)[example]
        bad = orders[side].valid & (orders[side].lengths() != n_tokens)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise DataError(
                set_path,
                f"{side}_order of {uids[row].as_py()!r} has {int(orders[side].lengths()[row])} positions "
                f"but the original has {int(n_tokens[row])} tokens: the set was built with "
                "another tokenizer",
            )

    if joiner is not None:
        first_rows = by_example[bounds[:-1]]

        def expected(row: int, side: str) -> str:
            e = int(example[row])
            if not orders[side].valid[row]:
                return texts[side][e]
            order = orders[side].block(np.array([row]), len(tokens[side][e]))[0]
            if (np.sort(order) != np.arange(len(order))).any():
                raise DataError(
                    set_path, f"{side}_order of {uids[row].as_py()!r} is not a permutation"
                )
            return joiner.join(tokens[side][e][i] for i in order)

        _check_texts(set_path, first_rows, uids, expected)

    columns: dict[str, list[Any]] = {
        name: [] for name in (
            "q", "beta_premise", "beta_hypothesis", "beta_permuted_premise",
            "beta_permuted_hypothesis", "beta_original", "beta_permuted", "ratio",
        )
    }  # fmt: skip
    for e in range(n_ex):
        rows = by_example[bounds[e] : bounds[e + 1]]
        for side in SIDES:
            n = len(tokens[side][e])
            valid = orders[side].valid[rows]
            block = orders[side].block(rows[valid], n)
            wrong = (np.sort(block, axis=1) != np.arange(n)).any(axis=1)
            if wrong.any():
                row = int(rows[valid][wrong][0])
                raise DataError(
                    set_path, f"{side}_order of {uids[row].as_py()!r} is not a permutation"
                )
            # The original (identity order) is scored with its permutations in one call.
            scores = sentence_beta(
                tokens[side][e], tags[side][e], stat, k, np.vstack([np.arange(n), block])
            )
            original = float(scores[0])
            columns[f"beta_{side}"].append(original)
            columns[f"beta_permuted_{side}"].append(
                float((scores[1:].sum() + original * (len(rows) - len(block))) / len(rows))
            )
        # Whether a side's β is defined does not depend on word order, so the mean over
        # permutations of the pair's mean is the mean of the defined sides' means.
        beta_original = _nanmean([columns[f"beta_{side}"][-1] for side in SIDES])
        beta_permuted = _nanmean([columns[f"beta_permuted_{side}"][-1] for side in SIDES])
        columns["q"].append(len(rows))
        columns["beta_original"].append(beta_original)
        columns["beta_permuted"].append(beta_permuted)
        columns["ratio"].append(beta_permuted / beta_original if beta_original > 0 else np.nan)

    frame = pd.DataFrame({"source_uid": np.asarray(example_uids, dtype=object).astype(str)})
    for name, values in columns.items():
        frame[name] = np.asarray(values, dtype=np.int32 if name == "q" else np.float64)
    frame["premise_tokens"] = np.array([len(t) for t in tokens["premise"]], dtype=np.int32)
    frame["hypothesis_tokens"] = np.array([len(t) for t in tokens["hypothesis"]], dtype=np.int32)
    return frame


def _nanmean(values: Sequence[float]) -> float:
    finite = [v for v in values if np.isfinite(v)]
    return float(sum(finite) / len(finite)) if finite else float("nan")


def write_example_betas(
    frame: pd.DataFrame,
    output: str | Path,
    source: Mapping[str, Any],
    params: Mapping[str, Any],
    compression: str = "zstd",
) -> dict[str, Any]:
    """Write :func:`example_betas`' table (NaN -> null) and its manifest; return the manifest."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata(None)
    write_parquet(table, output, compression)
    counts = RowCounts(unit="example", input=len(frame), kept=len(frame))
    undefined = int((~np.isfinite(frame["ratio"].to_numpy(dtype=np.float64))).sum())
    return write_manifest(output, counts, dict(source), dict(params), undefined_ratio=undefined)
