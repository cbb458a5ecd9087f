"""The one way a front end opens a study: a request (:class:`~rankviz.study.request.StudyRequest`)
opens a study of runs and qrels, or of per-query scores alone when its first input holds scores
(a file of them, or a collection folder of them with no runs)."""

from __future__ import annotations

from rankviz.io.collection import Collection
from rankviz.io.model import Qrels
from rankviz.io.score_forms import is_scores
from rankviz.study.request import StudyRequest
from rankviz.study.run_study import Study
from rankviz.study.scores_study import ScoresStudy, scores_folder


def open_study(request: StudyRequest) -> Study:
    """The study ``request`` names, what opening found worth saying in its ``notes``.

    Parameters
    ----------
    request
        The inputs, as given.

    Returns
    -------
    A :class:`~rankviz.study.run_study.Study` of runs and qrels, or a
    :class:`~rankviz.study.scores_study.ScoresStudy` when the first input holds scores.
    """
    qrels = request.qrels
    if isinstance(qrels, Qrels):  # read already: qrels, never scores
        return Study.open(request)
    if scores_folder(qrels) is None and (isinstance(qrels, Collection) or not is_scores(qrels)):
        return Study.open(request)
    return ScoresStudy.of_request(request)
