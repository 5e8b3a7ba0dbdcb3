"""tau-bench (airline, retail)."""
