"""Paper tables from the models' predictions: the permutation metrics of Sinha et al. 2021
(Tables 2-3 and 7, the Ω curve, entropy and BLEU / length / mini-tree bins, with their
figures) and the word-pair swap statistics of Sanchez et al. 2018 (Table 1, McNemar and
chi-square tests). Each is one `nlistress` call over every (model, variant) of
models.runs and every evaluated set of its family (models.evaluate). Then the report:
every table of the four papers with the paper's numbers beside ours (results/REPORT.md)."""


rule unli_metrics:
    """Sinha et al. Tables 2-3 and 7 and the figures' data, for every model on every permuted set."""
    input:
        run_files(unli_runs()),
    output:
        directory("results/unli"),
    params:
        runs=lambda w: json_file(unli_runs()),
        config=lambda w: config_json(permute={"metrics": config["permute"].get("metrics", {})}),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/tables/unli_metrics.log",
    shell:
        "nlistress unli-metrics --runs {params.runs:q} -o {output:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule swap_stats:
    """Sanchez et al. Table 1 with McNemar / chi-square tests, for every model on every swap set."""
    input:
        run_files(swap_runs()),
    output:
        directory("results/swap"),
    params:
        runs=lambda w: json_file(swap_runs()),
        config=lambda w: config_json(swap={"stats": config["swap"].get("stats", {})}),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/tables/swap_stats.log",
    shell:
        "nlistress stats --runs {params.runs:q} -o {output:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule tables:
    """Every paper table the configured models and sets allow."""
    input:
        ["results/unli"] if unli_runs() else [],
        ["results/swap"] if swap_runs() else [],


rule report:
    """results/REPORT.md: every paper table, the paper's numbers beside this run's (and why not)."""
    input:
        rules.tables.input,
        rules.models.input,
        rules.artifacts.input,
        [f"data/sets/{f}/{t}/{d}_{s}.manifest.json" for f in FAMILIES for t, d, s in SETS[f]],
        canonical_indexes(),
    output:
        REPORT_FILES,
        directory("results/tables"),
    params:
        config=lambda w: config_json(**{k: config.get(k, {}) for k in (
            "report", "models", "datasets", "canonical_splits", "artifacts")}),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/tables/report.log",
    shell:
        "nlistress report --results results --data data -o results --set-json {params.config:q}"
        " --threads {threads:q} 2>&1 | tee {log:q}"
