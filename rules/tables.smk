"""Paper tables from the models' predictions: the permutation metrics of Sinha et al. 2021
(Tables 2-3 and 7, the Ω curve, entropy and BLEU / length / mini-tree bins, with their
figures) and the word-pair swap statistics of Sanchez et al. 2018 (Table 1, McNemar and
chi-square tests). Each is one `nlistress` call over every (model, variant) of
models.runs and every evaluated set of its family (models.evaluate). Then the report:
every table of the four papers with the paper's numbers beside ours (results/REPORT.md)."""

PERMUTE_EVAL = [(t, d, s) for f, t, d, s in MODEL_EVAL if f == "permute"]
SWAP_EVAL = [(t, d, s) for f, t, d, s in MODEL_EVAL if f == "swap"]


def run_name(model, variant):
    """A model's name in the tables: `infersent.negation` (model, then training variant)."""
    return f"{model}.{variant}"


def unli_runs():
    """Permuted set, its predictions, and the predictions on the unpermuted split."""
    runs = []
    for model, variant in MODEL_RUNS:
        pred = f"data/predictions/{model}/{variant}"
        for test, dataset, split in PERMUTE_EVAL:
            run = {
                "model": run_name(model, variant),
                "set": f"data/sets/permute/{test}/{dataset}_{split}.parquet",
                "predictions": f"{pred}/permute/{test}/{dataset}_{split}.parquet",
                "original_predictions": f"{pred}/canonical/{dataset}_{split}.parquet",
                "canonical": f"data/canonical/{dataset}/{split}.parquet",
            }
            if test == "permute" and (dataset, split) in MINITREE_SETS:
                run["minitree"] = f"data/unli/minitree/permute/{dataset}_{split}.parquet"
            runs.append(run)
    return runs


def swap_runs():
    """Each swap set holds an experiment's control and transformed rows, so one file serves both."""
    return [
        {
            "model": run_name(model, variant),
            "control": f"data/sets/swap/{test}/{dataset}_{split}.parquet",
            "predictions_control": f"data/predictions/{model}/{variant}/swap/{test}/{dataset}_{split}.parquet",
        }
        for model, variant in MODEL_RUNS
        for test, dataset, split in SWAP_EVAL
    ]


def run_files(runs):
    return sorted({path for run in runs for key, path in run.items() if key != "model"})


rule unli_metrics:
    """Sinha et al. Tables 2-3 and 7 and the figures' data, for every model on every permuted set."""
    input:
        run_files(unli_runs()),
    output:
        directory("results/unli"),
    params:
        runs=lambda w: json.dumps(unli_runs(), sort_keys=True),
        config=lambda w: config_json(permute={"metrics": config["permute"].get("metrics", {})}),
    log:
        "logs/tables/unli_metrics.log",
    shell:
        "nlistress unli-metrics --runs-json {params.runs:q} -o {output:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


rule swap_stats:
    """Sanchez et al. Table 1 with McNemar / chi-square tests, for every model on every swap set."""
    input:
        run_files(swap_runs()),
    output:
        directory("results/swap"),
    params:
        runs=lambda w: json.dumps(swap_runs(), sort_keys=True),
        config=lambda w: config_json(swap={"stats": config["swap"].get("stats", {})}),
    log:
        "logs/tables/swap_stats.log",
    shell:
        "nlistress stats --runs-json {params.runs:q} -o {output:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


rule tables:
    """Every paper table the configured models and sets allow."""
    input:
        ["results/unli"] if unli_runs() else [],
        ["results/swap"] if swap_runs() else [],


REPORT_FILES = ["results/REPORT.md", "results/report.csv"]


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
    log:
        "logs/tables/report.log",
    shell:
        "nlistress report --results results --data data -o results --set-json {params.config:q}"
        " 2>&1 | tee {log:q}"
