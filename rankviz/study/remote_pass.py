"""A run's pass taken where the run file is read: on a Dask worker, for ``rankviz app --scheduler``.

The study travels without its runs (the app's are opened through its own store and caches, which
stay on the server); the worker reads the file at its path, which the cluster's machines share with
the server, and sends back the pass: a few arrays of per-query values
(:mod:`rankviz.study.run_pass`).
"""

from __future__ import annotations

import dataclasses

from rankviz.evaluation.dask_engine import connected_client
from rankviz.evaluation.pieces import RunSource
from rankviz.ranking.regrading import fresh
from rankviz.study.passes import RUN_PASS
from rankviz.study.run_pass import RunPass
from rankviz.study.study import Study


def travelling(study: Study) -> Study:
    """The study without its runs (and with the orderer that keeps nothing): what a worker gets."""
    return dataclasses.replace(study, runs_given={}, sources=(), orderer=fresh)


def pass_of_file(study: Study, name: str, path: str, *, k: int, facts_k: int | None) -> RunPass:
    """:data:`~rankviz.study.passes.RUN_PASS` of the run file at ``path``, read here."""
    alone = dataclasses.replace(study, runs_given={}, sources=(RunSource(path, name),))
    return alone.ask(RUN_PASS, name, k=k, facts_k=facts_k)


def connect(address: str):
    """A client of the running Dask scheduler at ``address``, or an OptionError in one line (Dask
    missing, or no scheduler answering within seconds)."""
    return connected_client(address)
