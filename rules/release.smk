"""The release: every set of the families in `release.families`, with cards and manifests,
copied into data/release/ with a catalogue. `dvc pull release` fetches exactly this."""


rule release:
    """Assemble the released sets and write README.md (the Hugging Face dataset card),
    croissant.json and catalogue.json / catalogue.csv / CATALOGUE.md."""
    input:
        sets=RELEASED,
        cards=[path.removesuffix(".parquet") + ".card.md" for path in RELEASED],
        reviews=RELEASE_REVIEWS,
    output:
        directory("data/release"),
    params:
        config=lambda w: config_json(
            datasets=config["datasets"],
            release=config["release"],
            review={"targets": config["review"]["targets"]},
            **{family: {"tests": config[family]["tests"]} for family in FAMILIES},
        ),
        reviews=lambda w, input: ["--reviews", *input.reviews] if input.reviews else [],
    threads: 1
    conda:
        CONDA_ENV
    log:
        "logs/release.log",
    shell:
        "nlistress release {input.sets:q} -o {output:q} {params.reviews:q} --set-json {params.config:q} --threads {threads:q} 2>&1 | tee {log:q}"
