"""trec_eval 10's command line and output, for ``rankviz trec-eval``: a printer over the catalogue.
Each name it prints is a family of :mod:`rankviz.measures` (:mod:`~rankviz.trec_eval.names`); what
is its own is trec_eval's reading of parameters and its text
(:mod:`~rankviz.trec_eval.trec_eval_text`)."""
