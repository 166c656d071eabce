"""POS mini-tree overlap (Sinha et al. 2021, equation 4) for the permuted sets.

The train statistic comes from the canonical split named in permute.minitree.train;
per-example β^k scores are computed for every English set of the `permute` test
(the model-independent half of Figure 4; `nlistress unli-metrics --minitree` joins
them with a model's predictions).
"""


rule minitree_stat:
    """Per word type: mean UPOS distribution of its neighbours within the radius."""
    input:
        train=lambda w: f"data/canonical/{MINITREE_TRAIN}.parquet",
        resources=lambda w: [f"data/raw/{n}.manifest.json" for n in config.get("resources", {}).get("downloads", [])],
    output:
        "data/unli/minitree/train_statistic.parquet",
    params:
        config=minitree_config,
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/unli/minitree_stat.log",
    shell:
        "nlistress minitree-stat {input.train:q} -o {output:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule minitree_scores:
    """β^k of each example, of its permutations, and their ratio."""
    input:
        table="data/sets/permute/permute/{dataset}_{split}.parquet",
        canonical="data/canonical/{dataset}/{split}.parquet",
        stat="data/unli/minitree/train_statistic.parquet",
    output:
        "data/unli/minitree/permute/{dataset}_{split}.parquet",
    params:
        config=minitree_config,
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/unli/minitree/{dataset}_{split}.log",
    shell:
        "nlistress minitree-scores --set {input.table:q} --canonical {input.canonical:q}"
        " --stat {input.stat:q} -o {output:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule minitree:
    """Mini-tree scores of every English `permute` set."""
    input:
        [f"data/unli/minitree/permute/{d}_{s}.parquet" for d, s in MINITREE_SETS],
