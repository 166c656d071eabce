"""Annotation artifacts (Poliak et al. 2018): give-away words of the splits named in
artifacts.giveaway, Tables 2-3 (majority vs hypothesis-only) for artifacts.baselines, and
the artifact audit of every generated set (its card shows it). The hypothesis-only
predictions come from the registry's model artifacts.hypothesis_only_model, trained per
baselines dataset on its own training split as in the paper (data/baselines/<model>/<dataset>/);
with that set to null, from the bag-of-words proxy (data/baselines/bow/<dataset>/)."""


rule giveaway:
    """p(l|w), top words per label (Figure 13) and coverage curve (Figure 6) of one analysis."""
    input:
        lambda w: [canonical_path(s) for s in GIVEAWAY[w.analysis]],
    output:
        [f"results/giveaway/{{analysis}}/{name}" for name in GIVEAWAY_FILES],
    wildcard_constraints:
        analysis=_names(GIVEAWAY),
    params:
        tables=lambda w, input: [word for t in input for word in ("--table", t)],
        folder=lambda w: f"results/giveaway/{w.analysis}",
        config=lambda w: artifacts_config(*{s.split("/")[0] for s in GIVEAWAY[w.analysis]}),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/artifacts/giveaway/{analysis}.log",
    shell:
        "nlistress giveaway {params.tables:q} -o {params.folder:q} --title {wildcards.analysis:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule set_audit:
    """Artifact audit of one generated set: majority, hypothesis-only accuracy, give-away words."""
    input:
        unpack(set_model_inputs),
        table="data/sets/{family}/{test}/{dataset}_{split}.parquet",
    output:
        "data/sets/{family}/{test}/{dataset}_{split}.audit.json",
    params:
        config=lambda w: artifacts_config(w.dataset),
        model=lambda w, input: (["--model", input.model, "--predictions", input.predictions]
                                if "model" in input.keys() else []),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/artifacts/audit/{family}/{test}/{dataset}_{split}.log",
    shell:
        "nlistress audit --set {input.table:q} {params.model:q} -o {output:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


if HYP_MODEL:

    rule baseline_train:
        """The hypothesis-only model of one baselines dataset, trained on that dataset's train split."""
        input:
            train=lambda w: canonical_path(BASELINES[w.dataset]["train"]),
            dev=lambda w: [canonical_path(BASELINES[w.dataset]["dev"])] if BASELINES[w.dataset].get("dev") else [],
        output:
            directory(f"data/baselines/{HYP_MODEL}/{{dataset}}/model"),
        wildcard_constraints:
            dataset=_names(BASELINES),
        params:
            config=lambda w: train_config(HYP_MODEL, BASELINES[w.dataset]["train"].split("/")[0]),
            dev=lambda w, input: ["--dev", input.dev[0]] if input.dev else [],
            model=HYP_MODEL,
        resources:
            **config.get("models", {}).get("resources", {}).get("train", {}),
        threads: MODEL_THREADS
        conda:
            CONDA_ENV
        log:
            f"logs/baselines/{HYP_MODEL}/{{dataset}}/train.log",
        shell:
            "nlistress train {params.model:q} --variant plain --train {input.train:q} {params.dev:q}"
            " -o {output:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"

    use rule predict as baseline_predict with:
        input:
            model=f"data/baselines/{HYP_MODEL}/{{dataset}}/model",
            table="data/canonical/{source}/{split}.parquet",
        output:
            f"data/baselines/{HYP_MODEL}/{{dataset}}/{{source}}_{{split}}.parquet",
        wildcard_constraints:
            source=_names(config.get("datasets", {})),
        log:
            f"logs/baselines/{HYP_MODEL}/{{dataset}}/{{source}}_{{split}}.log",

    use rule predict as set_hypothesis_only with:
        input:
            model=f"data/baselines/{HYP_MODEL}/{{dataset}}/model",
            table="data/sets/{family}/{test}/{dataset}_{split}.parquet",
        output:
            "data/sets/{family}/{test}/{dataset}_{split}.hyp_only.parquet",
        log:
            "logs/artifacts/hyp_only/{family}/{test}/{dataset}_{split}.log",

else:

    rule hypothesis_bow:
        """Bag-of-words hypothesis-only predictions on one split, fitted on the dataset's train split."""
        input:
            train=lambda w: canonical_path(BASELINES[w.dataset]["train"]),
            table="data/canonical/{source}/{split}.parquet",
        output:
            "data/baselines/bow/{dataset}/{source}_{split}.parquet",
        wildcard_constraints:
            source=_names(config.get("datasets", {})),
        params:
            config=lambda w: artifacts_config(w.source),
        threads: 1
        conda:
            CONDA_ENV
        log:
            "logs/baselines/bow/{dataset}/{source}_{split}.log",
        shell:
            "nlistress hypothesis-bow --train {input.train:q} --table {input.table:q} -o {output:q}"
            " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule baselines:
    """Tables 2 and 3 over every dataset in artifacts.baselines."""
    input:
        [canonical_path(b["train"]) for b in BASELINES.values()],
        [canonical_path(s) for b in BASELINES.values() for s in b["eval"]],
        [p for d in BASELINES for p in predictions_of(d)],
    output:
        [f"results/baselines/{name}" for name in BASELINE_FILES],
    params:
        # All entries (not only BASELINES): --set-json is merged over params.yaml, so an
        # entry left out would come back with the defaults.
        config=lambda w: config_json(artifacts={"baselines": ARTIFACTS.get("baselines", {})}),
        predictor=HYP_MODEL or "bag-of-words proxy",
        predictions=lambda w: f"data/baselines/{PREDICTOR}",
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/artifacts/baselines.log",
    shell:
        "nlistress baselines --canonical-dir data/canonical --predictions-dir {params.predictions:q}"
        " --predictor {params.predictor:q} -o results/baselines --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule hypothesis_only_baselines:
    """Every baselines dataset's hypothesis-only predictor and its predictions on the evaluation splits."""
    input:
        [p for d in BASELINES for p in predictions_of(d)],


rule artifacts:
    """Every give-away analysis and Tables 2-3 (set audits come with the sets' cards)."""
    input:
        [f"results/giveaway/{name}/{f}" for name in GIVEAWAY for f in GIVEAWAY_FILES],
        [f"results/baselines/{name}" for name in BASELINE_FILES] if BASELINES else [],
