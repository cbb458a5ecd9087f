"""Command line: ``rankviz evaluate|compare|ties|metrics-report QRELS RUN [RUN ...] -m MEASURE ...``
and
``rankviz measures``. QRELS may be a collection folder: its runs (unless RUNs are named), measures,
relevance threshold and gmax are then the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankviz.cli.parser import build_parser


def main(argv: Sequence[str] | None = None) -> int:
    import os
    import sys

    from rankviz.cli.parser import DROP_INS

    given = list(sys.argv[1:] if argv is None else argv)
    drop_in = bool(given) and given[0] in DROP_INS
    if drop_in:  # before numpy loads: its BLAS's threads spin at start, 0.1 CPU-s a call
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

    from rankviz._arrow import one_core, prefer_jemalloc
    from rankviz._memory import reuse_freed_memory

    reuse_freed_memory()
    prefer_jemalloc()
    if drop_in:  # called once per run by pipelines: only what it uses
        from rankviz.cli import running

        one_core()  # as the C programs run: pipelines run them side by side

        if given[0] == "trec-eval":
            from rankviz.cli.trec_eval import trec_eval_command as command
        else:
            from rankviz.cli.ndeval import ndeval_command as command
        return running.run(command, build_parser(only=given[0]).parse_args(given))
    from rankviz.cli.commands import run

    return run(build_parser().parse_args(given))


__all__ = ["build_parser", "main"]
