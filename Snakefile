"""nlistress: build the NLI robustness test suites of four papers, reproducibly.

Every knob lives in params.yaml (loaded as the Snakemake config); override it
for one run with `--configfile FILE`, e.g. `--configfile tests/shared.yaml`
to read local copies of the datasets instead of downloading them.

Rules stay thin: each one calls a single `nlistress` subcommand.
"""

import atexit
import signal
import sys


configfile: "params.yaml"


include: "rules/common.smk"


# Dataset and test names come from the registry, so `mnli_dev_matched` splits
# unambiguously into dataset `mnli` and split `dev_matched`.
wildcard_constraints:
    dataset=_names(config.get("datasets", {})),
    test=_names([t for f in ("stress", "permute", "swap") for t in config.get(f, {}).get("tests", {})]),
    family="stress|permute|swap",
    split="[A-Za-z0-9_.-]+",
    download=_names(config.get("downloads", {})),
    model=_names(MODELS.get("zoo", {})),
    variant="|".join(VARIANTS),


include: "rules/download.smk"
include: "rules/canonical.smk"
include: "rules/sets.smk"
include: "rules/unli.smk"
include: "rules/models.smk"
include: "rules/artifacts.smk"
include: "rules/release.smk"
include: "rules/tables.smk"
include: "rules/evaluate.smk"


rule all:
    """Default target: every canonical split and test set selected in params.yaml, the
    give-away analyses and baselines, every configured model trained, run and scored, the
    paper tables and results/REPORT.md."""
    default_target: True
    input:
        canonical_indexes(),
        rules.stress.input,
        rules.permute.input,
        rules.swap.input,
        rules.minitree.input,
        rules.artifacts.input,
        rules.models.input,
        rules.tables.input,
        REPORT_FILES,


onstart:
    # Snakemake's SIGTERM handler takes a lock the main thread may hold (nlistress.signals):
    # run it on a thread, so that `kill` or a scheduler's time limit stops the run, never hangs it.
    defer_to_a_thread(signal.SIGTERM)


onerror:
    # What was kept and how to go on, as the run's last line: printed at exit, after
    # Snakemake's own closing WorkflowError.
    atexit.register(print, RESUME_HINT, file=sys.stderr)
