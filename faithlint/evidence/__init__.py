"""Evidence for a unit: the context index, pieces and windows, relevance ranking, selectors, grounding."""
