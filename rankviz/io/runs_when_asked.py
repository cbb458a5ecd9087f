"""Runs by name, each opened when asked for: a server lists twenty runs and shows the first
without reading the rest, and no run stays in memory for being listed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from rankviz.io.model import Run


class RunsWhenAsked(Mapping[str, Run]):
    """Runs by name, each opened by its own function when asked for (that function may keep it)."""

    def __init__(self) -> None:
        self._open: dict[str, Callable[[], Run]] = {}

    def add(self, name: str, open_run: Callable[[], Run]) -> None:
        """``name`` opened by ``open_run`` when asked for."""
        self._open[name] = open_run

    def only(self, names: Sequence[str]) -> RunsWhenAsked:
        """These runs alone, in this order, still opened when asked for."""
        view = RunsWhenAsked()
        view._open = {name: self._open[name] for name in names}
        return view

    def __getitem__(self, name: str) -> Run:
        return self._open[name]()

    def __contains__(self, name: object) -> bool:  # without opening the run (Mapping's would)
        return name in self._open

    def __iter__(self) -> Iterator[str]:
        return iter(self._open)

    def __len__(self) -> int:
        return len(self._open)
