"""One combined report per trained model (`nlistress evaluate`): every set of models.evaluate
scored with bootstrap intervals and the hypothesis-only gap, Naik et al.'s stress tests beside
the paper's range, Sinha et al.'s permutation metrics and Sanchez et al.'s swap statistics.
It reads the pipeline's own predictions (`predictions:data/predictions/<model>/<variant>`), so
nothing is predicted twice; `snakemake evaluations` writes results/evaluate/<model>.<variant>/."""


rule evaluate:
    """The combined report of one (model, variant) on every evaluated set."""
    input:
        sets=lambda w: [table for table, _ in evaluated_sets_and_predictions(w)],
        predictions=lambda w: [p for _, p in evaluated_sets_and_predictions(w)] + original_predictions(w),
    output:
        directory("results/evaluate/{model}.{variant}"),
    params:
        sets=lambda w: [table for table, _ in evaluated_sets_and_predictions(w)],
        predictions=lambda w: f"data/predictions/{w.model}/{w.variant}",
        name=lambda w: run_name(w.model, w.variant),
        config=lambda w: config_json(
            permute={"metrics": config.get("permute", {}).get("metrics", {})},
            swap={"stats": config.get("swap", {}).get("stats", {})},
            models={"score": MODELS.get("score", {})},
            evaluate=config.get("evaluate", {}),
        ),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/evaluate/{model}.{variant}.log",
    shell:
        "nlistress evaluate --model predictions:{params.predictions:q} --name {params.name:q} --strict"
        " --sets {params.sets:q} -o {output:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule evaluations:
    """The combined report of every (model, variant) of models.runs."""
    input:
        [f"results/evaluate/{model}.{variant}" for model, variant in MODEL_RUNS],
