"""What a study knows of its run files beside their rankings: the comment lines at their tops, and
how much of them is still to read. Plain functions over a study and entries of
:data:`rankviz.study.questions.QUESTIONS`."""

from __future__ import annotations

from rankviz.evaluation.engines import file_size
from rankviz.study.question import Question, Reads
from rankviz.study.study import Study


def run_headers(study: Study) -> dict[str, tuple[str, ...]]:
    """Each run file's comment lines at its top (an ``ir_metadata`` block, a note), by run
    name: the files opened, else the collection's of those names; none for a run given as an
    object (:mod:`rankviz.io.run_header`)."""
    from rankviz.io.run_header import header_comments

    collection = study.collection
    paths = {name: str(p) for name, p in (collection.run_paths if collection else {}).items()}
    paths |= {s.name: s.path for s in study.sources}
    found = {name: header_comments(paths[name]) for name in study.run_names if name in paths}
    return {name: lines for name, lines in found.items() if lines}


def bytes_to_read(study: Study) -> int:
    """The size of the run files not read yet (a progress bar's total)."""
    if "runs" in study.__dict__:  # read already
        return 0
    return sum(file_size(source.path) for source in study.sources)


RUN_HEADERS = Question(run_headers, Reads.VALUES)
BYTES_TO_READ = Question(bytes_to_read, Reads.VALUES)
