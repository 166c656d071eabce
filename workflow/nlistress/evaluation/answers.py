"""The model's answers on each table an evaluation needs, computed once and kept.

For a model that runs (a folder, ``llm:``, ``openai:``) each table's answers
are written to ``OUT/predictions/<key>.parquet`` with a record beside it
(``.json``: the table's sha256 and what answered); a rerun of the same
evaluation reuses every file whose record still matches, so a killed run
resumes where it stopped (the ``openai:`` response cache also keeps replies
inside an unfinished set). For ``predictions:`` the user's file is validated
once and split per table, and uids that belong to no evaluated table are
counted (``--strict``: an error).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import sha256_file, write_json_atomic
from ..errors import DataError
from ..labels import LABELS
from ..parquet_io import write_parquet
from ..predictions import prob_tolerance, read_prediction_table, read_predictions
from .specs import ModelSpec

log = logging.getLogger("nlistress")

PREDICTION_COLUMNS = ("uid", "prediction", *(f"prob_{label}" for label in LABELS), "entropy")


class Answers:
    """Prediction files for the tables of one evaluation."""

    def __init__(self, spec: ModelSpec, params: Mapping[str, Any], output: Path, device: Any,
                 base_url: str | None = None, cache: str | None = None) -> None:  # fmt: skip
        self.spec, self.params, self.folder = spec, params, output / "predictions"
        self.device, self.base_url, self.cache = device, base_url, cache
        self._predictor: Any = None
        self._file: pa.Table | None = None  # predictions:FILE, read once
        self._used: set[str] = set()
        self.unanswered: dict[str, int] = {}  # key -> rows the model gave no usable answer for

    # -- running a model ---------------------------------------------------------------------
    def predictor(self) -> Any:
        """The model, loaded on first use (an evaluation that reuses every file loads nothing)."""
        if self._predictor is None:
            from ..models.settings import predict_settings

            settings = predict_settings(self.params)
            if self.spec.kind == "llm":
                from ..models.causal_lm import CausalLMPredictor

                self._predictor = CausalLMPredictor.load(self.spec.target, self.params, self.device)
            elif self.spec.kind == "openai":
                from ..models.openai_endpoint import OpenAIPredictor

                self._predictor = OpenAIPredictor.load(self.spec.target, self.params, self.base_url, self.cache)
            else:
                from ..models.predict import load_predictor

                self._predictor = load_predictor(Path(self.spec.target), settings, self.device, self.params)
        return self._predictor

    def describe(self) -> dict[str, Any]:
        """How the answers were made (prompt template and its version for language models)."""
        described: dict[str, Any] = {"kind": self.spec.kind, "target": self.spec.target, "name": self.spec.name}
        if self._predictor is not None and hasattr(self._predictor, "describe"):
            described.update(self._predictor.describe())
        elif self.spec.kind in ("llm", "openai"):  # every answer came from an earlier run
            from ..models.causal_lm import LLMSettings
            from ..models.prompts import template_named

            llm = LLMSettings.from_params(self.params)
            described.update(template=template_named(llm.template).describe(), shots=llm.shots,
                             answer=llm.answer if self.spec.kind == "llm" else "generate")  # fmt: skip
        return described

    def _run(self, table: Path, key: str) -> Path:
        from ..models.predict import predict_set
        from ..models.settings import predict_settings

        target = self.folder / f"{key}.parquet"
        record_path = target.with_suffix(".json")
        record = {"table": str(table), "table_sha256": sha256_file(table), "model": self.spec.kind,
                  "target": self.spec.target}  # fmt: skip
        if target.is_file() and record_path.is_file():
            try:
                kept = json.loads(record_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                kept = None
            if kept is not None and {k: kept.get(k) for k in record} == record:
                log.info("%s: reusing the answers of an earlier run (%s)", key, target)
                self.unanswered[key] = int(kept.get("unanswered", 0))
                return target
        chunk_rows = int(predict_settings(self.params)["chunk_rows"])
        if self.spec.kind in ("llm", "openai"):  # a few hundred rows a second at best: report progress often
            from ..models.causal_lm import LLMSettings

            chunk_rows = min(chunk_rows, LLMSettings.from_params(self.params).progress_rows)
        rows = predict_set(self.predictor(), table, target, chunk_rows)
        self.unanswered[key] = pq.ParquetFile(table).metadata.num_rows - rows
        write_json_atomic(record_path, {**record, "rows": rows, "unanswered": self.unanswered[key]})
        return target

    # -- predictions given as files ----------------------------------------------------------
    def _from_folder(self, key: str) -> Path | None:
        path = Path(self.spec.target) / f"{key}.parquet"
        return path if path.is_file() else None

    def _from_file(self, table: Path, key: str) -> Path | None:
        if self._file is None:
            path = Path(self.spec.target)
            read_predictions(path, LABELS, prob_tolerance(self.params))  # one-line errors, file and line
            self._file, _ = read_prediction_table(path, PREDICTION_COLUMNS)
        uids = pq.read_table(table, columns=["uid"])["uid"]
        mine = self._file.filter(pc.is_in(self._file["uid"], value_set=uids))
        if mine.num_rows == 0:
            return None
        self._used.update(mine["uid"].to_pylist())
        target = self.folder / f"{key}.parquet"
        write_parquet(mine, target)
        return target

    def extra_uids(self) -> list[str]:
        """uids of a ``predictions:FILE`` that belong to no evaluated table."""
        if self._file is None:
            return []
        uids = pd.Index(self._file["uid"].to_pylist())
        return [str(u) for u in uids[~uids.isin(list(self._used))]]

    # -- the one entry point -----------------------------------------------------------------
    def for_table(self, table: Path, key: str) -> Path | None:
        """The answers on ``table`` (None: a predictions spec that has none for it)."""
        if not table.is_file():
            raise DataError(table, "table not found")
        if self.spec.runs_a_model:
            return self._run(table, key)
        target = Path(self.spec.target)
        if not target.exists():
            raise DataError(target, "predictions file or folder not found")
        return self._from_folder(key) if target.is_dir() else self._from_file(table, key)
