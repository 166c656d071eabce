"""``openai:MODEL``: any OpenAI-compatible endpoint (vLLM, TGI, llama.cpp, ``transformers serve``,
hosted APIs), asked with a prompt template and answered by parsing the reply.

Evaluating a hosted model costs money and time, and runs get killed, so every
reply is stored the moment it arrives in an on-disk SQLite cache keyed by
(endpoint model, template sha256, request settings, prompt): a rerun, or a run
resumed after a kill, sends only the prompts that have no stored reply. SQLite
commits each reply atomically, so a kill loses at most the requests in flight.

Requests go out on ``concurrency`` threads, at most ``requests_per_minute``
(null: no limit), each retried up to ``max_retries`` times on connection
errors, timeouts, HTTP 429 and 5xx, waiting ``backoff_seconds`` doubled per
try (or the server's ``Retry-After``). Other HTTP errors (a wrong model name,
a bad key) stop the run with the server's message. The key is read from the
environment variable ``api_key_env`` and never written anywhere.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from ..errors import ConfigError, DataError
from ..labels import LABELS
from .causal_lm import LLMSettings, few_shot_examples
from .prompts import PromptTemplate, template_named

log = logging.getLogger("nlistress")

APIS = ("chat", "completions")
_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class EndpointSettings:
    """``models.openai`` (checked by the schema)."""

    base_url: str | None = None
    api: str = "chat"
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 4
    requests_per_minute: float | None = None
    max_retries: int = 5
    backoff_seconds: float = 1.0
    timeout_seconds: float = 60.0
    max_tokens: int = 8
    temperature: float = 0.0
    cache: str = "data/cache/openai_responses.sqlite"

    @classmethod
    def from_params(cls, params: Mapping[str, Any], **overrides: Any) -> EndpointSettings:
        section = dict(((params.get("models") or {}).get("openai")) or {})
        section.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**section)


class ResponseCache:
    """Replies keyed by a sha256 of everything that shapes them; safe across threads and kills."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)")
        except sqlite3.DatabaseError as exc:
            raise DataError(path, f"not a usable response cache ({exc}); move it away to start afresh") from None

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, reply: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO replies (key, reply) VALUES (?, ?)", (key, reply))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


@dataclass
class _RateLimit:
    """At most ``per_minute`` request starts in any minute, spread evenly."""

    per_minute: float | None
    _next: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self) -> None:
        if not self.per_minute:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + 60.0 / self.per_minute
        time.sleep(max(0.0, start - now))


class EndpointError(DataError):
    """The endpoint refused a request in a way retrying cannot fix."""


class OpenAIPredictor:
    """Labels parsed from an OpenAI-compatible endpoint's replies, every reply cached on disk."""

    labels = LABELS

    def __init__(self, model: str, template: PromptTemplate, shots: Sequence[tuple[str, str, str]],
                 settings: EndpointSettings, llm: LLMSettings, cache: ResponseCache) -> None:  # fmt: skip
        self.model, self.template, self.shots = model, template, list(shots)
        self.settings, self.llm, self.cache = settings, llm, cache
        self.url = settings.base_url.rstrip("/") + ("/chat/completions" if settings.api == "chat" else "/completions")
        key = os.environ.get(settings.api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(headers=headers, timeout=settings.timeout_seconds)
        self._rate = _RateLimit(settings.requests_per_minute)
        self.requests_sent = 0
        self.cache_hits = 0
        self.unanswered: list[str] = []  # replies no label could be read from (first few kept)
        self._count_lock = threading.Lock()

    @classmethod
    def load(cls, model: str, params: Mapping[str, Any], base_url: str | None = None,
             cache: str | None = None) -> OpenAIPredictor:  # fmt: skip
        settings = EndpointSettings.from_params(params, base_url=base_url, cache=cache)
        if not settings.base_url:  # checked before the cache file is made
            raise ConfigError("openai: give the endpoint with --base-url URL (or models.openai.base_url)")
        if settings.api not in APIS:
            raise ConfigError(f"models.openai.api: expected one of {APIS}, got {settings.api!r}")
        llm = LLMSettings.from_params(params)
        shots = few_shot_examples(llm.shots_from, llm.shots, llm.seed)
        return cls(model, template_named(llm.template), shots, settings, llm, ResponseCache(Path(settings.cache)))

    def describe(self) -> dict[str, Any]:
        """What the report records (never the key)."""
        return {"template": self.template.describe(), "answer": "generate", "shots": len(self.shots),
                "shots_from": self.llm.shots_from, "seed": self.llm.seed, "endpoint": self.settings.base_url,
                "api": self.settings.api, "model": self.model, "max_tokens": self.settings.max_tokens,
                "temperature": self.settings.temperature, "cache": self.settings.cache,
                "requests_sent": self.requests_sent, "cache_hits": self.cache_hits}  # fmt: skip

    def _body(self, prompt: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.settings.max_tokens,
                                "temperature": self.settings.temperature}  # fmt: skip
        if self.settings.api == "chat":
            body["messages"] = [{"role": "user", "content": prompt}]
        else:
            body["prompt"] = prompt
        return body

    def _key(self, body: Mapping[str, Any]) -> str:
        text = json.dumps([self.settings.api, self.template.sha256, body], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _post(self, body: Mapping[str, Any]) -> str:
        """One request with retries; the reply's text."""
        delay = self.settings.backoff_seconds
        for attempt in range(self.settings.max_retries + 1):
            self._rate.wait()
            try:
                response = self._client.post(self.url, json=body)
            except httpx.TransportError as exc:
                problem, wait = f"{type(exc).__name__}: {exc}", delay
            else:
                if response.status_code == 200:
                    return _reply_text(response, self.settings.api, self.url)
                if response.status_code not in _RETRY_STATUS:
                    raise EndpointError(Path(self.url), f"HTTP {response.status_code}: {response.text[:300]}")
                problem, wait = f"HTTP {response.status_code}", _retry_after(response, delay)
            if attempt == self.settings.max_retries:
                break
            log.warning("%s: %s; retrying in %.1f s (%d of %d)", self.url, problem, wait, attempt + 1,
                        self.settings.max_retries)  # fmt: skip
            time.sleep(wait)
            delay *= 2
        raise EndpointError(Path(self.url), f"no reply after {self.settings.max_retries + 1} tries ({problem})")

    def _answer(self, prompt: str) -> str:
        body = self._body(prompt)
        key = self._key(body)
        reply = self.cache.get(key)
        if reply is not None:
            with self._count_lock:
                self.cache_hits += 1
            return reply
        reply = self._post(body)
        self.cache.put(key, reply)
        with self._count_lock:
            self.requests_sent += 1
        return reply

    def predict_proba(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        prompts = [self.template.render(p, h, self.shots) for p, h in zip(premises, hypotheses, strict=True)]
        with ThreadPoolExecutor(max_workers=self.settings.concurrency) as pool:
            replies = list(pool.map(self._answer, prompts))
        out = np.full((len(prompts), len(LABELS)), np.nan, dtype=np.float32)
        for i, reply in enumerate(replies):
            label = self.template.parse(reply)
            if label is None:
                if len(self.unanswered) < 5:
                    self.unanswered.append(reply[:80])
                continue
            out[i] = 0.0
            out[i, LABELS.index(label)] = 1.0
        return out


def _retry_after(response: httpx.Response, default: float) -> float:
    try:
        return max(0.0, float(response.headers.get("retry-after", default)))
    except ValueError:
        return default


def _reply_text(response: httpx.Response, api: str, url: str) -> str:
    """The first choice's text of a chat or completions reply."""
    try:
        choice = response.json()["choices"][0]
        text = choice["message"]["content"] if api == "chat" else choice["text"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise EndpointError(Path(url), f"not an OpenAI-style reply: {response.text[:200]!r}") from None
    return text or ""
