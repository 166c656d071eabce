"""Statistics of the word-pair swap experiments (Sanchez, Mitchell & Riedel 2018).

From a model's predictions on a control swap set and on its transformed set:
McNemar's test (control vs transformed accuracy), chi-square tests of
independence (insensitivity; polarity x prediction) and homogeneity (seen vs
unseen pairs) with Yates' correction or Fisher's exact test on small 2x2
tables, a Bonferroni correction across each model's family of tests, the
contingency tables and the paper's Table 1 (``nlistress stats``).
"""
