"""NLI models: the papers' sentence-encoder and interaction models and fine-tuned transformers.

One registry (``models`` in params.yaml) names each model; ``nlistress train``
writes a model directory, ``nlistress predict`` runs it on any set and
``nlistress score`` turns predictions into the papers' accuracy tables.
"""

#: the model card in every model directory (``nlistress.models.model_card``); a name the
#: report can link without importing torch
MODEL_CARD = "README.md"
