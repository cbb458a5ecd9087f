"""The study: the orchestration every front end shares (opening the inputs, the qrels in force,
the reports and questions). Its public face is here: :class:`Study` (runs and qrels) and
:class:`ScoresStudy` (per-query scores), loaded on first use so that a module of this folder
imports without the rest."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankviz.study.run_study import Study
    from rankviz.study.scores_study import ScoresStudy

_FACE = {"Study": "rankviz.study.run_study", "ScoresStudy": "rankviz.study.scores_study"}


def __getattr__(name: str):
    """``Study`` and ``ScoresStudy``, their modules imported on first use (PEP 562)."""
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module 'rankviz.study' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = ["ScoresStudy", "Study"]
