"""Word-pair swap sets of Sanchez, Mitchell & Riedel (2018), *Behavior Analysis of NLI Models*.

Control sets hold examples whose premise and hypothesis contain a lexicon pair
(antonyms, or a hyponym/hypernym pair); the transformation T swaps the two
words, and the ex-situ sets copy one sentence's context into both positions so
that premise and hypothesis differ only at the pair. Every row carries the
factors of the paper (polarity, unseen, gold-label-changed); see ``schema``.
"""
