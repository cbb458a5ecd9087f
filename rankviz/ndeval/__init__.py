"""``rankviz ndeval``'s options and text (:mod:`~rankviz.ndeval.report`): the values are the
diversity family's (:mod:`rankviz.measures.diversity`)."""
