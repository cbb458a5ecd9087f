"""The memory of one app server shared by 8 browser sessions, and how it is given back.

Builds the collection of ``bench_app_rerun.py`` (two MS MARCO dev-sized runs, under bench/data/),
starts ``streamlit run app.py -- --data`` on it, then opens 8 browser sessions (Debian's chromium
through Playwright) that each visit four pages; one more session uploads a third MS MARCO-sized run
(gzipped) and views two pages with it, and then closes. Prints the server's resident memory (from
/proc) after each step, the rerun time another session sees while the upload is parsed, and the
memory once every session has closed. Nothing here is a pass/fail assertion.

    python bench/bench_server_memory.py [--cache-mb N]
"""

from __future__ import annotations

import argparse
import gzip
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_app_rerun import collection  # noqa: E402

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
PAGES = ("", "deltas?baseline=first&run=second", "significance", "ties")


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_server(folder: Path, env: dict) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
    ]
    command += ["--", "--data", str(folder)]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return process, url
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("the server did not start")


def settle(page) -> None:
    """Wait until the page's script has finished (the running-man status widget gone, twice in a
    row)."""
    page.wait_for_selector('[data-testid="stApp"]')
    for _ in range(2):
        page.wait_for_timeout(1000)
        page.wait_for_function(
            "!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=600_000
        )


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache-mb",
        type=int,
        default=None,
        help="RANKVIZ_CACHE_MB of the server (default: its own)",
    )
    args = parser.parse_args()
    folder = collection()
    upload = HERE / "data" / "third.run.gz"
    if not upload.exists():
        upload.write_bytes(
            gzip.compress(
                (folder / "runs" / "second.run").read_bytes().replace(b" bench", b" third"), 1
            )
        )
    env = {"RANKVIZ_CACHE_MB": str(args.cache_mb)} if args.cache_mb else {}
    process, url = start_server(folder, env)
    pid = process.pid
    print(f"server started: {rss_mb(pid):7.0f} MB")
    query = f"collection={folder.name}&measures=RR@10,AP,nDCG@10"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
            )
            contexts = []
            for session in range(8):
                context = browser.new_context(viewport={"width": 1280, "height": 720})
                page = context.new_page()
                page.set_default_timeout(600_000)
                for path in PAGES:
                    separator = "&" if "?" in path else "?"
                    page.goto(f"{url}/{path}{separator}{query}")
                    settle(page)
                contexts.append(context)
                print(f"session {session + 1} viewed {len(PAGES)} pages: {rss_mb(pid):7.0f} MB")
            uploader = browser.new_context(viewport={"width": 1280, "height": 720})
            page = uploader.new_page()
            page.set_default_timeout(600_000)
            page.goto(f"{url}/?{query}")
            settle(page)
            other = contexts[0].pages[0]
            page.get_by_text("Add your own runs and qrels").click()
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
                str(upload)
            )
            # the upload is being received and parsed: another session reloads meanwhile
            time.sleep(1.0)
            start = time.perf_counter()
            other.reload()
            settle(other)
            meanwhile = time.perf_counter() - start
            settle(page)
            page.get_by_text("third").first.wait_for()
            print(
                f"a 7M-line run uploaded ({upload.stat().st_size / 1e6:.0f} MB gzip): "
                f"{rss_mb(pid):7.0f} MB; "
                f"another session's reload meanwhile took {meanwhile:.1f} s"
            )
            page.goto(f"{url}/deltas?{query}&runs=first,second,third&baseline=first&run=third")
            settle(page)
            print(f"the upload viewed on the deltas page: {rss_mb(pid):7.0f} MB")
            uploader.close()
            for context in contexts:
                context.close()
            browser.close()
        time.sleep(150)  # Streamlit drops a disconnected session's state after its TTL
        print(
            f"every session closed (150 s later): {rss_mb(pid):7.0f} MB; peak "
            f"{rss_mb(pid, 'VmHWM'):7.0f} MB"
        )
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    main()
