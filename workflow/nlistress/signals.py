"""Signal handling for the Snakemake run itself (not for the jobs it starts).

Snakemake's SIGTERM handler (``JobScheduler.exit_gracefully``, Snakemake 9) takes
the scheduler's ``threading.Lock``. Python runs a signal handler in the main
thread, between two bytecodes of whatever that thread was doing, and the
scheduler's main thread holds that very lock while it selects and finishes jobs.
A SIGTERM landing there waits for a lock its own thread holds: the run hangs
for good instead of stopping after its running jobs.
`python benchmarks/sigterm_stops.py` (12 runs of a 400-job workflow, each sent
SIGTERM after 3-5 s): 9 hung with Snakemake's handler, none with it deferred.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


def defer_to_a_thread(signum: int = signal.SIGTERM) -> bool:
    """Make the handler installed for ``signum`` run on a new thread, not in the main one.

    The handler then waits for the lock like any other thread, the main thread
    goes on and releases it, and the stop takes effect as the handler intended
    (for Snakemake: finish the running jobs, record them, release the lock,
    exit). Returns whether a Python handler was there to defer.
    """
    handler = signal.getsignal(signum)
    if not callable(handler):
        return False

    def deferred(received: int, frame: FrameType | None) -> None:
        threading.Thread(target=handler, args=(received, frame), daemon=True,
                         name=f"deferred-{signal.Signals(received).name}").start()  # fmt: skip

    signal.signal(signum, deferred)
    return True
