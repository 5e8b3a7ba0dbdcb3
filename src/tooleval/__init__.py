"""tooleval."""
