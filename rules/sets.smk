"""Generated test sets and training data: the stress tests (Naik et al. 2018), the
word-order permutations (Sinha et al. 2021) and the word-pair swaps (Sanchez et al. 2018).
One family per params section, each with its own `sets` (split -> tests), `augment`
(training split -> tests) and `tests`."""

FAMILIES = ("stress", "permute", "swap")
SETS = {family: test_targets(config, family, "sets") for family in FAMILIES}
AUGMENT = [t for family in FAMILIES for t in test_targets(config, family, "augment")]
# generators that load spaCy / WordNet
NEEDS_RESOURCES = ("antonymy", "numerical", "swap_pairs", "spelling_error", "antonymy_authors", "numerical_authors")


def family_of(test):
    return next(f for f in FAMILIES if test in config[f]["tests"])


def set_config(w):
    """The config a set job needs: its family's settings and test, resources, the dataset."""
    family = family_of(w.test)
    section = {k: v for k, v in config[family].items() if k not in ("sets", "augment", "tests")}
    return config_json(
        **{family: {**section, "tests": {w.test: config[family]["tests"][w.test]}}},
        resources=config.get("resources", {}),
        datasets={w.dataset: config["datasets"][w.dataset]},
        prepare=config.get("prepare", {}),
    )


def set_inputs(w):
    """The canonical split, plus the NLP resource downloads for generators that need them."""
    inputs = {"table": f"data/canonical/{w.dataset}/{w.split}.parquet"}
    if config[family_of(w.test)]["tests"][w.test]["generator"] in NEEDS_RESOURCES:
        for name in config.get("resources", {}).get("downloads", []):
            inputs[name] = f"data/raw/{name}.manifest.json"
    if family_of(w.test) == "swap":
        inputs.update(swap_inputs(w.test))
    return inputs


def swap_inputs(test):
    """A swap set also reads the training split (polarity, unseen) and its lexicon."""
    section = config["swap"]
    train = section.get("train_table")
    if not train:
        dataset, _, split = section["train"].partition("/")
        train = f"data/canonical/{dataset}/{split}.parquet"
    inputs = {"train": train}
    lexicons = section.get("lexicons", {})
    if section["tests"][test].get("relation") == "hypernym":
        hypernyms = lexicons.get("hypernyms", {})
        if hypernyms.get("source") == "baroni2012" and hypernyms.get("download"):
            inputs["lexicon"] = f"data/raw/{hypernyms['download']}.manifest.json"
    elif lexicons.get("antonyms", {}).get("path"):
        inputs["lexicon"] = lexicons["antonyms"]["path"]
    return inputs


# With the WordNet source, the antonym list is an artifact of its own: walking WordNet
# once here instead of in every swap job.
ANTONYMS = config.get("swap", {}).get("lexicons", {}).get("antonyms", {})
if ANTONYMS.get("source", "wordnet") == "wordnet" and ANTONYMS.get("path"):

    rule antonym_lexicon:
        """Every WordNet antonym pair, in Mohammad et al.'s format (swap.lexicons.antonyms.path)."""
        input:
            [f"data/raw/{name}.manifest.json" for name in config.get("resources", {}).get("downloads", [])],
        output:
            ANTONYMS["path"],
        params:
            config=lambda w: config_json(resources=config.get("resources", {})),
        log:
            "logs/lexicons/antonyms_wordnet.log",
        shell:
            "nlistress antonym-lexicon -o {output:q} --set-json {params.config:q} 2>&1 | tee {log:q}"


rule test_set:
    """Build one test set from one canonical split."""
    input:
        unpack(set_inputs),
    output:
        table="data/sets/{family}/{test}/{dataset}_{split}.parquet",
        manifest="data/sets/{family}/{test}/{dataset}_{split}.manifest.json",
    params:
        config=set_config,
    resources:
        mem_mb=2000,
    log:
        "logs/sets/{family}/{test}/{dataset}_{split}.log",
    shell:
        "nlistress perturb {wildcards.test:q} -i {input.table:q} -o {output.table:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


rule augment_set:
    """Training data: negation twins (Naik et al. 4.6), permuted copies (Sinha et al. app. F)."""
    input:
        unpack(set_inputs),
    output:
        table="data/augmented/{test}/{dataset}_{split}.parquet",
        manifest="data/augmented/{test}/{dataset}_{split}.manifest.json",
    params:
        config=set_config,
    log:
        "logs/augment/{test}/{dataset}_{split}.log",
    shell:
        "nlistress perturb {wildcards.test:q} -i {input.table:q} -o {output.table:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


def review_summary(w):
    """The human-review summary that covers this set, if any (reviews/ is in git).

    A summary may cover several sets (the numerical test's AQuA-RAT dev and
    test are judged together); it lists each set file it judged under `sets`.
    """
    name = f"{w.dataset}_{w.split}.parquet"
    for path in sorted(glob.glob(f"reviews/{w.family}/{w.test}/*.json")):
        with open(path, encoding="utf-8") as handle:
            if any(s.get("set") == name for s in json.load(handle).get("sets", [])):
                return {"review": path}
    return {}


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
        config=set_config,
        review=lambda w, input: ["--review", input.review] if "review" in input.keys() else [],
    log:
        "logs/sets/{family}/{test}/{dataset}_{split}.card.log",
    shell:
        "nlistress card {input.table:q} -o {output:q} {params.review:q} --audit {input.audit:q}"
        " --set-json {params.config:q} 2>&1 | tee {log:q}"


def family_outputs(family):
    cards = [f"data/sets/{family}/{t}/{d}_{s}.card.md" for t, d, s in SETS[family]]
    augmented = [
        f"data/augmented/{t}/{d}_{s}.parquet"
        for t, d, s in AUGMENT
        if family_of(t) == family
    ]
    return cards + augmented


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
