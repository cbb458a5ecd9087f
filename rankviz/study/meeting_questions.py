"""What the meeting decided (:mod:`rankviz.analyses.meeting_report`): every run's numbers with the
meeting's judgments and with the qrels file alone, and each query the meeting touched. A plain
function over two studies of the same runs and an entry of
:data:`rankviz.study.questions.QUESTIONS`."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from rankviz.errors import OptionError
from rankviz.io.meeting import MeetingStore
from rankviz.ranking.regrading import Keeping, differing_queries
from rankviz.settings.significance_settings import TestSettings
from rankviz.study.question import Question, Reads
from rankviz.study.study import Study
from rankviz.study.value_questions import compare

if TYPE_CHECKING:
    from rankviz.analyses.meeting_report import MeetingReport


def meeting_report(
    study: Study,
    store: MeetingStore,
    *,
    file_study: Study,
    test: TestSettings | None = None,
    k: int = 10,
    pair: tuple[str, str] | None = None,
) -> MeetingReport:
    """What the meeting decided: ``study`` has the meeting's judgments in force, ``file_study``
    the same runs with the qrels file alone; ``pair``: the baseline and the run the meeting
    discussed (its rankings, verdicts and ranks in the report), by default the test's baseline
    (the first run) and the next run."""
    from rankviz.analyses.meeting_report import (
        MeetingReport,
        discussed_query,
        means_with_verdicts,
    )

    names = study.run_names
    if len(names) < 2:
        raise OptionError("the meeting's report compares two runs: give at least two")
    test = test or study.test_settings()
    if pair is not None:
        unknown = [n for n in pair if n not in names]
        if unknown or pair[0] == pair[1]:
            raise OptionError(
                f"the meeting's pair is two of the runs ({', '.join(names)}), not {pair}"
            )
        test = dataclasses.replace(test, baseline=pair[0])
    baseline = test.baseline or names[0]
    run = pair[1] if pair is not None else next(n for n in names if n != baseline)
    judged = store.latest_judgments()
    # every run read and ranked once, re-graded for the file's qrels where the two differ
    changed = differing_queries(file_study.qrels, study.qrels)
    keeping = Keeping(study.orderer, names, changed=changed)
    meeting = study.sharing(keeping)
    file_study = file_study.sharing(keeping, runs=meeting.runs)
    after, before = meeting.evaluation(), file_study.evaluation()
    means = means_with_verdicts(
        before,
        after,
        compare(file_study, test, evaluation=before),
        compare(meeting, test, evaluation=after),
    )
    tags, notes = store.tags(), store.notes()
    touched = sorted({q for q, _ in judged} | set(tags) | set(notes))
    frame = file_study.qrels.to_frame()
    file_grades = dict(
        zip(
            zip(frame["qid"].astype(str), frame["docid"].astype(str)),
            map(int, frame["rel"]),
            strict=True,
        )
    )
    tables = meeting.tables([baseline, run])
    texts = study.collection.queries if study.collection else {}
    docs = study.collection.docs if study.collection else None

    def titles(docids: list[str]) -> dict[str, str]:
        found = docs.get(docids) if docs is not None else {}
        return {d: r.get("title") or r.get("text", "")[:160] for d, r in found.items()}

    queries = [
        discussed_query(
            qid,
            texts.get(qid, ""),
            tables,
            baseline,
            run,
            k=k,
            file_grades=file_grades,
            judged=judged,
            titles=titles,
            tags=tags.get(qid, []),
            note=notes.get(qid, ""),
            history=store.history(qid),
        )
        for qid in touched
    ]
    name = study.collection.config.name if study.collection else str(study.qrels.source)
    return MeetingReport(
        name,
        tuple(study.conventions()),
        baseline,
        run,
        means,
        tuple(queries),
        len(judged),
        store.provenance(),
        store.lock_state(),
    )


MEETING_REPORT = Question(meeting_report, Reads.RANKINGS)
