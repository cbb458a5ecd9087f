"""Command line: ``rankviz evaluate|compare|ties|metrics-report QRELS RUN [RUN ...] -m MEASURE ...``
and
``rankviz measures``. QRELS may be a collection folder: its runs (unless RUNs are named), measures,
relevance threshold and gmax are then the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankviz.cli.parser import build_parser


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    from rankviz._arrow import prefer_jemalloc
    from rankviz._memory import reuse_freed_memory
    from rankviz.cli.parser import DROP_INS

    reuse_freed_memory()
    prefer_jemalloc()
    given = list(sys.argv[1:] if argv is None else argv)
    if given and given[0] in DROP_INS:  # called once per run by pipelines: only what it uses
        from rankviz.cli import running

        if given[0] == "trec-eval":
            from rankviz.cli.trec_eval import trec_eval_command as command
        else:
            from rankviz.cli.ndeval import ndeval_command as command
        return running.run(command, build_parser(only=given[0]).parse_args(given))
    from rankviz.cli.commands import run

    return run(build_parser().parse_args(given))


__all__ = ["build_parser", "main"]
