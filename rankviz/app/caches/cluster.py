"""The app's passes on a Dask cluster (``rankviz app --scheduler ADDRESS``): a server of a team
hands the reading and evaluating of a hundred runs to the cluster the command line's
``--engine dask`` uses, and keeps what comes back as it keeps its own passes."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rankviz.study import Study
from rankviz.study.remote_pass import connect, pass_of_file, travelling
from rankviz.study.run_pass import RunPass

_CLIENTS: dict[str, Any] = {}
_CONNECTING = threading.Lock()


def client(address: str):
    """One client of the scheduler for the server (Dask's clients are safe across threads), made
    again when the one kept has closed (a restarted scheduler)."""
    with _CONNECTING:
        kept = _CLIENTS.get(address)
        if kept is None or kept.status != "running":
            kept = _CLIENTS[address] = connect(address)
        return kept


def taker(
    address: str, study: Study, paths: Mapping[str, Path], k: int, facts_k: int | None
) -> tuple[Callable[[str], RunPass], Callable[[], int]]:
    """A function taking a run's pass on the cluster (the study and the file's path go to a worker,
    which reads the file), and one saying how many runs to hand it at once (two per worker). The
    scheduler is reached only when a pass is missing: passes kept in memory or on disk need none."""
    sent = travelling(study)

    def take(name: str) -> RunPass:
        future = client(address).submit(
            pass_of_file, sent, name, str(paths[name]), k=k, facts_k=facts_k, pure=False
        )
        return future.result()

    def at_once() -> int:
        return max(2, 2 * len(client(address).scheduler_info().get("workers", {})))

    return take, at_once
