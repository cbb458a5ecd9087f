"""What a study's query groups and weights say of its queries: each query's group under
``group_by``, and what they leave out of the judged queries or give extra (said when a study
opens). :class:`QueryGrouping` is mixed into :class:`~rankviz.study.run_study.Study`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rankviz.io.groups import coverage, group_of
from rankviz.study.reports import Asked

if TYPE_CHECKING:
    import pandas as pd


class QueryGrouping:
    """The study's queries by group (mixed into :class:`~rankviz.study.run_study.Study`)."""

    def coverage_notes(self: Asked) -> list[str]:
        """What the groups file (under ``group_by``) and the weights leave out of the judged
        queries, or give extra."""
        notes = []
        if self.settings.group_by is not None and self.groups is not None:
            notes += coverage(self.groups.frame.index, self.qrels.query_ids).messages(
                self.groups.source
            )
        if self.weights is not None and self.settings.aggregate == "weights":
            notes += coverage(list(self.weights), self.qrels.query_ids).messages("the weights file")
        return notes

    def group_of(self: Asked, qids: Sequence[str]) -> pd.Series | None:
        """Each query's group under the settings' ``group_by`` (None without grouping)."""
        if self.settings.group_by is None or self.groups is None:
            return None
        return group_of(self.groups, self.settings.group_by, qids)
