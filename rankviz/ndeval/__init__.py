"""``rankviz ndeval``'s options and text (:mod:`~rankviz.ndeval.ndeval_text`): the values are the
diversity family's (:mod:`rankviz.measures.diversity`)."""
