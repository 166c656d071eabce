"""Progress lines for long steps: how far a step has got, how fast it goes, when it ends.

A line every ``seconds`` (and one at the end): ``label: 12,000 / 50,000 rows (1,234/s, ETA
31 s)``, or ``label: 12,000 rows (1,234/s)`` where the total is not known up front.
Counting is by what the step processes (rows, sentences), weighed per item, so a step
that yields one big batch at the end still reports while it works.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

PROGRESS_SECONDS = 10.0  # between two progress lines of one step


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def progress_line(label: str, done: int, total: int | None, what: str, elapsed: float) -> str:
    """One progress line (see the module docstring)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    if total is None:
        return f"{label}: {done:,} {what} ({rate:,.0f}/s)"
    eta = _duration((total - done) / rate) if rate > 0 and done < total else ("0 s" if done >= total else "unknown")
    return f"{label}: {done:,} / {total:,} {what} ({rate:,.0f}/s, ETA {eta})"


def with_progress(
    items: Iterable[T],
    label: str,
    what: str,
    logger: logging.Logger,
    total: int | None = None,
    weigh: Callable[[T], int] | None = None,
    seconds: float | None = None,
) -> Iterator[T]:
    """Pass ``items`` through, logging a progress line every ``seconds`` and one at the end.

    ``weigh(item)`` is how many units (rows, sentences) an item stands for (default 1);
    ``total`` is the number of units expected, for the ETA; ``seconds`` defaults to
    ``PROGRESS_SECONDS``.
    """
    seconds = PROGRESS_SECONDS if seconds is None else seconds
    start = last = time.monotonic()
    done = 0
    logged = -1  # units done at the last line: the end line is not said twice
    for item in items:
        yield item
        done += weigh(item) if weigh else 1
        now = time.monotonic()
        if now - last >= seconds:
            last, logged = now, done
            logger.info("%s", progress_line(label, done, total, what, now - start))
    if done != logged and ((done and last > start) or total is not None):
        logger.info("%s", progress_line(label, done, total, what, time.monotonic() - start))
