"""The app's passes on a Dask cluster (``rankviz app --scheduler ADDRESS``): a server of a team
hands the reading and evaluating of a hundred runs to the cluster the command line's
``--engine dask`` uses, and keeps what comes back as it keeps its own passes."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import streamlit as st

from rankviz.remote_pass import connect, pass_of_file, travelling
from rankviz.run_pass import RunPass
from rankviz.study import Study

_CLIENTS: dict[str, Any] = {}
_CONNECTING = threading.Lock()


def client(address: str):
    """One client of the scheduler for the server (Dask's clients are safe across threads), made
    again when the one kept has closed (a restarted scheduler)."""
    with _CONNECTING:
        kept = _CLIENTS.get(address)
        if kept is None or kept.status != "running":
            with st.spinner("Connecting to the Dask scheduler…"):
                kept = _CLIENTS[address] = connect(address)
        return kept


def taker(
    address: str, study: Study, paths: Mapping[str, Path], k: int, facts_k: int | None
) -> tuple[Callable[[str], RunPass], int]:
    """A function taking a run's pass on the cluster (the study and the file's path go to a worker,
    which reads the file), and how many runs to hand it at once: two per worker."""
    connected = client(address)
    sent = travelling(study)

    def take(name: str) -> RunPass:
        future = connected.submit(
            pass_of_file, sent, name, str(paths[name]), k=k, facts_k=facts_k, pure=False
        )
        return future.result()

    workers = len(connected.scheduler_info().get("workers", {}))
    return take, max(2, 2 * workers)
