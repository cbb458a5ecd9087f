"""AppTest of a server with sign-in: a visitor not signed in sees nothing but the sign-in; a
collection's ``[access]`` decides who sees it, who judges and who owns it; entries go under the
identity the sign-in gave, whatever the page sends; an owner locks and unlocks the meeting.

The provider itself (a real OpenID Connect sign-in in Chromium) is tests/browser/test_signin.py's.
"""

from __future__ import annotations

import shutil

import pytest
from apptest import shown
from conftest import CRANFIELD
from streamlit.testing.v1 import AppTest

from rankviz.io.meeting import MeetingStore

AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "a secret of the tests",
    "client_id": "rankviz",
    "client_secret": "secret",
    "server_metadata_url": "http://localhost:9400/.well-known/openid-configuration",
}
ACCESS = """
[access]
viewers = ["*@example.org"]
judges = ["judy@example.org"]
owners = ["olga@example.org"]
"""


@pytest.fixture
def team(tmp_path, monkeypatch):
    """A copy of Cranfield, served as ``team``, whose [access] lists a viewer domain, a judge and
    an owner; its record is ``notes/team.sqlite``."""
    folder = tmp_path / "team"
    shutil.copytree(CRANFIELD, folder, ignore=shutil.ignore_patterns("*.sqlite*"))
    with open(folder / "collection.toml", "a") as handle:
        handle.write(ACCESS)
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    monkeypatch.setenv("RANKVIZ_NOTES", str(tmp_path / "notes"))
    (tmp_path / "notes").mkdir()
    return tmp_path / "notes" / "team.sqlite"


def visit(
    email: object, page: str = "deltas", *, verified: object = True, **params: str
) -> AppTest:
    """The app with sign-in configured, as ``email`` signed in (None: not signed in), the provider
    saying ``email_verified = verified``."""
    at = AppTest.from_string(
        f"from rankviz.app.frame.pages import navigate\nnavigate(default={page!r})\n",
        default_timeout=120,
    )
    at.secrets["auth"] = AUTH
    at.user = (
        {"is_logged_in": False}
        if email is None
        else {"is_logged_in": True, "email": email, "email_verified": verified}
    )
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def said(at: AppTest, kind: str) -> list[str]:
    return [shown(e) for e in at.get(kind)]


def test_a_visitor_not_signed_in_sees_the_sign_in_and_no_run_or_number(team) -> None:
    at = visit(None, "overview", collection="team")
    assert not at.exception
    assert [b.label for b in at.button] == ["Sign in"]
    assert not at.dataframe and not at.get("plotly_chart") and not at.selectbox
    assert not at.sidebar.selectbox and not at.get("metric")


@pytest.mark.slow
def test_a_person_sees_only_the_collections_that_list_them(team, monkeypatch) -> None:
    outsider = visit("eve@elsewhere.net", "overview")
    assert not outsider.exception and not outsider.sidebar.selectbox  # no sample beside team
    assert any("No collection of this server lists eve@" in i for i in said(outsider, "info"))
    # a second collection, without [access]: every signed-in person sees it
    shutil.copytree(
        CRANFIELD, team.parent.parent / "open", ignore=shutil.ignore_patterns("*.sqlite*")
    )
    served = [
        "app.py",
        "--data",
        str(team.parent.parent / "team"),
        "--data",
        str(team.parent.parent / "open"),
    ]
    monkeypatch.setattr("sys.argv", served)
    picker = visit("eve@elsewhere.net", "overview").sidebar.selectbox[0]
    # collection.toml's name, then the link's (the folder's)
    assert picker.options == ["Cranfield (open)"] and picker.value == "open"
    viewer = visit("vic@example.org", "overview", collection="team")
    assert viewer.sidebar.selectbox[0].value == "team" and not viewer.exception
    assert any("Signed in as vic@example.org" in c for c in said(viewer.sidebar, "text"))
    # Across collections offers the collections each may see
    for email, offered in (("vic@example.org", True), ("eve@elsewhere.net", False)):
        across = visit(email, "across")
        options = [option for widget in across.multiselect for option in widget.options]
        assert not across.exception and ("team" in options) == offered, email


@pytest.mark.parametrize(
    ("email", "verified", "says"),
    [
        ("olga@example.org", False, "did not say it verified your e-mail address"),
        ("olga@example.org", None, "did not say it verified your e-mail address"),
        ("olga@example.org", "false", "did not say it verified your e-mail address"),
        ("\u212aate@example.org", True, "compatibility characters"),
        (["olga@example.org"], True, "not one address but a list"),
        ("mallory@evil.com@example.org", True, "not one e-mail address"),
    ],
)
def test_a_sign_in_the_provider_did_not_vouch_for_gets_no_role(
    team, email: object, verified: object, says: str
) -> None:
    """The owner's address unverified, a KELVIN SIGN that lowers to a k, a list, two @: each is
    told why on the page, sees no collection, and is named nowhere as signed in."""
    at = visit(email, "deltas", verified=verified, collection="team", query="1")
    assert not at.exception
    assert [e for e in said(at, "error") if says in e.replace("\u2060", "")], said(at, "error")
    assert not at.dataframe and not at.sidebar.selectbox and not at.get("metric")
    assert not any("Signed in as" in c for c in said(at.sidebar, "text"))
    assert [b.label for b in at.button] == ["Sign out"]


def test_a_verified_address_in_cognitos_string_form_signs_in(team) -> None:
    at = visit("Olga@Example.org", "overview", verified="true", collection="team")
    assert not at.exception
    assert any("Signed in as olga@example.org" in c for c in said(at.sidebar, "text"))


@pytest.mark.slow
def test_a_server_with_sign_in_beyond_its_machine_shows_no_open_banner(team) -> None:
    from streamlit import config

    before = config.get_option("server.address")
    try:
        config.set_option("server.address", "0.0.0.0")
        at = visit("vic@example.org", "overview", collection="team")
        assert not at.exception and not [w for w in said(at, "warning") if "anyone who" in w]
    finally:
        config.set_option("server.address", before)


@pytest.mark.slow
def test_a_viewer_sees_the_numbers_and_a_forged_write_is_refused(team) -> None:
    at = visit("vic@example.org", "deltas", collection="team", query="1")
    assert not at.exception and at.dataframe
    assert any("you are a viewer of this collection" in i for i in said(at, "info"))
    assert all(w.disabled for w in at.multiselect if w.label == "Tags of this query")
    assert not [t for t in at.text_input if t.key == "meeting.name"]  # no name field
    grid = next(d for d in at.dataframe if "note" in d.value.columns)
    assert grid.proto.disabled  # the judging grid is read-only
    # what a tampered page could send: a note and a tag typed into the disabled widgets
    at.session_state["meeting.note:1"] = "forged"
    at.session_state["meeting.new_tag:1"] = "forged tag"
    at.run()
    refused = [e for e in said(at, "error") if e.startswith("Not recorded")]
    assert refused and "a viewer cannot judge here" in refused[0]
    assert not team.exists() or not MeetingStore(team, create=False).history("1")


@pytest.mark.slow
def test_a_judge_records_under_the_identity_of_the_sign_in_not_a_name_sent(team) -> None:
    at = visit("judy@example.org", "deltas", collection="team", query="1")
    assert not next(d for d in at.dataframe if "note" in d.value.columns).proto.disabled
    at.session_state["rankviz.meeting_name"] = "Mallory"  # a name in the session is ignored
    next(w for w in at.multiselect if w.label == "Tags of this query")
    at.text_input(key="meeting.new_tag:1").input("needs synonyms").run()
    at.text_area(key="meeting.note:1").input("judged by Judy").run()
    assert not at.exception and not [e for e in said(at, "error")]
    history = MeetingStore(team, create=False).history("1")
    assert {(e.by, e.via) for e in history} == {("judy@example.org", "sign-in")}
    table = next(d.value for d in at.dataframe if "known by" in d.value.columns)
    assert set(table["known by"]) == {"sign-in"} and set(table["by"]) == {"judy@example.org"}
    # a judge cannot lock
    assert not [b for b in at.button if b.label == "Lock the meeting"]


@pytest.mark.slow
def test_an_owner_locks_the_meeting_for_everyone_and_unlocks_it(team) -> None:
    owner = visit("olga@example.org", "deltas", collection="team", query="1")
    next(b for b in owner.button if b.label == "Lock the meeting").click().run()
    lock = MeetingStore(team, create=False).lock_state()
    assert lock.locked and lock.by == "olga@example.org" and lock.via == "sign-in"
    judge = visit("judy@example.org", "overview", collection="team")
    assert any("The meeting is locked (by olga@example.org" in i for i in said(judge, "info"))
    judge = visit("judy@example.org", "deltas", collection="team", query="1")
    assert all(w.disabled for w in judge.multiselect if w.label == "Tags of this query")
    judge.session_state["meeting.new_tag:1"] = "while locked"
    judge.run()
    refused = [e for e in said(judge, "error") if "the meeting is locked" in e]
    assert refused and refused[0].endswith("your tag of query 1: while locked")  # said, not lost
    assert MeetingStore(team, create=False).tags() == {}
    owner.run()
    next(b for b in owner.button if b.label == "Unlock the meeting").click().run()
    assert not MeetingStore(team, create=False).lock_state().locked
    judge.run()
    assert not judge.multiselect[0].disabled
    judge.text_input(key="meeting.new_tag:1").input("after the lock").run()
    assert MeetingStore(team, create=False).tags() == {"1": ["after the lock"]}


@pytest.mark.slow
def test_an_owner_imports_a_qrels_file_and_a_judge_is_not_offered_it(team) -> None:
    judge = visit("judy@example.org", "judgments", collection="team")
    assert not judge.exception and "import.file" not in [f.key for f in judge.file_uploader]
    owner = visit("olga@example.org", "judgments", collection="team")
    owner.file_uploader(key="import.file").set_value(
        ("umbrela.txt", b"1 0 184 3\n1 0 29 1\n", "text/plain")
    )
    owner.text_input(key="import.source").input("llm:umbrela").run()
    owner.button(key="import.go").click().run()
    assert not owner.exception and not said(owner, "error")
    assert any(
        "Imported 2 judgments of umbrela.txt, recorded as llm:umbrela" in s
        for s in said(owner, "toast")
    )
    judged = MeetingStore(team, create=False).judgments()
    assert [(j.by, j.via, j.note) for j in judged] == [
        ("llm:umbrela", "import", "imported by olga@example.org (sign-in) from umbrela.txt")
    ] * 2
    # a grade the collection does not take: nothing of the file is recorded
    owner.file_uploader(key="import.file").set_value(
        ("bad.txt", b"2 0 12 2\n2 0 13 9\n", "text/plain")
    )
    owner.button(key="import.go").click().run()
    assert any("Not imported" in e and "9" in e for e in said(owner, "error"))
    assert len(MeetingStore(team, create=False).judgments()) == 2
    # the owner takes the import back: the qrels file alone is in force, the history keeps both
    undo = next(
        b for b in owner.button if b.label.startswith("Undo the import recorded as llm:umbrela")
    )
    undo.click().run()
    assert any("Undone: 2 judgments" in s for s in said(owner, "toast"))
    store = MeetingStore(team, create=False)
    assert (
        store.latest() == {}
        and [e.kind for e in store.history("1")] == ["judgment"] * 2 + ["undo"] * 2
    )
    assert {e.by for e in store.history("1") if e.kind == "undo"} == {"olga@example.org"}
    assert not [b for b in owner.button if b.label.startswith("Undo the import")]


def test_a_collection_whose_settings_do_not_parse_is_not_available_and_the_log_says_why(
    team, tmp_path, monkeypatch, caplog
) -> None:
    """Its name and the parse error were shown to every signed-in person: the page now says it is
    not available (its [access] cannot be read, so nobody is known as its owner), and the
    server's log gives the reason."""
    broken = tmp_path / "broken"
    shutil.copytree(CRANFIELD, broken, ignore=shutil.ignore_patterns("*.sqlite*"))
    (broken / "collection.toml").write_text('name = "Broken\n[access]\nviewers = ["*"]\n')
    monkeypatch.setattr(
        "sys.argv", ["app.py", "--data", str(broken), "--data", str(team.parent.parent / "team")]
    )
    with caplog.at_level("WARNING", logger="rankviz.app"):
        at = visit("ann@example.org", "overview", collection="broken")
    assert not at.exception
    errors = " ".join(said(at, "error"))
    assert "The collection broken is not available." in errors
    assert "TOML" not in errors and "collection.toml" not in errors and "Broken" not in errors
    assert any("collection.toml" in r.getMessage() for r in caplog.records)
