"""The meeting's record from the command line: judgments, tags and the meeting's report."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankviz.cli import render, tables
from rankviz.cli.study_args import open_study, test_settings, warn
from rankviz.errors import OptionError
from rankviz.io.collection import open_collection
from rankviz.io.grades import Scale, checked_grade
from rankviz.io.judges import is_source_label, judgment_lines, merged_qrels, qrels_lines
from rankviz.io.meeting import MeetingStore
from rankviz.io.readers import read_qrels


def judgments_command(args: argparse.Namespace) -> str:
    """``judgments add|import|export``: the log and the grades in force, as TREC lines or TSV."""
    if args.action == "export":
        store = MeetingStore(args.db, create=False)
        if args.format == "tsv":
            if args.qrels is not None:
                raise OptionError(
                    "judgments export --format tsv writes the log; --qrels goes with --format qrels"
                )
            rows = [
                (
                    j.qid,
                    j.docid,
                    j.grade,
                    "" if j.previous is None else j.previous,
                    j.by,
                    j.at,
                    j.note,
                )
                for j in store.judgments()
            ]
            return tables.tsv_rows(
                ("qid", "docid", "grade", "previous_grade", "by", "at", "note"), rows
            )
        if args.qrels is None:
            return judgment_lines(store.latest())
        return qrels_lines(merged_qrels(read_qrels(args.qrels), store.latest()))
    owner, scale, folder = _record_owner(args)
    if args.action == "add":
        # before the record is opened: a refused grade leaves it as it was
        checked_grade(args.grade, scale)
        store = MeetingStore(args.db, scale=scale, collection=owner)
        original = _qrels_grade(folder, args.qid, args.docid) if folder is not None else None
        done = store.judge(
            args.qid, args.docid, args.grade, by=args.by, note=args.note, original=original
        )
        if done.previous is not None:
            was = f"was {done.previous}"
        elif folder is not None:
            was = "unjudged before: neither the qrels nor the meeting graded it"
        else:
            was = (
                f"the meeting had not judged it; give --collection DIR to compare with {owner}'s "
                "qrels"
            )
        warn(f"{store.path}: {done.qid} {done.docid} judged {done.grade} by {done.by} ({was})")
    else:
        qrels = read_qrels(args.file)
        for grade in sorted(set(qrels.grade.tolist())):
            checked_grade(grade, scale)
        store = MeetingStore(args.db, scale=scale, collection=owner)
        if args.source is not None and not is_source_label(args.source):
            raise OptionError(
                f"--source {args.source!r}: a source label is llm:NAME or "
                "human:NAME, e.g. llm:umbrela"
            )
        by, note = (
            (args.source, f"imported by {args.by} from {Path(args.file).name}")
            if args.source
            else (args.by, "")
        )
        imported = store.import_qrels(qrels, by=by, note=note)
        warn(f"{store.path}: {len(imported):,} judgments of {args.file} recorded by {by}")
    return ""


def _record_owner(args: argparse.Namespace) -> tuple[str, Scale, str | None]:
    """The collection a record written to belongs to, the grades it takes, and its folder when
    given: DB's own folder, ``--collection DIR``, or what the record's first writer recorded. A
    record that knows none of them is refused: its judgments would move any collection's numbers, on
    any scale."""
    folder = args.db if Path(args.db).is_dir() else args.collection
    if folder is not None:
        if (
            args.collection is not None
            and Path(args.db).is_dir()
            and Path(args.collection).resolve() != Path(args.db).resolve()
        ):
            raise OptionError(
                f"--collection {args.collection}: DB is the collection folder {args.db} already"
            )
        collection = open_collection(folder)
        return collection.config.name, collection.grade_scale(collection.read_qrels()), folder
    owner, scale = (
        MeetingStore(args.db, create=False).owner() if Path(args.db).is_file() else (None, None)
    )
    if owner is None or scale is None:
        raise OptionError(
            f"{args.db}: a record must know the collection it judges: give --collection DIR (the "
            "collection folder), or the folder itself as DB (its rankviz-notes.sqlite)"
        )
    return owner, scale, None


def _qrels_grade(folder: str, qid: str, docid: str) -> int | None:
    """The collection's qrels grade of the pair (the grade a judgment replaces)."""
    frame = open_collection(folder).read_qrels().to_frame()
    found = frame[(frame["qid"] == qid) & (frame["docid"] == docid)]["rel"]
    return int(found.iloc[0]) if len(found) else None


def tags_command(args: argparse.Namespace) -> str:
    """``tags add|export``: the export is a groups file (qid, tag), so ``--groups`` reads it."""
    if args.action == "export":
        groups = MeetingStore(args.db, create=False).tag_groups()
        return tables.tsv_rows(("qid", "tag"), list(groups.items()))
    owner, scale, _ = _record_owner(args)
    store = MeetingStore(args.db, scale=scale, collection=owner)
    store.tag(args.qid, args.tag, by=args.by)
    warn(f"{store.path}: {args.qid} tagged {args.tag.strip()!r} by {args.by}")
    return ""


def report_command(args: argparse.Namespace) -> str:
    """``report``: what the meeting decided, as one HTML page (or JSON)."""
    from rankviz import export

    meeting = open_study(args)
    if meeting.record is None:
        raise OptionError(
            "report needs the meeting's record: a collection folder, or --judgments DB"
        )
    plain = argparse.Namespace(**{**vars(args), "judgments": None, "qrels_in_force": None})
    report = meeting.meeting_report(
        meeting.record, file_study=open_study(plain, quiet=True), test=test_settings(args, meeting)
    )
    text = (
        export.meeting_html(report) if args.format == "html" else render.to_json(report.to_dict())
    )
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
