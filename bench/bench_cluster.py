"""A cluster that reads its own files: the client's CPU of ``rankviz evaluate --engine dask
--scheduler ADDRESS`` against the whole in-memory evaluation of the same run (goal: <= 0.2x).

Starts a ``dask scheduler`` and two ``dask worker`` processes (one thread each) on this machine,
which reach the run at its path (a shared file system, as a cluster's machines share one); the
client plans byte ranges of whole queries and gathers per-query values. The run: 20,000 queries x
1,000 documents (20M lines, ``D%07d`` docids; generated once under bench/data/ by
bench_scale.py's generator). Each command runs in its own process; CPU is user + system of that
process (the client starts no other), beside wall time; the workers' CPU is printed too. Two
outputs, each compared by SHA-256 with the memory engine's: the means (what the goal counts: the
cluster's work) and every per-query value (``--per-query --format tsv``: 140,000 numbers that
the client prints, as the memory engine does). Asserts nothing.

``--worker-settings rankviz`` starts the workers with the memory settings of the workers
``--workers N`` starts (glibc's freed blocks kept, numpy's arrays in small pages: the environment
docs/cli.md gives for a cluster's workers) instead of Dask's own.

    python bench/bench_cluster.py [--repeat N] [--worker-settings dask|rankviz]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from bench_scale import MEASURES, generate

SHAPE = (20_000, 1_000)
RUNNER = """
import hashlib, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True)
wall = time.perf_counter() - start
if done.returncode:
    sys.exit(done.stderr.decode()[-800:])
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(used.ru_utime + used.ru_stime, wall, hashlib.sha256(done.stdout).hexdigest())
"""


def measure(command: list[str]) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, SHA-256 of stdout) of one command in its own process."""
    done = subprocess.run([sys.executable, "-c", RUNNER, *command], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{command[3:8]} failed: {done.stderr}")
    cpu, wall, digest = done.stdout.split()
    return float(cpu), float(wall), digest


def tree_cpu(processes: list[subprocess.Popen]) -> float:
    """CPU seconds so far of the processes and their children (a worker's nanny and its worker)."""
    total = 0.0
    for process in processes:
        parent = psutil.Process(process.pid)
        for each in [parent, *parent.children(recursive=True)]:
            times = each.cpu_times()
            total += times.user + times.system
    return total


def start_cluster(folder: Path, settings: str) -> tuple[str, list[subprocess.Popen]]:
    address_file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        [
            *dask,
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--dashboard-address",
            ":0",
            "--scheduler-file",
            str(address_file),
        ],
        **quiet,
    )
    while not address_file.exists():
        if scheduler.poll() is not None:
            raise RuntimeError("dask scheduler exited")
        time.sleep(0.05)
    workers = [
        subprocess.Popen(
            [
                *dask,
                "worker",
                "--scheduler-file",
                str(address_file),
                "--nthreads",
                "1",
                "--no-dashboard",
                "--memory-limit",
                "0",
            ],
            env=worker_environment() if settings == "rankviz" else None,
            **quiet,
        )
        for _ in range(2)
    ]
    from distributed import Client

    with Client(scheduler_file=str(address_file), timeout="60s") as client:
        client.wait_for_workers(2, timeout=300)
        return client.scheduler.address, [scheduler, *workers]


def worker_environment() -> dict[str, str]:
    """This process's environment with the settings rankviz gives the workers it starts, and
    glibc's trim at the threshold they set instead of Dask's (a worker's nanny reads
    ``MALLOC_TRIM_THRESHOLD_`` from the environment before its own default)."""
    from rankviz._memory import TRIM_THRESHOLD, owned_process_settings

    trim = {"MALLOC_TRIM_THRESHOLD_": str(TRIM_THRESHOLD)}
    return {**os.environ, **owned_process_settings(), **trim}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="rounds; the quietest is kept")
    parser.add_argument(
        "--worker-settings",
        choices=["dask", "rankviz"],
        default="dask",
        help="the workers' memory settings: Dask's own, or those of the workers rankviz starts",
    )
    args = parser.parse_args()
    qrels, run = generate("cluster", shape=SHAPE)
    lines = SHAPE[0] * SHAPE[1]
    print(f"run: {lines:,} lines ({run.stat().st_size / 1e9:.2f} GB), docids D%07d")
    base = [
        sys.executable,
        "-m",
        "rankviz",
        "evaluate",
        str(qrels),
        str(run),
    ]
    for m in MEASURES:
        base += ["-m", m]
    # what any client process costs before it reads a byte: Python, rankviz's command line, Dask
    importing = [sys.executable, "-c", "import rankviz.cli.commands, distributed"]
    start = min(measure(importing) for _ in range(args.repeat))
    print(f"a process that imports rankviz's command line and distributed: {start[0]:.2f} CPU-s")
    outputs = {"means": [], "per query": ["--per-query", "--format", "tsv"]}
    with tempfile.TemporaryDirectory() as folder:
        address, processes = start_cluster(Path(folder), args.worker_settings)
        try:
            for output, flags in outputs.items():
                memory, client, workers = [], [], []
                for _ in range(args.repeat):
                    memory.append(measure([*base, *flags, "--engine", "memory"]))
                    before = tree_cpu(processes[1:])
                    client.append(
                        measure([*base, *flags, "--engine", "dask", "--scheduler", address])
                    )
                    workers.append(tree_cpu(processes[1:]) - before)
                report(output, memory, client, workers, start[0])
        finally:
            for process in processes:
                process.terminate()


def report(output: str, memory: list, client: list, workers: list[float], start: float) -> None:
    mem, cli = min(memory), min(client)
    same = all(digest == memory[0][2] for _, _, digest in memory + client)
    print(f"\n== {output}")
    print(f"memory engine:       {mem[0]:6.2f} CPU-s ({mem[1]:.2f} s wall)")
    print(
        f"dask client:         {cli[0]:6.2f} CPU-s ({cli[1]:.2f} s wall); "
        f"its 2 workers {min(workers):.2f} CPU-s"
    )
    print(
        f"client / memory CPU: {cli[0] / mem[0]:.2f}x (goal <= 0.2x); outputs "
        f"{'identical' if same else 'DIFFERENT'}"
    )
    print(f"client beyond its start: {cli[0] - start:.2f} CPU-s ({(cli[0] - start) / mem[0]:.2f}x)")


if __name__ == "__main__":
    main()
