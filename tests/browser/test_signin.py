"""A team server with sign-in, in Chromium against a real OpenID Connect provider run locally
(PyPI ``oidc-provider-mock``: its authorization form signs in whoever's address is typed): the
visitor not signed in sees no run and no number; a viewer's controls are read-only; a judge's
entry goes under the identity the provider gave; an owner locks and unlocks the meeting. And the
default server listens on this machine alone, as its listening socket shows.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browsing import (
    _free_port,
    chromium_browser,  # noqa: F401 (the ``browser`` fixture)
    open_page,
    serving,
    settled,
    streamlit_server,
)
from conftest import CRANFIELD, ROOT

from rankviz.io.meeting import MeetingStore

ACCESS = """
[access]
viewers = ["*@example.org"]
judges = ["judy@example.org"]
owners = ["olga@example.org"]
"""


@pytest.fixture(scope="module")
def provider():
    """The OpenID provider, on a free port of this machine, for the module's tests."""
    from oidc_provider_mock import run_server_in_thread

    with run_server_in_thread() as server:
        yield f"http://localhost:{server.server_port}"


@pytest.fixture(scope="module")
def team_server(provider, tmp_path_factory):
    """``streamlit run app.py`` signing in through ``provider`` (its [auth] in a secrets file, as
    ``rankviz app --auth FILE`` gives it), serving a copy of Cranfield whose [access] lists a
    viewer domain, a judge and an owner; yields its URL and the record's path."""
    root = tmp_path_factory.mktemp("team")
    folder = root / "team"
    shutil.copytree(CRANFIELD, folder, ignore=shutil.ignore_patterns("*.sqlite*"))
    with open(folder / "collection.toml", "a") as handle:
        handle.write(ACCESS)
    port = _free_port()
    auth = root / "auth.toml"
    auth.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        'cookie_secret = "the cookie secret of the sign-in tests"\n'
        'client_id = "rankviz"\nclient_secret = "rankviz-secret"\n'
        f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n'
    )
    (root / "notes").mkdir()
    with streamlit_server(
        "--data",
        str(folder),
        env={"RANKVIZ_NOTES": str(root / "notes")},
        port=port,
        options={"secrets.files": str(auth)},
    ) as url:
        yield url, root / "notes" / "team.sqlite"


def vouch(provider: str, subject: str, claims: dict) -> None:
    """The provider's account ``subject`` given ``claims`` (its ``PUT /users/SUB``), as an account
    of a real provider holds what its owner typed into a profile."""
    import json
    import urllib.parse
    import urllib.request

    request = urllib.request.Request(
        f"{provider}/users/{urllib.parse.quote(subject)}",
        data=json.dumps(claims).encode(),
        method="PUT",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 204


def signed_in(browser, url: str, email: str | None, path: str, *, provider: str, claims=None):
    """A new browser context signed in as ``email`` through the provider's form (None: not signed
    in), showing ``path``; the account's claims are ``claims``, by default ``email`` verified."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(60_000)
    if email is not None:
        vouch(provider, email, claims or {"email": email, "email_verified": True})
        open_page(page, url)
        page.get_by_role("button", name="Sign in").click()
        page.locator('input[name="sub"]').fill(email)  # the provider's authorization form
        page.get_by_role("button", name="Authorize").click()
        if claims is None:
            says(page, f"Signed in as {email}")
            shown = page.get_by_text(f"Signed in as {email}", exact=True).inner_text()
            assert shown == f"Signed in as {email}"  # copies as typed: no invisible character
    if claims is None:
        open_page(page, f"{url}{path}")
    return context, page


def says(page, text: str) -> None:
    """Wait until the page shows ``text`` (the app writes an invisible word joiner after the @ of
    an address, so that markdown does not make it a link: read without it)."""
    page.wait_for_function(
        # the body is null while a redirect (the provider's, back to the app) loads the page
        "text => !!document.body && document.body.innerText.replaceAll('\\u2060', '')"
        ".includes(text)",
        arg=text,
    )


QUERY_VIEW = "/deltas?collection=team&runs=bm25,dense&baseline=bm25&run=dense&query=1"


def test_nothing_shows_before_sign_in_and_a_viewer_reads_only(
    browser, team_server, provider
) -> None:
    url, _ = team_server
    context, page = signed_in(browser, url, None, QUERY_VIEW, provider=provider)
    page.get_by_role("button", name="Sign in").wait_for()
    for shown in ("stDataFrame", "stMetric", "stPlotlyChart", "stSelectbox", "stSidebarNav"):
        assert page.locator(f'[data-testid="{shown}"]').count() == 0
    assert "bm25" not in page.inner_text("body") and "Cranfield" not in page.inner_text("body")
    context.close()
    context, page = signed_in(browser, url, "vic@example.org", QUERY_VIEW, provider=provider)
    says(page, "you are a viewer of this collection")
    from playwright.sync_api import expect  # here: without playwright the module still skips

    # wins, ties, losses, the mean (waited for: a rerun may be redrawing them)
    expect(page.locator('[data-testid="stMetric"]')).to_have_count(4)
    assert page.get_by_role("textbox", name="Note on this query").is_disabled()
    assert page.get_by_role("textbox", name="New tag").is_disabled()
    assert page.get_by_label("Your name", exact=False).count() == 0
    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="End session").click()  # the provider's end of the session
    page.get_by_role("button", name="Sign in").wait_for()
    assert page.locator('[data-testid="stMetric"]').count() == 0
    context.close()


def test_a_judge_records_under_the_providers_identity_and_an_owner_locks(
    browser, team_server, provider
) -> None:
    url, record = team_server
    judge_context, judge = signed_in(
        browser, url, "judy@example.org", QUERY_VIEW, provider=provider
    )
    tag = judge.get_by_role("textbox", name="New tag")
    tag.fill("needs synonyms")
    tag.press("Enter")
    says(judge, "Recorded by judy@example.org")
    entries = MeetingStore(record, create=False).history("1")
    assert [(e.kind, e.by, e.via) for e in entries] == [("tag", "judy@example.org", "sign-in")]
    owner_context, owner = signed_in(
        browser, url, "olga@example.org", QUERY_VIEW, provider=provider
    )
    owner.get_by_role("button", name="Lock the meeting").click()
    says(owner, "The meeting is locked by olga@example.org.")
    assert MeetingStore(record, create=False).lock_state().locked
    judge.reload()
    settled(judge)
    says(judge, "The meeting is locked (by olga@example.org")
    assert judge.get_by_role("textbox", name="New tag").is_disabled()
    settled(owner)
    owner.get_by_role("button", name="Unlock the meeting").click()
    says(owner, "The meeting is unlocked by olga@example.org.")
    assert not MeetingStore(record, create=False).lock_state().locked
    judge.reload()
    settled(judge)
    assert not judge.get_by_role("textbox", name="New tag").is_disabled()
    judge_context.close()
    owner_context.close()


@pytest.mark.parametrize(
    ("subject", "claims", "told"),
    [
        (
            "olga-unverified",
            {"email": "olga@example.org", "email_verified": False},
            "did not say it verified your e-mail address",
        ),
        (
            "kelvin",
            {"email": "\u212aate@example.org", "email_verified": True},
            "compatibility characters",
        ),
        (
            "listed",
            {"email": ["olga@example.org"], "email_verified": True},
            "not one address but a list",
        ),
        (  # an explicit false stays false: xms_edov overrode it on every provider
            "olga-edov",
            {"email": "olga@example.org", "email_verified": False, "xms_edov": True},
            "did not say it verified your e-mail address",
        ),
        (  # xms_edov is Microsoft Entra ID's: this provider is not Entra
            "olga-edov-elsewhere",
            {"email": "olga@example.org", "xms_edov": True},
            "did not say it verified your e-mail address",
        ),
        (  # a Cyrillic o: read as the owner's address in the history and every "recorded by"
            "cyrillic-olga",
            {"email": "\u043elga@example.org", "email_verified": True},
            "mixes letters of several scripts",
        ),
    ],
)
def test_an_address_the_provider_did_not_vouch_for_gets_no_role(
    browser, team_server, provider, subject: str, claims: dict, told: str
) -> None:
    """Signed in through the provider with the owner's address unverified (xms_edov beside an
    explicit false, or from a provider that is not Entra), a KELVIN SIGN address that lowers to
    kate's, a list, or the owner's address with a Cyrillic o: the page says why, and shows no
    collection, no number and no judging, on the sign-in's landing page and on a deep link
    alike."""
    url, record = team_server

    def entries() -> list:
        return MeetingStore(record, create=False).history("1") if record.exists() else []

    before = entries()
    context, page = signed_in(browser, url, subject, QUERY_VIEW, provider=provider, claims=claims)
    for address in ("", QUERY_VIEW):
        if address:
            open_page(page, f"{url}{address}")
        says(page, told)
        page.get_by_role("button", name="Sign out").wait_for()
        for shown in ("stDataFrame", "stMetric", "stSelectbox", "stTextArea"):
            assert page.locator(f'[data-testid="{shown}"]').count() == 0, shown
        body = page.inner_text("body")
        assert "Signed in as" not in body and "owner" not in body and "bm25" not in body
    assert entries() == before  # nothing recorded under any name
    context.close()


def _listening(port: int) -> list[str]:
    """The local addresses of the sockets listening on ``port`` (from /proc/net/tcp and tcp6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, at = local.split(":")
            if state == "0A" and int(at, 16) == port:  # 0A: LISTEN
                found.append(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads the sockets from /proc")
def test_the_readmes_streamlit_run_listens_on_this_machine_alone() -> None:
    """``streamlit run app.py`` from the checkout, no address given: the project's
    .streamlit/config.toml binds the loopback, and no socket listens on any other address."""
    port = _free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.headless", "true", "--browser.gatherUsageStats", "false"]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        serving(f"http://127.0.0.1:{port}", process)
        addresses = _listening(port)
    finally:
        process.terminate()
        process.wait(timeout=20)
    # 127.0.0.1 as /proc writes it (little-endian hex); any other address would be reachable
    assert addresses and set(addresses) == {"0100007F"}, addresses
