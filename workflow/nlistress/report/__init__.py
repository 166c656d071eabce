"""The reproduction report: each paper's printed numbers beside ours.

``papers/<paper>.yaml`` holds what the four papers print, table by table, with
link fields naming the result of ours that corresponds to each cell
(``papers.py`` reads and checks them); ``ours.py`` looks those results up in
``results/`` and ``data/``, or says why there is none; ``render.py`` writes
``results/REPORT.md``, ``results/report.csv`` and each comparable table in the
paper's layout with our numbers.
"""
