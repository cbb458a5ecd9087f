"""What a study knows of its run files beside their rankings: the comment lines at their tops, and
how much of them is still to read (mixed into :class:`~rankviz.study.run_study.Study`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rankviz.evaluation.engines import file_size

if TYPE_CHECKING:
    from rankviz.evaluation.pieces import RunSource
    from rankviz.io.collection import Collection


class _Files(Protocol):
    """What of a study its run files are known from."""

    @property
    def collection(self) -> Collection | None: ...

    @property
    def sources(self) -> tuple[RunSource, ...]: ...

    @property
    def run_names(self) -> list[str]: ...


class RunFiles:
    """A study's run files (mixed into :class:`~rankviz.study.run_study.Study`)."""

    def run_headers(self: _Files) -> dict[str, tuple[str, ...]]:
        """Each run file's comment lines at its top (an ``ir_metadata`` block, a note), by run
        name: the files opened, else the collection's of those names; none for a run given as an
        object (:mod:`rankviz.io.run_header`)."""
        from rankviz.io.run_header import header_comments

        paths = {
            name: str(p)
            for name, p in (self.collection.run_paths if self.collection else {}).items()
        }
        paths |= {s.name: s.path for s in self.sources}
        found = {name: header_comments(paths[name]) for name in self.run_names if name in paths}
        return {name: lines for name, lines in found.items() if lines}

    def bytes_to_read(self: _Files) -> int:
        """The size of the run files not read yet (a progress bar's total)."""
        return (
            0 if "runs" in self.__dict__ else sum(file_size(source.path) for source in self.sources)
        )
