"""What a server opens for its visitors, decided once: collection folders confined to themselves,
run files read whole or in pieces, uploads decompressed under a limit, the meeting's record opened
read-only, and every message about them without the server's paths.

The app wraps these in its caches and progress bars (:mod:`rankviz.app.caches.inputs`); any other
server of rankviz's numbers would make the same choices here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from rankviz.errors import OptionError
from rankviz.io.access import Access, mail_address
from rankviz.io.blocks import read_in_pieces
from rankviz.io.collection import Collection, open_collection
from rankviz.io.collection_config import access_of, title_of
from rankviz.io.entries import UnmadeRecord
from rankviz.io.grades import Scale
from rankviz.io.irds import is_irds
from rankviz.io.meeting import STORE_NAME, MeetingError, MeetingStore, unwritable
from rankviz.io.model import Qrels, Run
from rankviz.io.readers import read_qrels, read_run, run_name_from_path
from rankviz.io.score_rules import NO_RULES
from rankviz.io.sources import decompressed, is_gzip
from rankviz.measures import Measure
from rankviz.settings.eval_settings import EvalSettings

#: Said when a server listens beyond its machine without sign-in (the CLI's warning, the banner).
OPEN_TO_ALL = (
    "listening on {address} without sign-in: anyone who reaches this server can open its "
    "collections and record judgments under any name"
)


#: What a provider's section of ``[auth]`` needs (Streamlit's OpenID Connect sign-in).
PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
#: The fewest characters of a cookie secret (Streamlit signs every session's cookie with it).
COOKIE_SECRET_LENGTH = 32


def checked_auth(path: str) -> Path:
    """The sign-in settings ``rankviz app --auth FILE`` hands to Streamlit (its ``[auth]`` secrets
    section), checked before the server starts, so a mistake is one line, not a page that fails at
    the first sign-in."""
    import tomllib

    file = Path(path).expanduser().resolve()
    if file.suffix != ".toml" or not file.is_file():
        raise OptionError(f"--auth {path}: no such .toml file (it holds the [auth] section)")
    try:
        auth = tomllib.loads(file.read_text(encoding="utf-8")).get("auth")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise OptionError(f"--auth {path}: not valid TOML ({exc})") from None
    if not isinstance(auth, dict):
        raise OptionError(f"--auth {path}: no [auth] section (see docs/team-server.md)")
    for key in ("redirect_uri", "cookie_secret"):
        if not isinstance(auth.get(key), str) or not auth[key]:
            raise OptionError(f"--auth {path}: [auth] needs {key}")
    if problem := _web_address(auth["redirect_uri"]):
        raise OptionError(f"--auth {path}: redirect_uri {problem}")
    if not auth["redirect_uri"].rstrip("/").endswith("/oauth2callback"):
        raise OptionError(
            f"--auth {path}: redirect_uri is the app's address followed by /oauth2callback, "
            f"e.g. https://rankviz.example.org/oauth2callback, not {auth['redirect_uri']!r}"
        )
    if len(auth["cookie_secret"]) < COOKIE_SECRET_LENGTH:
        raise OptionError(
            f"--auth {path}: cookie_secret signs every session's cookie: give at least "
            f"{COOKIE_SECRET_LENGTH} random characters (python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(32))'), not "
            f"{len(auth['cookie_secret'])}"
        )
    sections = [auth, *(v for v in auth.values() if isinstance(v, dict))]
    providers = [
        s for s in sections if all(isinstance(s.get(k), str) and s[k] for k in PROVIDER_KEYS)
    ]
    if not providers:
        raise OptionError(
            f"--auth {path}: no provider: [auth] (or an [auth.NAME] section) needs "
            + ", ".join(PROVIDER_KEYS)
        )
    for section in providers:
        if problem := _web_address(section["server_metadata_url"]):
            raise OptionError(f"--auth {path}: server_metadata_url {problem}")
    return file


def _web_address(text: str) -> str:
    """Why ``text`` is not an http(s) address with a host ("" when it is one)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        return f"is not a web address: {text!r}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"is not an http:// or https:// address with a host: {text!r}"
    return ""


#: Microsoft Entra ID's issuers: its ``xms_edov`` claim ("the address's domain owner verified it";
#: Entra sends no email_verified) counts on these alone
ENTRA_ISSUERS = (
    "login.microsoftonline.com",
    "sts.windows.net",
    "login.microsoftonline.us",
    "login.partner.microsoftonline.cn",
)


def verified(claims: Mapping[str, object]) -> bool:
    """Whether the provider vouches for the address: its ``email_verified`` when it sends one (an
    explicit false stays false, whatever else it sends; Cognito sends the string "true"), else,
    on Microsoft Entra ID alone, its ``xms_edov``."""
    if "email_verified" in claims:
        return claims["email_verified"] in (True, "true")
    issuer = urlsplit(str(claims.get("iss") or "")).hostname or ""
    return issuer in ENTRA_ISSUERS and claims.get("xms_edov") in (True, "true", 1, "1")


def vouched_address(claims: Mapping[str, object]) -> tuple[str, str]:
    """The identity a sign-in's claims give, as the roles compare it
    (:func:`~rankviz.io.access.mail_address`), and "", or "" and why they give none: no address;
    an address the provider does not say it verified (:func:`verified`: on Microsoft Entra,
    Keycloak, Okta or GitLab anyone may type another's address into a profile); something that
    is not one address (a list, two ``@``, a KELVIN SIGN that would read as a k); or an address
    whose name or domain mixes scripts (a Cyrillic ``о`` in a Latin name reads as another's)."""
    if not claims.get("email"):
        return "", (
            "Your sign-in gave no e-mail address, which this server's roles are written in: ask "
            "its administrator to request the email scope from the provider."
        )
    if not verified(claims):
        return "", (
            "Your provider did not say it verified your e-mail address (its email_verified claim "
            "is not true), so this server cannot know the address is yours: verify it with the "
            "provider, or ask this server's administrator which claim to use (docs/team-server.md)."
        )
    try:
        address = mail_address(claims.get("email"))
    except ValueError as exc:
        return "", f"Your sign-in's e-mail address cannot be used here: {exc}."
    mixed = mixed_scripts(address)
    if mixed:
        return "", (
            f"Your sign-in's e-mail address cannot be used here: its {mixed} mixes letters of "
            "several scripts, which would read as another person's address (Unicode's "
            "mixed-script rule, UTS #39)."
        )
    return address, ""


def mixed_scripts(address: str) -> str:
    """The part of an address ("name", or "domain") whose letters come from more than one script
    (UTS #39's mixed-script detection: each character's script extensions, Han with Hiragana and
    Katakana as Japanese, with Hangul as Korean, with Bopomofo as Chinese; Common and Inherited
    characters belong to every script), "" for none. An internationalised domain is read in the
    letters its ``xn--`` labels stand for, a label at a time."""
    local, _, domain = address.rpartition("@")
    if not _one_script(local):
        return "name"
    for label in domain.split("."):
        if label.startswith("xn--"):
            try:
                label = label[4:].encode("ascii").decode("punycode")
            except (UnicodeError, ValueError):
                return "domain"
        if not _one_script(label):
            return "domain"
    return ""


#: UTS #39's augmented script sets: a Japanese, Korean or Chinese name mixes these by right
_AUGMENTED = {
    "Hani": {"Hani", "Hanb", "Jpan", "Kore"},
    "Hira": {"Hira", "Jpan"},
    "Kana": {"Kana", "Jpan"},
    "Hang": {"Hang", "Kore"},
    "Bopo": {"Bopo", "Hanb"},
}


def _one_script(text: str) -> bool:
    """Whether one script can write every character of ``text`` (its resolved script set is not
    empty)."""
    from fontTools import unicodedata as scripts

    resolved: set[str] | None = None  # None: every script
    for char in text:
        found = set(scripts.script_extension(char)) - {"Zyyy", "Zinh"}  # Common, Inherited
        if not found:
            continue
        augmented = set().union(*(_AUGMENTED.get(code, {code}) for code in found))
        resolved = augmented if resolved is None else resolved & augmented
        if not resolved:
            return False
    return True


def loopback(address: str) -> bool:
    """Whether ``address`` serves this machine alone (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


#: Runs at least this large are read piece by piece, so a progress bar can move.
IN_PIECES_ABOVE = 128 * 2**20


def collection_folders(samples: Path, extra: list[str]) -> dict[str, Path]:
    """The folders (or ``irds:ID`` datasets) given, by the name a visitor sees (two folders of one
    name are numbered, never shown by their path); the sample collections in ``samples`` only when
    none is given: a server serves the collections it is given and nothing beside them."""
    found = (
        {p.name: p for p in sorted(samples.iterdir()) if (p / "runs").is_dir()}
        if samples.is_dir() and not extra
        else {}
    )
    for folder in extra:
        path = Path(folder) if is_irds(folder) else Path(folder).expanduser().resolve()
        name, n = folder if is_irds(folder) else path.name, 1
        while name in found and found[name] != path:
            n += 1
            name = f"{folder if is_irds(folder) else path.name} ({n})"
        found[name] = path
    return found


def collection_access(folder: Path) -> Access:
    """Who may see, judge and own a served collection (its collection.toml's ``[access]``), read
    without opening the collection: what a server with sign-in lists for each person."""
    return access_of(folder)


def collection_title(folder: Path) -> str:
    """What a visitor reads for a served collection: its collection.toml's name, without a file
    read beyond that one (read without opening the collection)."""
    return str(folder) if is_irds(str(folder)) else title_of(folder)


def open_served(path: str | Path) -> Collection:
    """A collection folder opened confined to itself: files linked outside it are not served."""
    return open_collection(path, confined=True)


def record_path(folder: Path, given: str | None) -> Path:
    """Where a collection's meeting record lives: ``given`` (a ``.sqlite`` file for every
    collection, or a folder with one ``<collection folder>.sqlite`` each), by default
    ``rankviz-notes.sqlite`` in the collection folder."""
    if not given:
        return folder / STORE_NAME
    path = Path(given).expanduser()
    return path if path.suffix == ".sqlite" else path / f"{folder.name}.sqlite"


def open_record(path: Path, scale: Scale, collection: str) -> tuple[MeetingStore | None, str, str]:
    """The meeting's record at ``path`` if it exists (reading never creates it), else why not; and
    why nothing can be recorded there ("" when something can)."""
    read_only = unwritable(path)
    try:
        if not path.exists():
            return None, "", read_only
        store = MeetingStore(path, create=False, scale=scale, collection=collection)
        return store, "", read_only
    except UnmadeRecord:  # its making was cut short: no entry yet, the next one completes it
        return None, "", read_only
    except (MeetingError, OSError) as exc:
        return None, record_problem(exc, path), read_only


def record_problem(exc: Exception, path: Path) -> str:
    """Why the record at ``path`` cannot be used, without the server's paths."""
    if isinstance(exc, MeetingError):
        return str(exc).replace(str(path), path.name)
    return f"the record's path cannot be used ({getattr(exc, 'strerror', None) or exc})"


def served_text(text: str, folder: Path) -> str:
    """A message about a served collection with the server's paths to it shortened to the
    folder's name: a visitor learns which file is wrong, not where the server keeps it."""
    names = {str(folder.resolve()), str(folder.absolute()), str(folder)}
    for prefix in sorted(names, key=len, reverse=True):
        text = text.replace(prefix, folder.name)
    return text


def served_qrels(source: str | bytes, filename: str | None = None) -> Qrels:
    return read_qrels(source, filename=filename)


def served_run(source: str | bytes, name: str, filename: str | None = None) -> Run:
    return read_run(source, name=name, filename=filename)


def large_run(
    source: str | bytes,
    name: str,
    filename: str | None,
    progress: Callable[[int], None],
) -> Run | None:
    """A TREC run read piece by piece (``progress``: the bytes of each piece), or None when it is
    small or a table (CSV, TSV, Parquet: read whole)."""
    label = filename or str(source)
    size = len(source) if isinstance(source, bytes) else Path(source).stat().st_size
    if size < IN_PIECES_ABOVE or label.lower().endswith((".csv", ".tsv", ".parquet")):
        return None
    return read_in_pieces(source, name=name, filename=filename, progress=progress)


def upload_content(data: bytes, filename: str, limit: int) -> bytes:
    """An upload's bytes, decompressed, refused past ``limit`` bytes (a FormatError says so)."""
    return decompressed(data, filename, limit=limit)


def served_scores(content: bytes, filename: str) -> list[Measure]:
    """An uploaded file of per-query scores (decompressed) as scores beside the runs (a gap scored
    0 until the frame says otherwise: :meth:`~rankviz.measures.score.Score.under`), named in
    messages by the upload's own name: read from a private temporary copy (the readers sniff and
    read files), which is gone when they are read."""
    import re
    import tempfile

    from rankviz.io.scores import read_scores
    from rankviz.study.reading import scores_beside

    # its own name's letters, never a path: the suffix says a Parquet file
    name = re.sub(r"[^A-Za-z0-9._-]", "_", Path(filename).name.removesuffix(".gz")).lstrip(".")
    name = name or "scores"
    with tempfile.TemporaryDirectory(prefix="rankviz-scores-") as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        return scores_beside([read_scores(path, label=filename)], EvalSettings(), NO_RULES)


def upload_name(filename: str) -> str:
    """The name an uploaded run gets: its file's, without the run suffixes."""
    return run_name_from_path(filename)


def compressed(source: str | bytes) -> bool:
    return is_gzip(source)
