"""Command line: ``rankviz evaluate|compare|ties|metrics-report QRELS RUN [RUN ...] -m MEASURE ...``
and
``rankviz measures``. QRELS may be a collection folder: its runs (unless RUNs are named), measures,
relevance threshold and gmax are then the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankviz.cli.parser import build_parser


def main(argv: Sequence[str] | None = None) -> int:
    from rankviz._arrow import prefer_jemalloc
    from rankviz._memory import reuse_freed_memory
    from rankviz.cli.commands import run

    reuse_freed_memory()
    prefer_jemalloc()
    return run(build_parser().parse_args(argv))


__all__ = ["build_parser", "main"]
