"""What a study can answer. A question that reads the runs' rankings is marked
:func:`needs_rankings`: a study without rankings (per-query scores alone, whose ``ranked`` is False)
refuses it in one line before it starts, and :func:`rankings_needed` lists a study class's marked
questions. The mark is the declaration, as a page's ``needs_rankings`` is the app's: no study
overrides a question to refuse it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

from rankviz.errors import OptionError

P = ParamSpec("P")
R = TypeVar("R")
_MARK = "needs_rankings"


def needs_rankings(question: Callable[P, R]) -> Callable[P, R]:
    """``question`` (a study's method) as one that reads the runs' rankings: asked of a study
    without them, its :meth:`~rankviz.study.run_study.Study.without_rankings` is raised."""

    @functools.wraps(question)
    def asked(*args: P.args, **kwargs: P.kwargs) -> R:
        study = cast(Any, args[0])
        if not study.ranked:
            raise study.without_rankings()
        return question(*args, **kwargs)

    setattr(asked, _MARK, True)
    return asked


def rankings_needed(study_class: type) -> frozenset[str]:
    """The questions of ``study_class`` marked :func:`needs_rankings`."""
    return frozenset(
        name for name in dir(study_class) if getattr(getattr(study_class, name), _MARK, False)
    )


class Rankings:
    """What a study declares of its rankings (mixed into
    :class:`~rankviz.study.run_study.Study`): a study of runs has them; a study of scores alone
    says :attr:`ranked` is False and how it refuses."""

    @property
    def ranked(self) -> bool:
        """Whether its runs' rankings are at hand: what the marked questions read."""
        return True

    def without_rankings(self) -> OptionError:
        """What a marked question raises when :attr:`ranked` is False."""
        return OptionError("this needs the runs' rankings")
