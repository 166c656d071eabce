"""The model card: ``README.md`` next to a trained model's weights.

``nlistress train`` writes it last into every model directory, encoders and
transformers alike, from what the directory already holds (``config.json``,
``metrics.json`` and the files themselves), so the card can never say something
the model folder does not. Named ``README.md`` as the release's dataset card is:
the folder uploaded to the Hugging Face Hub shows it as the model card, and its
YAML header carries the Hub's tags.

It says what the model is (architecture and the paper it follows, what it
reads), the data it saw (each file with its sha256 and rows, the training
variant, the rows kept and dropped), every resolved hyper-parameter, the
per-epoch training loss and dev accuracy/loss with the epoch whose weights were
kept, the label order of the classifier's outputs, and every file of the model
with its size and sha256.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..atomic import sha256_file, write_text_atomic
from ..dataset_card import front_matter
from ..tables import markdown_table
from . import MODEL_CARD
from .encoders import ARCHS
from .weights import LABELS_METADATA

#: what each training variant adds to the train split
VARIANTS = {
    "plain": "the train split alone",
    "negation": "the train split plus a negation-distraction twin of every example (Naik et al. 2018, "
    "section 4.6: `and false is not true` appended to the hypothesis)",
    "permute": "the train split plus word-order permuted copies of its examples, with their labels "
    "(Sinha et al. 2021)",
    "max_entropy": "the train split plus word-order permuted copies of its examples, trained towards "
    "the uniform prediction (Sinha et al. 2021, equation 5)",
}


def _flat(settings: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(key path, value as JSON)`` of every setting, nested mappings as ``a.b``."""
    for key in sorted(settings):
        value = settings[key]
        if isinstance(value, Mapping) and value:
            yield from _flat(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", json.dumps(value, ensure_ascii=False)


def _architecture(config: Mapping[str, Any]) -> list[str]:
    arch, settings = str(config["arch"]), config["settings"]
    if config["kind"] == "transformer":
        revision = settings.get("revision")
        return [
            f"- **Architecture:** `transformer`: the Hugging Face checkpoint `{settings.get('checkpoint')}`"
            + (f" (revision `{revision}`)" if revision else "")
            + f" fine-tuned as a cross-encoder of premise and hypothesis, head `{settings.get('head', 'new')}`.",
            "- **Paper:** see the checkpoint's own model card.",
        ]
    if config["kind"] == "align":
        return ["- **Architecture:** `align`: a bag-of-words alignment baseline: each hypothesis word "
                "aligned to its most similar premise word (Levenshtein similarity), words weighed by "
                "their POS tag, alignment features into a small classifier (see `features.json`).",
                "- **Paper:** Naik et al. (2018), section 4.1, after MacCartney (2009)."]  # fmt: skip
    entry = ARCHS[arch]
    ensemble = int(settings.get("ensemble", 1))
    members = f" An ensemble of {ensemble} such models (mean of their probabilities)." if ensemble > 1 else ""
    return [f"- **Architecture:** `{arch}`: {entry.summary}.{members}", f"- **Paper:** {entry.paper}."]


def _data(config: Mapping[str, Any]) -> list[str]:
    train, variant = config["train"], str(config["variant"])
    files = [[role, f"`{entry['path']}`", entry.get("rows"), f"`{entry['sha256']}`"]
             for role, entry in train["inputs"].items()]  # fmt: skip
    rows = train["rows"]
    dropped = "; ".join(f"{reason}: {n:,}" for reason, n in sorted(rows.get("dropped", {}).items())) or "none"
    return [
        "## Training data",
        "",
        f"Training variant `{variant}`: {VARIANTS.get(variant, variant)}.",
        "",
        markdown_table(["role", "file", "rows", "sha256"], files, align="llrl").rstrip("\n"),
        "",
        f"Rows read {rows['input']:,}, trained on {rows['kept']:,}; dropped: {dropped}.",
        "",
    ]


def _curve(config: Mapping[str, Any], metrics: list[Mapping[str, Any]]) -> list[str]:
    kept = config["train"].get("weights_epoch")
    columns = [c for c in ("train_loss", "dev_accuracy", "dev_loss", "lr") if any(c in m for m in metrics)]
    rows = []
    for m in metrics:
        epoch = int(m["epoch"])
        cells = [f"{m[c]:.3g}" if c == "lr" else m.get(c) for c in columns]
        rows.append([f"{epoch}{' (kept)' if epoch == kept else ''}", *cells])
    dev = "dev_accuracy" in columns
    if config["kind"] == "transformer":
        rule = "the last epoch's weights are kept"
    elif dev:
        rule = "the weights of the epoch with the best dev accuracy are kept"
    else:
        rule = "without a dev split, the weights of the epoch with the lowest training loss are kept"
    header = ["epoch", *(c.replace("_", " ") for c in columns)]
    table = markdown_table(header, rows, digits=4, align="l" + "r" * len(columns))
    return [
        "## Dev curve",
        "",
        table.rstrip("\n"),
        "",
        f"Per epoch, from `metrics.json`; {rule}"
        + ("" if dev else " (no dev split was given)")
        + ".",
        "",
    ]


def _files(model_dir: Path) -> list[str]:
    paths = sorted(p for p in model_dir.rglob("*") if p.is_file() and p != model_dir / MODEL_CARD)
    rows = [[f"`{p.relative_to(model_dir).as_posix()}`", p.stat().st_size, f"`{sha256_file(p)}`"] for p in paths]
    return ["## Files", "", markdown_table(["file", "bytes", "sha256"], rows, align="lrl").rstrip("\n"), ""]


def model_card(model_dir: Path) -> str:
    """The card of the model in ``model_dir`` (its config.json, metrics.json and files)."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    metrics = json.loads((model_dir / "metrics.json").read_text(encoding="utf-8"))
    labels = ", ".join(f"{i} `{label}`" for i, label in enumerate(config["labels"]))
    where = ("`hf/config.json` (`id2label`)" if config["kind"] == "transformer"
             else f"the `{LABELS_METADATA}` metadata of `model.safetensors`")  # fmt: skip
    reads = "the hypothesis only (Poliak et al. 2018)" if config["hypothesis_only"] else "premise and hypothesis"
    header = {"tags": ["natural-language-inference", "nlistress", str(config["arch"])],
              "pipeline_tag": "text-classification"}  # fmt: skip
    lines = [
        f"# Model card: `{config['name']}` (training variant `{config['variant']}`)",
        "",
        *_architecture(config),
        f"- **Reads:** {reads}.",
        f"- **Labels, in the order of the classifier's outputs:** {labels}. The order is also recorded "
        f"in {where}; loading refuses a config.json that lists another.",
        f"- **Trained by:** nlistress {config.get('nlistress_version', '?')} (`nlistress train`), seed "
        f"{config['seed']}.",
        "",
        *_data(config),
        "## Hyper-parameters",
        "",
        "The resolved settings: `models.training` and `models.text` with the zoo entry "
        f"`models.zoo.{config['name']}` over them.",
        "",
        markdown_table(["setting", "value"], [[k, f"`{v}`"] for k, v in _flat(config["settings"])]).rstrip("\n"),
        "",
        *_curve(config, metrics),
        *_files(model_dir),
    ]
    return front_matter(header) + "\n".join(lines)


def write_model_card(model_dir: Path) -> Path:
    """Write ``model_dir/README.md``; return its path."""
    path = model_dir / MODEL_CARD
    write_text_atomic(path, model_card(model_dir))
    return path
