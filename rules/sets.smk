"""Generated test sets and training data: the stress tests (Naik et al. 2018), the
word-order permutations (Sinha et al. 2021) and the word-pair swaps (Sanchez et al. 2018).
One family per params section, each with its own `sets` (split -> tests), `augment`
(training split -> tests) and `tests`."""


if ANTONYMS.get("source", "wordnet") == "wordnet" and ANTONYMS.get("path"):

    rule antonym_lexicon:
        """Every WordNet antonym pair, in Mohammad et al.'s format (swap.lexicons.antonyms.path)."""
        input:
            [f"data/raw/{name}.manifest.json" for name in config.get("resources", {}).get("downloads", [])],
        output:
            ANTONYMS["path"],
        params:
            config=lambda w: config_json(resources=config.get("resources", {})),
        threads: 1
        conda:
            CONDA_ENV
        log:
            "logs/lexicons/antonyms_wordnet.log",
        shell:
            "nlistress antonym-lexicon -o {output:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule test_set:
    """Build one test set from one canonical split."""
    input:
        unpack(set_inputs),
    output:
        table="data/sets/{family}/{test}/{dataset}_{split}.parquet",
        manifest="data/sets/{family}/{test}/{dataset}_{split}.manifest.json",
    # a split has no dot, so "<split>.hyp_only.parquet" is set_hypothesis_only's alone
    wildcard_constraints:
        split="[A-Za-z0-9_-]+",
    params:
        config=set_config,
    resources:
        mem_mb=2000,
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/sets/{family}/{test}/{dataset}_{split}.log",
    shell:
        "nlistress perturb {wildcards.test:q} -i {input.table:q} -o {output.table:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule augment_set:
    """Training data: negation twins (Naik et al. 4.6), permuted copies (Sinha et al. app. F)."""
    input:
        unpack(set_inputs),
    output:
        table="data/augmented/{test}/{dataset}_{split}.parquet",
        manifest="data/augmented/{test}/{dataset}_{split}.manifest.json",
    params:
        config=set_config,
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/augment/{test}/{dataset}_{split}.log",
    shell:
        "nlistress perturb {wildcards.test:q} -i {input.table:q} -o {output.table:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule set_card:
    """Dataset card of one set: what it tests, how it was built, counts, review, licence."""
    input:
        unpack(review_summary),
        table="data/sets/{family}/{test}/{dataset}_{split}.parquet",
        manifest="data/sets/{family}/{test}/{dataset}_{split}.manifest.json",
        audit="data/sets/{family}/{test}/{dataset}_{split}.audit.json",  # rules/artifacts.smk
    output:
        "data/sets/{family}/{test}/{dataset}_{split}.card.md",
    params:
        config=card_config,
        review=lambda w, input: ["--review", input.review] if "review" in input.keys() else [],
        paper_review=lambda w, input: (["--paper-review", input.paper_review]
                                       if "paper_review" in input.keys() else []),
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/sets/{family}/{test}/{dataset}_{split}.card.log",
    shell:
        "nlistress card {input.table:q} -o {output:q} {params.review:q} {params.paper_review:q}"
        " --audit {input.audit:q}"
        " --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"


rule stress:
    """Every stress-test set (stress.sets) with its card, and the negation-augmented data."""
    input:
        family_outputs("stress"),


rule permute:
    """Every permuted set (permute.sets) with its card, and the permuted training data."""
    input:
        family_outputs("permute"),


rule swap:
    """Every word-pair swap set (swap.sets: control and transformed rows) with its card."""
    input:
        family_outputs("swap"),
