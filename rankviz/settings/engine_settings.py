"""Where an evaluation runs (:mod:`rankviz.evaluation.engines`): its options, and the frozen
settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankviz.errors import OptionError
from rankviz.settings.options import Option, Settings

# where an evaluation runs (rankviz.evaluation.engines)
ENGINE = Option(
    "engine",
    "auto",
    "where the evaluation runs",
    label="Engine",
    choices=("auto", "memory", "stream", "dask"),
    meanings={
        "auto": "in memory; streaming for a run file over 1 GB (a .gz one over 256 MB)",
        "memory": "every run read whole",
        "stream": "pieces of whole queries, one at a time: memory bounded whatever the run's size",
        "dask": "pieces of whole queries on a dask.distributed cluster",
    },
)


BLOCK_QUERIES = Option(
    "block_queries",
    None,
    "queries per block of the stream and dask engines (none: pieces of about 64 MB of the file)",
    kind=int,
    low=1,
    high=10**9,
    optional=True,
)


SCHEDULER = Option(
    "scheduler",
    None,
    "address of a running Dask scheduler (tcp://host:8786) for engine=dask",
    optional=True,
)


WORKERS = Option(
    "workers",
    None,
    "engine=dask without a scheduler: worker processes of the local cluster it starts (none: 2)",
    kind=int,
    low=1,
    high=1024,
    optional=True,
)


@dataclass(frozen=True)
class EngineSettings(Settings):
    """Where an evaluation runs; the numbers are the same on every engine."""

    engine: str = ENGINE.default
    block_queries: int | None = BLOCK_QUERIES.default
    scheduler: str | None = SCHEDULER.default
    workers: int | None = WORKERS.default

    OPTIONS: ClassVar[dict[str, Option]] = {
        o.name: o for o in (ENGINE, BLOCK_QUERIES, SCHEDULER, WORKERS)
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.engine != "dask" and (self.scheduler is not None or self.workers is not None):
            raise OptionError("scheduler and workers are options of engine=dask")
        if self.scheduler is not None and self.workers is not None:
            raise OptionError("give a scheduler or a number of workers, not both")
