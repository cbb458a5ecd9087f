"""Who may do what on a team server: the roles of a collection's [access], how each entry's author
is known (``via``), the lock every writer meets, a record of an older version read and upgraded,
``rankviz app --auth`` checked before the server starts, and ``judgments lock|unlock``."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import CRANFIELD, run_cli
from generated import version_2_record
from hypothesis import given, settings
from hypothesis import strategies as st

from rankviz.cli import main
from rankviz.errors import CollectionError
from rankviz.io.access import Access, Role, mail_address, read_access, refusal
from rankviz.io.collection import open_collection
from rankviz.io.meeting import MeetingError, MeetingLocked, MeetingStore
from rankviz.study.record import Writer

TEAM = Access(
    viewers=("*@example.org",),
    judges=("judy@example.org",),
    owners=("olga@example.org",),
    declared=True,
)


@pytest.mark.parametrize(
    ("email", "role"),
    [
        ("olga@example.org", Role.OWNER),
        ("Olga@Example.ORG ", Role.OWNER),  # addresses compare without case or spaces
        ("judy@example.org", Role.JUDGE),
        ("vic@example.org", Role.VIEWER),
        ("eve@example.org.evil.net", Role.NONE),  # a domain is matched whole, at the end
        ("eve@notexample.org", Role.NONE),
        ("", Role.NONE),
        ("\u212aate@example.org", Role.NONE),  # KELVIN SIGN: not kate's, not a viewer's either
        ("mallory@evil.com@example.org", Role.NONE),  # two @: not an address of example.org
        ("olga@EXAMPLE.org", Role.OWNER),
        ("vic@sub.example.org", Role.NONE),  # *@example.org names one domain, not its subdomains
        ("vic@example.org\n", Role.VIEWER),
        ("v ic@example.org", Role.NONE),
    ],
)
def test_the_highest_role_a_person_is_listed_for(email: str, role: Role) -> None:
    listed = read_access(
        {
            "viewers": ["*@example.org"],
            "judges": ["judy@example.org"],
            "owners": ["olga@example.org"],
        }
    )
    assert listed == TEAM and listed.role(email) == role


@pytest.mark.parametrize(
    ("claim", "says"),
    [
        ("\u212aate@example.org", "compatibility characters"),
        ("mallory@evil.com@example.org", "not one e-mail address"),
        (["olga@example.org"], "not one address but a list"),
        ("olga@ex ample.org", "spaces or control characters"),
        ("olga@exämple.org", "xn-- form"),
        ("olga@", "not one e-mail address"),
        (None, "not one address but a NoneType"),
    ],
)
def test_anything_but_one_address_is_refused_in_one_sentence(claim: object, says: str) -> None:
    with pytest.raises(ValueError, match=says) as refused:
        mail_address(claim)
    assert "\n" not in str(refused.value)
    assert Access().role(claim) is Role.NONE  # type: ignore[arg-type]


def test_an_address_is_compared_as_mail_compares_it() -> None:
    assert mail_address(" Kate@Example.ORG ") == "kate@example.org"
    assert mail_address("Émile@xn--exmple-cua.org") == "Émile@xn--exmple-cua.org"  # ASCII only
    assert mail_address("\u212aate@example.org".replace("\u212a", "K")) == "kate@example.org"
    with pytest.raises(ValueError, match="owners: .* xn-- form"):
        read_access({"owners": ["olga@exämple.org"]})
    with pytest.raises(ValueError, match="viewers: .*not one e-mail address"):
        read_access({"viewers": ["*@a@b.org"]})
    assert read_access({"owners": ["*@Example.ORG"]}).role("x@example.org") == Role.OWNER


def test_without_access_every_signed_in_person_judges_and_star_lists_everyone() -> None:
    assert Access().role("anyone@anywhere.net") == Role.JUDGE
    assert read_access({"viewers": ["*"]}).role("anyone@anywhere.net") == Role.VIEWER
    assert read_access({}).role("anyone@anywhere.net") == Role.NONE  # declared, nobody listed


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"viewer": ["a@b.c"]}, "takes viewers, judges and owners"),
        ({"judges": "a@b.c"}, "judges must be a list"),
        ({"owners": ["olga"]}, "is not one e-mail address"),
        ({"owners": ["*@"]}, "is not one e-mail address"),
        ({"owners": ["a@*.org"]}, "its domain is not letters, digits, dots and hyphens"),
    ],
)
def test_a_malformed_access_table_is_refused_in_one_line(tmp_path: Path, table, says) -> None:
    folder = tmp_path / "c"
    shutil.copytree(CRANFIELD, folder, ignore=shutil.ignore_patterns("*.sqlite*"))
    lines = "".join(f"{key} = {value!r}\n".replace("'", '"') for key, value in table.items())
    with open(folder / "collection.toml", "a") as handle:
        handle.write("\n[access]\n" + lines)
    with pytest.raises(CollectionError, match=says.replace("*", r"\*")):
        open_collection(folder)


def test_refusals_name_the_role_needed() -> None:
    assert refusal(Role.JUDGE, "judge") == "" and refusal(Role.OWNER, "lock") == ""
    assert "a viewer cannot judge here: that takes a judge" in refusal(Role.VIEWER, "judge")
    assert "a judge cannot lock here: that takes an owner" in refusal(Role.JUDGE, "lock")
    assert refusal(Role.NONE, "judge").startswith("someone not on this collection's lists")


def test_every_entry_says_how_its_author_is_known(tmp_path: Path) -> None:
    store = MeetingStore(tmp_path / "m.sqlite")
    signed = Writer(store, "judy@example.org", "sign-in", Role.JUDGE)
    signed.judge_many([("q1", "d1", 2)])
    signed.tag("q1", "synonyms")
    signed.set_note("q1", "why")
    store.judge("q2", "d2", 1, by="Ann", via="typed name")
    assert [(e.by, e.via) for e in store.history("q1")] == [("judy@example.org", "sign-in")] * 3
    assert store.judgments("q2")[0].via == "typed name"
    assert store.provenance() == {"sign-in": 3, "typed name": 1}
    with pytest.raises(MeetingError, match="must be one of"):
        store.judge("q3", "d3", 1, by="Ann", via="forged")


def test_a_writer_refuses_what_its_role_does_not_allow_and_records_nothing(tmp_path: Path) -> None:
    store = MeetingStore(tmp_path / "m.sqlite")
    viewer = Writer(store, "vic@example.org", "sign-in", Role.VIEWER)
    judge = Writer(store, "judy@example.org", "sign-in", Role.JUDGE)
    for attempt in (
        lambda: viewer.judge_many([("q1", "d1", 2)]),
        lambda: viewer.tag("q1", "x"),
        lambda: viewer.set_note("q1", "x"),
        lambda: viewer.lock(True),
        lambda: judge.lock(True),
    ):
        with pytest.raises(MeetingError, match="cannot (judge|lock) here"):
            attempt()
    assert store.history("q1") == [] and not store.lock_state().locked


def test_a_locked_meeting_refuses_every_entry_until_an_owner_unlocks_it(tmp_path: Path) -> None:
    store = MeetingStore(tmp_path / "m.sqlite")
    owner = Writer(store, "olga@example.org", "sign-in", Role.OWNER)
    owner.lock(True)
    state = store.lock_state()
    assert state.locked and (state.by, state.via) == ("olga@example.org", "sign-in")
    other = MeetingStore(tmp_path / "m.sqlite")  # another process's store: the lock is the file's
    for attempt in (
        lambda: other.judge("q1", "d1", 2, by="Ann", via="command line"),
        lambda: other.tag("q1", "x", by="Ann", via="command line"),
        lambda: other.set_note("q1", "x", by="Ann", via="command line"),
        lambda: owner.judge_many([("q1", "d1", 2)]),
    ):
        with pytest.raises(MeetingLocked, match=r"locked \(by olga@example.org at "):
            attempt()
    assert store.history("q1") == []
    owner.lock(False)
    other.tag("q1", "x", by="Ann", via="command line")
    assert store.tags() == {"q1": ["x"]} and not store.lock_state().locked


def test_a_record_of_the_previous_version_is_read_as_it_is_and_upgraded_by_a_writer(
    tmp_path: Path,
) -> None:
    """Version 2's tables had no ``via`` and no locks: a reader reads them (nothing written), a
    writer adds them; the older entries say their author's way is not recorded."""
    path = tmp_path / "old.sqlite"
    version_2_record(path, tagged=True)
    before = path.read_bytes()
    reader = MeetingStore(path, create=False)
    assert [(e.kind, e.via) for e in reader.history("q1")] == [("judgment", ""), ("tag", "")]
    assert not reader.lock_state().locked and reader.provenance() == {"": 2}
    assert path.read_bytes() == before
    writer = MeetingStore(path)
    writer.judge("q1", "d2", 1, by="Bob", via="command line")
    assert reader.provenance() == {"": 2, "command line": 1}
    assert [j.via for j in writer.judgments()] == ["", "command line"]


def test_cli_entries_say_command_line_or_import_and_lock_unlock(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "c"
    shutil.copytree(CRANFIELD, folder, ignore=shutil.ignore_patterns("*.sqlite*"))
    assert main(["judgments", "add", str(folder), "1", "184", "3", "--by", "Ann"]) == 0
    (tmp_path / "more.txt").write_text("1 0 29 2\n")
    assert (
        main(["judgments", "import", str(folder), str(tmp_path / "more.txt"), "--by", "Bob"]) == 0
    )
    store = MeetingStore(folder, create=False)
    assert [(j.by, j.via) for j in store.judgments()] == [
        ("Ann", "command line"),
        ("Bob", "import"),
    ]
    capsys.readouterr()
    assert main(["judgments", "lock", str(folder), "--by", "Olga"]) == 0
    assert "the meeting is locked" in capsys.readouterr().err
    assert main(["judgments", "add", str(folder), "1", "13", "3", "--by", "Ann"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the meeting is locked (by Olga at " in err
    assert main(["judgments", "unlock", str(folder), "--by", "Olga"]) == 0
    assert main(["judgments", "add", str(folder), "1", "13", "3", "--by", "Ann"]) == 0
    assert len(store.judgments()) == 3


AUTH = """[auth]
redirect_uri = "https://rankviz.example.org/oauth2callback"
cookie_secret = "0123456789abcdef0123456789abcdef"
{provider}
"""
PROVIDER = (
    'client_id = "id"\nclient_secret = "secret"\n'
    'server_metadata_url = "https://accounts.google.com/.well-known/openid-configuration"\n'
)


def _auth(old: str, new: str, *, named: bool = False) -> str:
    """The [auth] file with ``old`` written ``new`` (``named``: the provider in [auth.google])."""
    return AUTH.format(provider=("[auth.google]\n" if named else "") + PROVIDER).replace(old, new)


@pytest.mark.parametrize(
    ("text", "name", "says"),
    [
        (AUTH.format(provider=PROVIDER), "auth.toml", None),
        (AUTH.format(provider="[auth.google]\n" + PROVIDER), "auth.toml", None),
        (AUTH.format(provider=""), "auth.toml", "no provider"),
        (AUTH.format(provider=PROVIDER).replace("/oauth2callback", "/"), "auth.toml", "followed"),
        (
            AUTH.format(provider=PROVIDER).replace("cookie_secret", "x"),
            "auth.toml",
            "cookie_secret",
        ),
        (
            _auth(
                "https://rankviz.example.org/oauth2callback",
                "javascript:alert(1)//oauth2callback",
            ),
            "auth.toml",
            "redirect_uri is not an http:// or https:// address",
        ),
        (
            _auth("0123456789abcdef0123456789abcdef", "a"),
            "auth.toml",
            "cookie_secret signs every session's cookie: give at least 32 random characters",
        ),
        (
            _auth("https://accounts.google.com/.well-known/openid-configuration", "not a url"),
            "auth.toml",
            "server_metadata_url is not an http:// or https:// address",
        ),
        (
            _auth("https://accounts", "https://:x/accounts", named=True),
            "auth.toml",
            "server_metadata_url is not",
        ),
        ("[server]\n", "auth.toml", r"no \[auth\] section"),
        ("[auth\n", "auth.toml", "not valid TOML"),
        (AUTH.format(provider=PROVIDER), "auth.txt", "no such .toml file"),
    ],
)
def test_rankviz_app_auth_is_checked_and_handed_to_streamlit(
    monkeypatch, capsys, tmp_path: Path, text: str, name: str, says: str | None
) -> None:
    """``--auth FILE`` becomes Streamlit's secrets file; beyond the machine with it, no warning
    (people sign in); a file that cannot sign anyone in is one line and exit 2, before a start."""
    auth = tmp_path / name
    auth.write_text(text)
    started = []
    monkeypatch.setattr(os, "execve", lambda path, command, environment: started.append(command))
    code = main(["app", "--host", "0.0.0.0", "--auth", str(auth)])
    err = capsys.readouterr().err
    if says is None:
        assert code == 0 and started
        command = started[0]
        assert command[command.index("--secrets.files") + 1] == str(auth.resolve())
        assert "without sign-in" not in err
    else:
        assert code == 2 and not started
        assert len(err.strip().splitlines()) == 1 and f"--auth {auth}" in err
        assert re.search(says, err), err


def test_judgments_export_log_has_the_via_column(tmp_path: Path) -> None:
    store = MeetingStore(tmp_path / "m.sqlite")
    store.judge("q1", "d1", 2, by="Ann", via="typed name")
    done = run_cli("judgments", "export", str(store.path), "--format", "tsv")
    header, row = done.stdout.splitlines()
    assert header.split("\t")[-2:] == ["via", "undoes"]
    assert row.split("\t")[-2:] == ["typed name", ""]


@pytest.mark.slow
def test_the_report_says_who_judged_and_how_they_are_known(tmp_path: Path, capsys) -> None:
    import json

    folder = tmp_path / "c"
    shutil.copytree(CRANFIELD, folder, ignore=shutil.ignore_patterns("*.sqlite*"))
    judy = Writer(MeetingStore(folder), "judy@example.org", "sign-in", Role.JUDGE)
    judy.judge_many([("1", "184", 4)])
    judy.tag("1", "<b>synonyms</b>")
    assert main(["report", str(folder), "bm25", "dense", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["entries_by_how_known"] == {"sign-in": 2} and not report["lock"]["locked"]
    assert {(e["by"], e["via"]) for e in report["queries"][0]["history"]} == {
        ("judy@example.org", "sign-in")
    }
    Writer(MeetingStore(folder), "Ann", "command line").lock(True)
    page = tmp_path / "report.html"
    assert main(["report", str(folder), "bm25", "dense", "-o", str(page)]) == 0
    html = page.read_text()
    assert "All 2 entries were made by people signed in" in html
    assert "The meeting is locked (by <bdi>Ann</bdi> at " in html and "<th>known by</th>" in html
    assert "<b>synonyms</b>" not in html  # the tag is escaped, as every user text
    MeetingStore(folder).lock(by="Ann", via="command line", locked=False)
    MeetingStore(folder).judge("2", "12", 1, by="Bob", via="typed name")
    assert main(["report", str(folder), "bm25", "dense", "-o", str(page)]) == 0
    assert (
        "The 3 entries by how their author is known: 2 sign-in, 1 typed name." in page.read_text()
    )


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    before=st.lists(
        st.tuples(st.sampled_from("abc"), st.sampled_from("xyz"), st.integers(0, 3)), max_size=8
    ),
    imported=st.dictionaries(
        st.tuples(st.sampled_from("abcd"), st.sampled_from("xyzw")), st.integers(0, 3), min_size=1
    ),
    after=st.lists(
        st.tuples(st.sampled_from("abcd"), st.sampled_from("xyzw"), st.integers(0, 3)), max_size=4
    ),
)
def test_an_undone_import_leaves_the_record_as_if_it_had_never_been_made(
    tmp_path_factory, before, imported, after
) -> None:
    """Judgments, an import, more judgments (some of the imported pairs again), then the import
    undone: every pair's grade in force is the one a record that never had the import holds (a
    later judgment stands), the source's own view is empty, and undoing twice changes nothing."""
    from rankviz.io.frames import qrels_from_dict

    folder = tmp_path_factory.mktemp("undo")
    plain, undone = MeetingStore(folder / "plain.sqlite"), MeetingStore(folder / "undone.sqlite")
    for store in (plain, undone):
        if before:
            store.judge_many(before, by="Ann", via="typed name")
    nested: dict = {}
    for (qid, docid), grade in imported.items():
        nested.setdefault(qid, {})[docid] = grade
    undone.import_qrels(qrels_from_dict(nested), by="llm:x", note="")
    for store in (plain, undone):
        if after:
            store.judge_many(after, by="Bob", via="typed name")
    ((_, _, _, numbers),) = undone.imports()
    owner = Writer(undone, "Olga", "typed name", Role.OWNER)
    taken = owner.undo(numbers)
    assert {(j.qid, j.docid) for j in taken} == set(imported)
    assert undone.latest() == plain.latest()
    assert owner.undo(numbers) == [] and undone.latest() == plain.latest()
    assert undone.latest_checked(judges=lambda by: by == "llm:x")[0] == {}  # the source, undone
    assert [e.kind for e in undone.history(next(iter(imported))[0])].count("undo") == sum(
        1 for j in taken if j.qid == next(iter(imported))[0]
    )


def test_the_command_line_undoes_the_latest_import(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "c"
    shutil.copytree(CRANFIELD, folder, ignore=shutil.ignore_patterns("*.sqlite*"))
    assert main(["judgments", "add", str(folder), "1", "184", "3", "--by", "Ann"]) == 0
    capsys.readouterr()
    assert main(["judgments", "export", str(folder)]) == 0
    exported = capsys.readouterr().out
    (tmp_path / "llm.txt").write_text("1 0 184 0\n1 0 29 2\n2 0 12 1\n")
    imported = ["judgments", "import", str(folder), str(tmp_path / "llm.txt"), "--by", "Bob"]
    assert main([*imported, "--source", "llm:x"]) == 0
    assert main(["judgments", "undo", str(folder), "--by", "Olga"]) == 0
    assert "the import recorded as llm:x at " in capsys.readouterr().err
    assert main(["judgments", "export", str(folder)]) == 0
    assert capsys.readouterr().out == exported
    assert main(["judgments", "export", str(folder), "--format", "tsv"]) == 0
    log = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert log[0][-2:] == ["via", "undoes"] and [row[-1] for row in log[1:]] == [
        "",
        "",
        "",
        "",
        "2",
        "3",
        "4",
    ]
    assert main(["judgments", "undo", str(folder), "--by", "Olga"]) == 2  # nothing left to undo
    assert "the record holds no import to undo" in capsys.readouterr().err


def test_a_records_log_imported_again_keeps_every_entrys_provenance(tmp_path: Path) -> None:
    """``judgments export --format tsv`` then ``judgments import`` of that log into a new record:
    the same log again, byte for byte (authors, times, notes with a tab and a line break, how each
    author was known, the grades replaced, an import and its undo), and the same grades in force."""
    collection = str(CRANFIELD)
    first, second = str(tmp_path / "first.sqlite"), str(tmp_path / "second.sqlite")
    qrels = tmp_path / "more.txt"
    qrels.write_text("1 0 13 3\n1 0 14 1\n")
    for command in (
        ("add", first, "1", "13", "2", "--by", "Ann", "--note", "a tab\there\nand a line"),
        ("import", first, str(qrels), "--by", "Olga", "--collection", collection),
        ("undo", first, "--by", "Olga"),
    ):
        if command[0] == "add":
            command += ("--collection", collection)
        assert run_cli("judgments", *command).returncode == 0
    store = MeetingStore(Path(first), create=False)
    store.judge("2", "5", 1, by="judy@example.org", via="sign-in")  # as the app records it
    log = tmp_path / "log.tsv"
    log.write_text(run_cli("judgments", "export", first, "--format", "tsv").stdout)
    done = run_cli(
        "judgments", "import", second, str(log), "--by", "Bob", "--collection", collection
    )
    assert done.returncode == 0, done.stderr
    again = run_cli("judgments", "export", second, "--format", "tsv").stdout
    assert again == log.read_text()
    assert {j.via for j in MeetingStore(Path(second), create=False).judgments()} == {
        "command line",
        "import",
        "sign-in",
    }
    assert (
        run_cli("judgments", "export", second).stdout
        == run_cli("judgments", "export", first).stdout
    )


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda row: row[:8] + ["9"], "undoes entry 9, not an earlier one"),
        (lambda row: row[:7] + ["a wizard", ""], "how the author is known must be one of"),
        (lambda row: row[:5] + ["yesterday"] + row[6:], "'yesterday' is not a time"),
        (lambda row: row[:2] + ["two"] + row[3:], "line 2: grade, previous_grade and undoes"),
        (lambda row: row[:4], "line 2: 4 fields where the log has 9"),
    ],
)
def test_a_log_that_breaks_the_records_rules_is_refused_in_one_line(
    tmp_path: Path, change, says: str
) -> None:
    row = ["1", "13", "2", "1", "Ann", "2026-12-04T10:00:00.000Z", "", "command line", ""]
    log = tmp_path / "log.tsv"
    header = "qid\tdocid\tgrade\tprevious_grade\tby\tat\tnote\tvia\tundoes\n"
    log.write_text(header + "\t".join(change(row)) + "\n")
    record = tmp_path / "r.sqlite"
    done = run_cli(
        "judgments", "import", str(record), str(log), "--by", "Bob", "--collection", str(CRANFIELD)
    )
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and says in line, line
    assert not record.exists() or not MeetingStore(record, create=False).judgments()


def test_a_server_given_folders_serves_them_alone_and_the_samples_only_without(
    tmp_path: Path,
) -> None:
    """``rankviz app team --auth FILE`` served Cranfield, DL-HARD, CAsT and the RAG sample beside
    ``team``, with no [access]: every signed-in person could judge there."""
    from rankviz.study.served import collection_folders

    samples = CRANFIELD.parent
    team = tmp_path / "team"
    shutil.copytree(CRANFIELD, team, ignore=shutil.ignore_patterns("*.sqlite*"))
    assert collection_folders(samples, [str(team)]) == {"team": team.resolve()}
    served = collection_folders(samples, [])
    assert "cranfield" in served and "team" not in served
