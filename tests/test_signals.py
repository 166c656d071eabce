"""A deferred signal handler cannot deadlock on a lock its interrupted thread holds."""

from __future__ import annotations

import os
import signal
import threading

from nlistress.signals import defer_to_a_thread


def test_a_handler_that_takes_a_held_lock_runs_once_the_lock_is_released() -> None:
    # What Snakemake's scheduler does: the handler takes the lock the main thread holds.
    lock = threading.Lock()
    handled = threading.Event()

    def takes_the_lock(signum, frame) -> None:
        with lock:
            handled.set()

    previous = signal.signal(signal.SIGUSR1, takes_the_lock)
    try:
        assert defer_to_a_thread(signal.SIGUSR1)
        with lock:
            os.kill(os.getpid(), signal.SIGUSR1)  # run undeferred, this line never returns
            assert not handled.wait(0.2), "the handler ran while the lock was held"
        assert handled.wait(10), "the handler never ran"
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_nothing_to_defer_without_a_python_handler() -> None:
    previous = signal.signal(signal.SIGUSR2, signal.SIG_DFL)
    try:
        assert not defer_to_a_thread(signal.SIGUSR2)
        assert signal.getsignal(signal.SIGUSR2) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGUSR2, previous)
