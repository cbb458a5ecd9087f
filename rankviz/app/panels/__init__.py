"""Parts of pages that more than one page draws, or that a page draws beside its own (the deltas'
views, the meeting's panel, ANOVA, documents, scores)."""
