"""Prompt templates for language models: how an NLI pair is asked, and how the answer is read.

A prompted model's accuracy depends on the wording, so a template is a named,
versioned object and every report records the name, version and a sha256 of
its text: two numbers are comparable only when those agree. A template holds
the instruction, the layout of one pair, the words that answer for each label
(``verbalisers``) and how few-shot examples are laid out.

The answer is read in one of two ways, both from the same template:

* by likelihood (``llm:`` models): each label's verbaliser is scored as the
  continuation of the prompt and the label probabilities are the softmax of
  those log-likelihoods, so every row gets an answer and no parsing is needed;
* by parsing a generated answer (``openai:`` endpoints, or ``llm:`` with
  ``answer: generate``): the first word of the reply that is a verbaliser or a
  label name decides; a reply with none is *unanswered*, counted and left out,
  never guessed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import ConfigError
from ..labels import LABELS

_WORD = re.compile(r"[a-z_]+")


@dataclass(frozen=True)
class PromptTemplate:
    """One way of asking for an NLI label; ``version`` changes whenever the text does."""

    name: str
    version: str
    instruction: str
    pair: str  # with {premise} and {hypothesis}; ends where the answer starts
    verbalisers: Mapping[str, str]  # label -> the answer word(s), with their leading space

    def render(self, premise: str, hypothesis: str, shots: Sequence[tuple[str, str, str]] = ()) -> str:
        """The prompt for one pair, after ``shots`` answered examples (premise, hypothesis, label)."""
        parts = [self.instruction]
        for p, h, label in shots:
            parts.append(self.pair.format(premise=p, hypothesis=h) + self.verbalisers[label])
        parts.append(self.pair.format(premise=premise, hypothesis=hypothesis))
        return "\n\n".join(parts)

    def parse(self, answer: str) -> str | None:
        """The label a generated ``answer`` gives, or None when no word of it names one."""
        names = {v.strip().lower(): label for label, v in self.verbalisers.items()}
        names.update({label: label for label in self.verbalisers})
        for word in _WORD.findall(answer.lower()):
            if word in names:
                return names[word]
        return None

    @property
    def sha256(self) -> str:
        """A digest of everything that shapes the prompt and the answer (for caches and reports)."""
        text = json.dumps([self.name, self.version, self.instruction, self.pair, dict(self.verbalisers)])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def describe(self) -> dict[str, object]:
        """What a report records of the template."""
        return {"name": self.name, "version": self.version, "sha256": self.sha256,
                "instruction": self.instruction, "pair": self.pair,
                "verbalisers": dict(self.verbalisers)}  # fmt: skip


TEMPLATES: dict[str, PromptTemplate] = {
    template.name: template
    for template in (
        PromptTemplate(
            name="yes_maybe_no",
            version="1",
            instruction="Decide whether the premise entails the hypothesis. Answer yes (it must be "
            "true), maybe (it could be true) or no (it cannot be true).",
            pair="Premise: {premise}\nHypothesis: {hypothesis}\nAnswer:",
            verbalisers={"entailment": " yes", "neutral": " maybe", "contradiction": " no"},
        ),
        PromptTemplate(
            name="label_names",
            version="1",
            instruction="Classify the relation between the premise and the hypothesis as "
            "entailment, neutral or contradiction.",
            pair="Premise: {premise}\nHypothesis: {hypothesis}\nRelation:",
            verbalisers={"entailment": " entailment", "neutral": " neutral", "contradiction": " contradiction"},
        ),
    )
}


def template_named(name: object, key: str = "models.llm.template") -> PromptTemplate:
    """The registered template ``name``; a one-line error names the known ones."""
    if not isinstance(name, str) or name not in TEMPLATES:
        raise ConfigError(f"{key}: unknown prompt template {name!r}; known: {', '.join(sorted(TEMPLATES))}")
    template = TEMPLATES[name]
    if sorted(template.verbalisers) != sorted(LABELS):
        raise ConfigError(f"{key}: template {name!r} does not answer for every label {list(LABELS)}")
    return template
