"""Paper mode: the test sets built the way the authors' released code built them.

The default generators (``nlistress.perturb``, ``nlistress.permutations``) are the
high-precision constructions. The generators here reproduce, step for step,
what the public code of the papers did, so that a number computed on them is
like for like with the paper's:

- ``tautology_authors``: Naik et al.'s ``make_distraction_adv_samples_jsonl.py``;
- ``antonymy_authors``: Naik et al.'s ``make_antonym_adv_samples.py``;
- ``numerical_authors``: Naik et al.'s ``gen_num_test.py``, ``quant_ner.py`` and
  ``quant_example_gen.py``;
- ``spelling_authors``: Naik et al.'s ``make_grammar_adv_samples_jsonl.py``;
- ``permute_authors``: Sinha et al.'s ``codes/word_randomization.py`` with the
  evaluation filter of ``codes/random_eval.py`` and ``config.yaml``.

Each module's docstring describes the original's behaviour in our words and
lists where paper mode must stand in for something the original had (the
official files' binary parses, Stanford CoreNLP, unseeded randomness).
``profiles/paper/params.yaml`` switches every test to these generators.
"""
