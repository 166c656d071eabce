"""Models (issue 6): train every (model × variant) of models.runs, run each on every set of
models.evaluate, score them. `snakemake models` builds all of it; `train` and the two
predict rules declare GPU resources (models.resources) for the SLURM profile and run on
the CPU when no GPU is present."""


rule train:
    """Train one zoo model in one training variant."""
    input:
        unpack(train_inputs),
    output:
        directory("data/models/{model}/{variant}"),
    params:
        config=lambda w: train_config(w.model, train_split(w.model)[0]),
        options=train_options,
    resources:
        **MODEL_RESOURCES.get("train", {}),
    threads: MODEL_THREADS
    conda:
        CONDA_ENV
    log:
        "logs/models/train/{model}/{variant}.log",
    shell:
        "nlistress train {wildcards.model:q} --variant {wildcards.variant:q} --train {input.train:q}"
        " {params.options:q} -o {output:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule predict:
    """Predictions of one trained model on one set (the hypothesis-only baselines and the
    canonical splits reuse this rule with their own paths)."""
    input:
        model="data/models/{model}/{variant}",
        table="data/sets/{family}/{test}/{dataset}_{split}.parquet",
        resources=model_resources,
    output:
        "data/predictions/{model}/{variant}/{family}/{test}/{dataset}_{split}.parquet",
    params:
        config=predict_config,
    resources:
        **MODEL_RESOURCES.get("predict", {}),
    threads: MODEL_THREADS
    conda:
        CONDA_ENV
    log:
        "logs/models/predict/{model}/{variant}/{family}/{test}/{dataset}_{split}.log",
    shell:
        "nlistress predict --model {input.model:q} --set {input.table:q} -o {output:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


use rule predict as predict_canonical with:
    input:
        model="data/models/{model}/{variant}",
        table="data/canonical/{dataset}/{split}.parquet",
        resources=model_resources,
    output:
        "data/predictions/{model}/{variant}/canonical/{dataset}_{split}.parquet",
    log:
        "logs/models/predict/{model}/{variant}/canonical/{dataset}_{split}.log",


rule score:
    """Accuracy, confusion matrices and false-neutral share of one model on every evaluated set."""
    input:
        sets=lambda w: [s for s, _ in evaluation_pairs(w)],
        predictions=lambda w: [p for _, p in evaluation_pairs(w)],
    output:
        json="results/scores/{model}/{variant}.json",
        md="results/scores/{model}/{variant}.md",
        csv="results/scores/{model}/{variant}.csv",
        metrics="results/metrics/{model}/{variant}.json",
    params:
        config=lambda w: config_json(
            permute={"metrics": config.get("permute", {}).get("metrics", {})},
            models={"score": MODELS.get("score", {})},
        ),
        pairs=lambda w: [word for s, p in evaluation_pairs(w) for word in ("--set", s, "--predictions", p)],
        run=lambda w: f"{w.model}/{w.variant}",
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/models/score/{model}/{variant}.log",
    shell:
        "nlistress score --strict --model {params.run:q} {params.pairs:q}"
        " -o {output.json:q} --metrics {output.metrics:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule models:
    """Every (model × variant) of models.runs trained, run on every evaluated set and scored."""
    input:
        [f"results/scores/{model}/{variant}.json" for model, variant in MODEL_RUNS],
