"""ndeval's diversity evaluation, for ``rankviz ndeval`` and the Python API: diversity qrels
(:mod:`rankviz.io.subtopics`), its measures of a topic (:mod:`~rankviz.ndeval.measures`), and its
evaluation of a run and CSV text (:mod:`~rankviz.ndeval.report`)."""
