"""Many runs in one app: every page starts from one pass per run (:mod:`rankviz.study.run_pass`),
kept in memory and on disk, so a restarted server shows the Overview without ordering or even
opening a run."""

from __future__ import annotations

import os
import shutil

import pytest
from apptest import shown, start
from conftest import ROOT

import rankviz as rv
from rankviz.app.caches import cache, inputs
from rankviz.io.store import RunStore, written

TE = ROOT / "tests" / "data" / "conformance" / "te_test"


def _folder(tmp_path, name: str = "scaled"):
    folder = tmp_path / name
    (folder / "runs").mkdir(parents=True)
    shutil.copy(TE / "qrels.txt", folder / "qrels.txt")
    for run in ("run_STANDARD.txt", "run_trunc.txt"):
        shutil.copy(TE / run, folder / "runs" / run)
    return folder


@pytest.mark.slow
def test_a_restarted_server_shows_the_overview_from_the_passes_kept_on_disk(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("RANKVIZ_STORE", str(tmp_path))
    cache.SHARED.clear()
    first = start("overview")
    assert not first.exception and len(list((tmp_path / "passes").glob("*.npz"))) == len(
        first.dataframe[0].value
    )
    cache.SHARED.clear()  # as after a restart: nothing in memory

    def refuse(*args, **kwargs):
        raise AssertionError("a run was opened for the Overview")

    monkeypatch.setattr(inputs, "run_file", refuse)
    again = start("overview")
    assert not again.exception and not again.error
    # means, marks, ranks, chance, checks
    for before, after in zip(first.dataframe, again.dataframe, strict=True):
        assert after.value.equals(before.value)
    assert [shown(c) for c in again.caption] == [shown(c) for c in first.caption]
    monkeypatch.undo()
    cache.SHARED.clear()


def test_a_run_file_edited_while_the_server_was_down_is_evaluated_again(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("RANKVIZ_STORE", str(tmp_path / "store"))
    folder = _folder(tmp_path)
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    at = start(collection="scaled", measures="AP")
    run = folder / "runs" / "run_STANDARD.txt"
    lines = run.read_text().splitlines(keepends=True)
    run.write_text(
        "".join(f"{line.rsplit(' ', 2)[0]} {-float(line.split()[4])!r} tag\n" for line in lines)
    )
    cache.SHARED.clear()  # restarted: what is on disk is all there is
    again = start(collection="scaled", measures="AP")
    expected = rv.evaluate(folder / "qrels.txt", run, ["AP"]).means().loc["run_STANDARD", "AP"]
    assert again.dataframe[0].value.loc["run_STANDARD", "AP"] == pytest.approx(expected, abs=1e-12)
    assert again.dataframe[0].value.loc["run_STANDARD", "AP"] != pytest.approx(
        at.dataframe[0].value.loc["run_STANDARD", "AP"]
    )
    assert (
        again.dataframe[0].value.loc["run_trunc", "AP"]
        == at.dataframe[0].value.loc["run_trunc", "AP"]
    )


def test_a_run_file_that_breaks_the_format_is_named_with_its_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RANKVIZ_STORE", str(tmp_path / "store"))
    folder = _folder(tmp_path, "broken")
    run = folder / "runs" / "run_trunc.txt"
    lines = run.read_text().splitlines(keepends=True)
    lines[4] = lines[4].replace(lines[4].split()[4], "high")
    run.write_text("".join(lines))
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    # the failure is remembered for the file as it is: the same message, not read again
    for _ in range(2):
        at = start(collection="broken", measures="AP")
        assert not at.exception
        (error,) = at.error
        assert (
            "run_trunc.txt" in shown(error)
            and "line 5" in shown(error)
            and "not a number" in shown(error)
        )
        # the server's paths are not the visitors' business
        assert str(tmp_path) not in shown(error)
    run.write_text("".join(lines[:4] + lines[5:]))  # mended: read again at once
    at = start(collection="broken", measures="AP")
    assert not at.error and set(at.dataframe[0].value.index) == {"run_STANDARD", "run_trunc"}


def test_runs_not_selected_are_not_opened(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RANKVIZ_STORE", str(tmp_path))
    cache.SHARED.clear()
    opened: list[str] = []
    real = inputs.run_file
    monkeypatch.setattr(
        inputs, "run_file", lambda key, path, name: opened.append(name) or real(key, path, name)
    )
    at = start("overview", collection="cranfield", runs="bm25,dense", measures="AP")
    assert not at.exception and list(at.dataframe[0].value.index) == ["bm25", "dense"]
    assert set(opened) == {"bm25", "dense"}
    written()
    assert len(list(RunStore(tmp_path, budget=2**30).folder.glob("runs/*.arrow"))) == 2
    del os.environ["RANKVIZ_STORE"]
    cache.SHARED.clear()


def test_each_run_is_shown_as_its_pass_arrives(tmp_path, monkeypatch) -> None:
    """From an empty store, the runs' means appear one run more at a time while the others are
    read, each as the Overview then shows it; the table is gone once the Overview is drawn."""
    from rankviz.app.frame import arriving

    monkeypatch.setenv("RANKVIZ_STORE", str(tmp_path))
    cache.SHARED.clear()
    shown_so_far: list = []
    real = arriving.show
    monkeypatch.setattr(
        arriving, "show", lambda slot, means: (shown_so_far.append(means), real(slot, means))
    )
    at = start("overview", collection="cranfield", runs="bm25,dense,rrf", measures="AP,nDCG@10")
    assert not at.exception
    assert [len(m) for m in shown_so_far] == [1, 2, 3]
    overview = at.dataframe[0].value
    last = shown_so_far[-1]
    assert set(last.index) == set(overview.index) == {"bm25", "dense", "rrf"}
    for run in last.index:
        for measure in ("AP", "nDCG@10"):
            assert last.loc[run, measure] == pytest.approx(overview.loc[run, measure], abs=1e-12)
    assert not at.get("progress")  # the bar is gone with the table
    cache.SHARED.clear()


@pytest.mark.slow
def test_the_passes_are_taken_on_a_dask_cluster(tmp_path, monkeypatch) -> None:
    """``rankviz app --scheduler ADDRESS``: the command line reaches the scheduler before the server
    starts and hands it on; the app's passes are taken by the cluster's workers (the app's own
    process may not take one), and the Overview shows the numbers the library computes."""
    distributed = pytest.importorskip("distributed")
    import rankviz.study.study
    from rankviz.cli import main
    from rankviz.study import RUN_PASS

    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        address = local.scheduler_address
        started = []
        monkeypatch.setattr(os, "execve", lambda path, command, env: started.append(command))
        assert main(["app", "--scheduler", address, "--no-browser"]) == 0
        command = started[0]
        assert command[command.index("--scheduler") + 1] == address
        assert command.index("--scheduler") > command.index("--")  # the app's, not Streamlit's

        monkeypatch.setenv("RANKVIZ_SCHEDULER", address)
        monkeypatch.setenv("RANKVIZ_STORE", str(tmp_path))
        cache.SHARED.clear()

        def refuse(*args, **kwargs):
            raise AssertionError("a pass was taken in the app's own process")

        asked = rankviz.study.study.Study.ask

        def ask_but_a_pass(study, question, /, *args, **kwargs):
            return (refuse if question is RUN_PASS else asked)(study, question, *args, **kwargs)

        monkeypatch.setattr(rankviz.study.study.Study, "ask", ask_but_a_pass)
        at = start("overview", collection="cranfield", runs="bm25,dense", measures="AP,nDCG@10")
        assert not at.exception, at.exception
        expected = rv.Study.open(
            rv.StudyRequest(ROOT / "sample_data" / "cranfield", ["bm25", "dense"], measures=["AP"])
        )
        means = at.dataframe[0].value
        for run in ("bm25", "dense"):
            assert means.loc[run, "AP"] == pytest.approx(
                expected.evaluation().mean("AP", run), abs=1e-12
            )
    # restarted, its scheduler gone: the passes the cluster took are on disk, and no pass is missing
    cache.SHARED.clear()
    monkeypatch.setenv("RANKVIZ_SCHEDULER", "tcp://127.0.0.1:1")
    again = start("overview", collection="cranfield", runs="bm25,dense", measures="AP,nDCG@10")
    assert not again.exception, again.exception
    assert not again.error, [e.value for e in again.error]
    assert again.dataframe[0].value.equals(means)
    cache.SHARED.clear()


@pytest.mark.slow
def test_an_unreachable_scheduler_stops_rankviz_app_in_one_line(monkeypatch, capsys) -> None:
    pytest.importorskip("distributed")
    from rankviz.cli import main
    from rankviz.evaluation import dask_engine

    monkeypatch.setattr(dask_engine, "CONNECT_SECONDS", 1.0)  # refused at once, retried till then
    started = []
    monkeypatch.setattr(os, "execve", lambda path, command, env: started.append(command))
    assert main(["app", "--scheduler", "tcp://127.0.0.1:1", "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert not started and len(err.strip().splitlines()) == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in err


def test_a_run_rewritten_within_the_second_of_its_read_is_never_served_stale(
    tmp_path, monkeypatch
) -> None:
    """A file system of one-second times (ext3, FAT, many NFS mounts), simulated: every time of
    the runs' files is one instant T, as a rewrite within T's second leaves them. The run read at
    T + 0.5 s and rewritten in place (the same length, other scores) kept its stamp: the app
    showed the old AP, after a restart too (the disk store kept it). A stamp not older than the
    resolution when taken is never trusted (git's racy rule): read again, stored once settled."""
    import os
    import re
    import time

    from rankviz.io import stamps

    monkeypatch.setenv("RANKVIZ_STORE", str(tmp_path / "store"))
    folder = _folder(tmp_path)
    monkeypatch.setattr("sys.argv", ["app.py", "--data", str(folder)])
    runs = str(folder / "runs")
    instant = time.time_ns() // 10**9 * 10**9
    real_stat = os.stat

    def one_second_times(path, *args, **kwargs):
        found = real_stat(path, *args, **kwargs)
        if not str(path).startswith(runs):
            return found
        times = {"st_atime_ns": instant, "st_mtime_ns": instant, "st_ctime_ns": instant}
        return os.stat_result(tuple(found)[:7] + (instant // 10**9,) * 3, times)

    monkeypatch.setattr(os, "stat", one_second_times)
    clock = [instant + 500_000_000]
    monkeypatch.setattr(stamps, "_now", lambda: clock[0])
    cache.SHARED.clear()
    at = start(collection="scaled", measures="AP")
    run = folder / "runs" / "run_STANDARD.txt"
    lines = run.read_text().splitlines(keepends=True)
    scores = [line.split()[4] for line in lines]
    fields = [re.split(r"(\s+)", line) for line in lines]  # the separators kept
    for line, score in zip(fields, _reversed_within_queries(lines, scores), strict=True):
        line[8] = score  # each query's scores reversed: the same bytes, in another order
    rewritten = "".join("".join(line) for line in fields)
    assert len(rewritten) == len("".join(lines)) and rewritten != "".join(lines)
    before = os.stat(run)
    with open(run, "r+") as handle:  # in place: the same inode
        handle.write(rewritten)
    assert stamps.stamp(run) == (before.st_mtime_ns, before.st_size, before.st_ino, instant)
    clock[0] = instant + 3 * 10**9  # the stamp has settled
    expected = rv.evaluate(folder / "qrels.txt", run, ["AP"]).means().loc["run_STANDARD", "AP"]
    assert expected != pytest.approx(at.dataframe[0].value.loc["run_STANDARD", "AP"])
    at.run()
    assert at.dataframe[0].value.loc["run_STANDARD", "AP"] == pytest.approx(expected, abs=1e-12)
    cache.SHARED.clear()  # restarted: what is on disk is all there is
    again = start(collection="scaled", measures="AP")
    assert again.dataframe[0].value.loc["run_STANDARD", "AP"] == pytest.approx(expected, abs=1e-12)
    cache.SHARED.clear()


def _reversed_within_queries(lines: list[str], scores: list[str]) -> list[str]:
    """The score column with each query's scores in reverse order."""
    out, start_at = [], 0
    for i in range(1, len(lines) + 1):
        if i == len(lines) or lines[i].split()[0] != lines[start_at].split()[0]:
            out += scores[start_at:i][::-1]
            start_at = i
    return out
