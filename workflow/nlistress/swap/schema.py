"""The schema of every swap set: the contract between the set builder and the statistics.

Kept in one module so that the statistics (``nlistress stats``) import the
same column list the generators write, and a change to one is a change to both.
"""

from __future__ import annotations

import pyarrow as pa

from ..perturb.base import SET_SCHEMA

#: the paper's set codes (in situ I_*, ex situ E_*; A antonyms, H hypernyms, T transformed)
EXPERIMENTS = ("I_A", "I_TA1", "I_TA2", "I_TA3", "I_H", "I_TH", "E_A", "E_TA", "E_H", "E_TH")
#: relation of w1 (premise word of the control row) to w2 (its hypothesis word)
RELATIONS = ("antonym", "hyponym", "hypernym", "synonym")
#: where a row's label comes from
LABEL_STATUSES = ("gold", "rule", "needs_annotation", "annotated")
#: polarity of an ordered pair never seen premise -> hypothesis in training
POLARITY_NONE = "none"

SWAP_COLUMNS = [
    # the paper's set code, one of EXPERIMENTS
    pa.field("experiment", pa.string(), nullable=False),
    # one occurrence of a pair: shared by a control row and the rows derived from it
    pa.field("pair_id", pa.string(), nullable=False),
    # the word in the premise / hypothesis of the CONTROL row (same values after the swap)
    pa.field("w1", pa.string(), nullable=False),
    pa.field("w2", pa.string(), nullable=False),
    # one of RELATIONS: w1's relation to w2
    pa.field("relation", pa.string(), nullable=False),
    # one of LABEL_STATUSES; "rule" names its rule in perturbation_params["label_rule"]
    pa.field("label_status", pa.string(), nullable=False),
    # label differs from the control row's gold label; null while needs_annotation
    pa.field("gold_label_changed", pa.bool_(), nullable=True),
    # most frequent training label of this row's ordered (premise word, hypothesis word);
    # ties joined with "-" in the order entailment, neutral, contradiction; "none" if unseen
    pa.field("polarity", pa.string(), nullable=False),
    # this row's ordered pair never occurs premise -> hypothesis in the training split
    pa.field("unseen", pa.bool_(), nullable=False),
]

SWAP_SCHEMA = pa.schema([*SET_SCHEMA, *SWAP_COLUMNS])
