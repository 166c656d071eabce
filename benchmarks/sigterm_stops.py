"""Trial: does SIGTERM stop a Snakemake run, with and without nlistress.signals?

Runs a throw-away 400-job workflow (one `echo` per job) in a temporary folder,
sends SIGTERM to Snakemake after a random 3-5 s, and counts the runs still alive
20 s later (then SIGKILLs them). Snakemake's own handler can deadlock on its
scheduler lock (see nlistress/signals.py); the workflow's onstart hook defers
it to a thread. Run from the project root (about 3 minutes):

    python benchmarks/sigterm_stops.py [TRIALS]
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNAKEFILE = """\
import signal
from nlistress.signals import defer_to_a_thread

rule all:
    input: expand("out/{i}.txt", i=range(400))

rule one:
    output: "out/{i}.txt"
    shell: "echo {wildcards.i} > {output}"

if config.get("defer"):
    onstart:
        defer_to_a_thread(signal.SIGTERM)
"""


def hung(folder: Path, defer: bool, rng: random.Random) -> bool:
    """One run, stopped with SIGTERM; whether it was still running 20 s later."""
    command = [sys.executable, "-m", "snakemake", "--cores", "1", "--quiet",
               "--config", f"defer={int(defer)}"]  # fmt: skip
    run = subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(rng.uniform(3, 5))
    run.send_signal(signal.SIGTERM)
    try:
        run.wait(timeout=20)
        return False
    except subprocess.TimeoutExpired:
        run.kill()
        run.wait()
        return True


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    rng = random.Random(0)
    for defer in (False, True):
        hangs = 0
        for _ in range(trials):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                (folder / "Snakefile").write_text(SNAKEFILE, encoding="utf-8")
                hangs += hung(folder, defer, rng)
        label = "deferred to a thread" if defer else "Snakemake's own handler"
        print(f"{label}: {hangs} of {trials} runs hung after SIGTERM")


if __name__ == "__main__":
    main()
