"""The meeting's record from the command line: judgments, tags and the meeting's report."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankviz.cli import tables
from rankviz.cli.study_args import study_of_args, test_settings, warn
from rankviz.errors import OptionError
from rankviz.settings.numbers import to_json
from rankviz.study import MEETING_REPORT, QUERIES_TO_JUDGE, MeetingStore, record


def judgments_command(args: argparse.Namespace) -> str:
    """``judgments add|import|undo|export|lock|unlock``: the log and the grades in force (TREC
    lines or TSV), or the record changed."""
    if args.action == "sample":
        return _sample(args)
    if args.action == "export":
        store = MeetingStore(args.db, create=False)
        if args.format != "tsv":
            return record.export(store, qrels=args.qrels)
        if args.qrels is not None:
            raise OptionError(
                "judgments export --format tsv writes the log; --qrels goes with --format qrels"
            )
        return tables.tsv_rows(record.LOG_COLUMNS, record.log_rows(store))
    if args.action in ("lock", "unlock"):
        lock = record.lock(args.db, args.action == "lock", by=args.by)
        state = "locked: every entry is refused until it is unlocked" if lock.locked else "unlocked"
        warn(f"{args_path(args)}: the meeting is {state} (by {lock.by})")
        return ""
    if args.action == "undo":
        undone, what = record.undo_last_import(args.db, by=args.by)
        warn(f"{args_path(args)}: {what} undone: {len(undone):,} judgments taken back")
        return ""
    if args.action == "add":
        done, was = record.judge(
            args.db,
            args.qid,
            args.docid,
            args.grade,
            by=args.by,
            note=args.note,
            collection=args.collection,
        )
        warn(f"{args_path(args)}: {done.qid} {done.docid} judged {done.grade} by {done.by} ({was})")
    else:
        imported, by = record.import_file(
            args.db, args.file, by=args.by, source=args.source, collection=args.collection
        )
        warn(f"{args_path(args)}: {len(imported):,} judgments of {args.file} recorded by {by}")
    return ""


def _sample(args: argparse.Namespace) -> str:
    """``judgments sample DIR``: the queries drawn (qid and chance to be drawn), kept in the
    collection folder's record."""
    if not Path(args.qrels).is_dir():
        raise OptionError(f"judgments sample {args.qrels}: give a collection folder")
    study = study_of_args(args)
    draw = study.ask(
        QUERIES_TO_JUDGE,
        args.queries,
        seed=args.seed,
        by=args.by,
        measure=study.measures[0] if study.measures else None,
    )
    kept = record.record_draw(args.qrels, draw, by=args.drawn_by)
    warn(f"{kept}: {draw.said()}, kept; judge them first (--correct-with then weights them)")
    rows = [(qid, chance) for qid, chance in draw.probabilities.items()]
    if args.format == "json":
        return to_json([{"qid": q, "probability": p} for q, p in rows])
    return tables.tsv_rows(("qid", "probability"), rows)


def args_path(args: argparse.Namespace) -> Path:
    """The record's file the command wrote (a collection folder's own record)."""
    return record.record_file(args.db)


def tags_command(args: argparse.Namespace) -> str:
    """``tags add|export``: the export is a groups file (qid, tag), so ``--groups`` reads it."""
    if args.action == "export":
        groups = MeetingStore(args.db, create=False).tag_groups()
        return tables.tsv_rows(("qid", "tag"), list(groups.items()))
    owner, scale, _ = record.owner(args.db, args.collection)
    store = MeetingStore(args.db, scale=scale, collection=owner)
    record.Writer(store, args.by, record.COMMAND_LINE).tag(args.qid, args.tag)
    warn(f"{store.path}: {args.qid} tagged {args.tag.strip()!r} by {args.by}")
    return ""


def report_command(args: argparse.Namespace) -> str:
    """``report``: what the meeting decided, as one HTML page (or JSON)."""
    from rankviz.plots import export

    meeting = study_of_args(args)
    if meeting.record is None:
        raise OptionError(
            "report needs the meeting's record: a collection folder, or --judgments DB"
        )
    plain = argparse.Namespace(**{**vars(args), "judgments": None, "qrels_in_force": None})
    report = meeting.ask(
        MEETING_REPORT,
        meeting.record,
        file_study=study_of_args(plain, quiet=True),
        test=test_settings(args, meeting),
    )
    text = export.meeting_html(report) if args.format == "html" else to_json(report.to_dict())
    if args.output is None:
        return text
    target = Path(args.output).resolve()
    record = meeting.record.path.resolve()
    inputs = {
        Path(args.qrels).resolve(),
        record,
        Path(f"{record}-wal"),
        Path(f"{record}-shm"),
        *(Path(s.path).resolve() for s in meeting.sources),
    }
    if meeting.collection is not None:
        if meeting.collection.qrels_path is not None:
            inputs.add(meeting.collection.qrels_path.resolve())
        if target.parent == (meeting.collection.path / "runs").resolve():
            raise OptionError(
                f"-o {args.output}: inside the collection's runs folder, it would become a run"
            )
    if target in inputs or target.is_dir():
        raise OptionError(f"-o {args.output}: an input of the report or a folder; give a new file")
    target.write_text(text, encoding="utf-8")
    warn(f"the meeting's report ({len(report.queries)} queries discussed) written to {args.output}")
    return ""
