"""Progress lines: done / total, rate and ETA, by the units a step processes."""

from __future__ import annotations

import logging

from nlistress.progress import progress_line, with_progress


def test_lines_show_done_total_rate_and_eta(caplog) -> None:
    log = logging.getLogger("nlistress.test")
    with caplog.at_level(logging.INFO, logger="nlistress.test"):
        batches = [[1] * 4, [1] * 6]
        out = list(with_progress(batches, "antonymy", "rows", log, total=10, weigh=len, seconds=0.0))
    assert out == batches
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("antonymy: 4 / 10 rows (") and "/s, ETA " in lines[0]
    assert lines[-1].startswith("antonymy: 10 / 10 rows (") and lines[-1].endswith("ETA 0 s)")
    assert len(lines) == 2  # the last batch's line is the end line, not said again


def test_a_step_with_nothing_to_show_says_only_its_total(caplog) -> None:
    log = logging.getLogger("nlistress.test")
    with caplog.at_level(logging.INFO, logger="nlistress.test"):
        list(with_progress([], "antonymy", "rows", log, total=0))
        list(with_progress([[1]], "antonymy", "rows", log, weigh=len, seconds=3600.0))
    assert [r.getMessage() for r in caplog.records] == ["antonymy: 0 / 0 rows (0/s, ETA 0 s)"]


def test_without_a_total_the_line_says_what_is_done_and_how_fast() -> None:
    assert progress_line("read", 12_000, None, "rows", 10.0) == "read: 12,000 rows (1,200/s)"
    assert progress_line("predict", 1_000, 61_000, "rows", 10.0) == "predict: 1,000 / 61,000 rows (100/s, ETA 10 min)"
    assert progress_line("tag", 0, 5, "sentences", 0.0) == "tag: 0 / 5 sentences (0/s, ETA unknown)"
