"""Annotation artifacts (Poliak et al. 2018): give-away words, hypothesis-only baselines, audits.

A test set whose labels can be guessed from the hypothesis alone measures an
artifact of how it was written or generated, not inference. This package
reproduces the paper's word statistics (section 6, Figures 6 and 13) and
majority / hypothesis-only tables (Tables 2 and 3) for any canonical split,
and audits every generated set so its dataset card can say how guessable it is.
"""
