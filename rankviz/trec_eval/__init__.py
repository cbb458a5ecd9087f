"""trec_eval 10's command line and output, for ``rankviz trec-eval``: its measures by its names,
computed by rankviz's families where they are the same numbers, and step for step from its C source
where they are its own (:mod:`~rankviz.trec_eval.measures`, :mod:`~rankviz.trec_eval.gains`)."""
