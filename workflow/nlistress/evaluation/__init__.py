"""``nlistress evaluate``: one model, every built set, every paper's metrics, one report."""
