"""Annotation artifacts (Poliak et al. 2018): give-away words of the splits named in
artifacts.giveaway, the artifact audit of every generated set (its card shows it), and
Tables 2-3 (majority vs hypothesis-only) for artifacts.baselines, with the bag-of-words
proxy's predictions until the registry's hypothesis-only model is wired in."""

import shlex

ARTIFACTS = config.get("artifacts", {})
# Analyses and baseline datasets with nothing selected (e.g. in an offline override) are skipped.
GIVEAWAY = {name: splits for name, splits in ARTIFACTS.get("giveaway", {}).items() if splits}
BASELINES = {d: b for d, b in ARTIFACTS.get("baselines", {}).items() if b.get("eval")}
GIVEAWAY_FILES = ("top_words.csv", "top_words.md", "coverage.csv", "coverage.png", "words.json")
BASELINE_FILES = ("table2.md", "table2.csv", "table3.md", "table3.csv", "baselines.json")


def artifacts_config(*datasets):
    """The artifacts section plus the registry entries of ``datasets`` (their language)."""
    return config_json(
        artifacts=ARTIFACTS, datasets={d: config["datasets"][d] for d in datasets}
    )


rule giveaway:
    """p(l|w), top words per label (Figure 13) and coverage curve (Figure 6) of one analysis."""
    input:
        lambda w: [f"data/canonical/{s}.parquet" for s in GIVEAWAY[w.analysis]],
    output:
        [f"results/giveaway/{{analysis}}/{name}" for name in GIVEAWAY_FILES],
    wildcard_constraints:
        analysis=_names(GIVEAWAY),
    params:
        tables=lambda w, input: " ".join(f"--table {shlex.quote(t)}" for t in input),
        folder=lambda w: f"results/giveaway/{w.analysis}",
        config=lambda w: artifacts_config(*{s.split("/")[0] for s in GIVEAWAY[w.analysis]}),
    log:
        "logs/artifacts/giveaway/{analysis}.log",
    shell:
        "nlistress giveaway {params.tables} -o {params.folder:q} --title {wildcards.analysis:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


rule set_audit:
    """Artifact audit of one generated set: majority, hypothesis-only (BoW), give-away words."""
    input:
        "data/sets/{family}/{test}/{dataset}_{split}.parquet",
    output:
        "data/sets/{family}/{test}/{dataset}_{split}.audit.json",
    params:
        config=lambda w: artifacts_config(w.dataset),
    log:
        "logs/artifacts/audit/{family}/{test}/{dataset}_{split}.log",
    shell:
        "nlistress audit --set {input:q} -o {output:q} --set-json {params.config:q} 2>&1 | tee {log:q}"


rule hypothesis_bow:
    """Bag-of-words hypothesis-only predictions on one split, trained on the dataset's train split."""
    input:
        train=lambda w: f"data/canonical/{BASELINES[w.dataset]['train']}.parquet",
        table="data/canonical/{dataset}/{split}.parquet",
    output:
        "results/baselines/bow/{dataset}_{split}.parquet",
    params:
        config=lambda w: artifacts_config(w.dataset),
    log:
        "logs/artifacts/bow/{dataset}_{split}.log",
    shell:
        "nlistress hypothesis-bow --train {input.train:q} --table {input.table:q} -o {output:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


rule baselines:
    """Tables 2 and 3 over every dataset in artifacts.baselines."""
    input:
        [f"data/canonical/{b['train']}.parquet" for b in BASELINES.values()],
        [f"data/canonical/{s}.parquet" for b in BASELINES.values() for s in b["eval"]],
        [f"results/baselines/bow/{s.replace('/', '_')}.parquet" for b in BASELINES.values() for s in b["eval"]],
    output:
        [f"results/baselines/{name}" for name in BASELINE_FILES],
    params:
        # All entries (not only BASELINES): --set-json is merged over params.yaml, so an
        # entry left out would come back with the defaults.
        config=lambda w: config_json(artifacts={"baselines": ARTIFACTS.get("baselines", {})}),
    log:
        "logs/artifacts/baselines.log",
    shell:
        "nlistress baselines --canonical-dir data/canonical --predictions-dir results/baselines/bow"
        " -o results/baselines --set-json {params.config:q} 2>&1 | tee {log:q}"


rule artifacts:
    """Every give-away analysis and Tables 2-3 (set audits come with the sets' cards)."""
    input:
        [f"results/giveaway/{name}/{f}" for name in GIVEAWAY for f in GIVEAWAY_FILES],
        [f"results/baselines/{name}" for name in BASELINE_FILES] if BASELINES else [],
