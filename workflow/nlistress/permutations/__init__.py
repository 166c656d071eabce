"""Unnatural NLI (Sinha et al. 2021): word-order permutations and permutation-acceptance metrics."""
