"""Document texts at MS MARCO scale: the one-time index of a generated 8.8M-document ``docs.tsv``,
then single-text lookups, against ir_datasets' docs store (the field's reference for texts by id)
built from the same file in the same run.

Generates (once, under bench/data/docs/; for timing only) ``docs.tsv`` with 8,841,823 passages of
20-60 words (MS MARCO passage's count and about its lengths; ids 0..N-1 as in its collection.tsv).
Then, each in a fresh process whose peak resident memory is its own ``VmHWM``:

1. rankviz's index build (``DocumentTexts.build``) and ir_datasets' docs store build (``TsvDocs``'s
   lz4 store, on the same file);
2. 1,000 lookups of one random id each (seeded), by each, on a new process (the pages in the
   operating system's cache, as on a server): the median and the slowest, in milliseconds.

Prints every number and the ratios rankviz / ir_datasets; asserts nothing.

    python bench/bench_docs.py [--docs N] [--lookups N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
MS_MARCO_PASSAGES = 8_841_823

BUILD_RANKVIZ = """
import json, sys, time
from rankviz.io.docs import DocumentTexts
PEAK
start = time.perf_counter()
DocumentTexts(sys.argv[1], folder=sys.argv[2]).build()
print(json.dumps({"seconds": time.perf_counter() - start, "peak": peak()}))
"""

LOOKUP_RANKVIZ = """
import json, sys, time
from rankviz.io.docs import DocumentTexts
PEAK
docs = DocumentTexts(sys.argv[1], folder=sys.argv[2])
times = []
for doc_id in json.loads(sys.argv[3]):
    start = time.perf_counter()
    found = docs.get([doc_id])
    times.append(time.perf_counter() - start)
    assert found[doc_id]["text"]
print(json.dumps({"times": times, "peak": peak()}))
"""

IRDS = """
import json, os, sys, time
PEAK
os.environ["IR_DATASETS_HOME"] = sys.argv[2]
from ir_datasets.formats import TsvDocs
from ir_datasets.util import LocalDownload
docs = TsvDocs(LocalDownload(sys.argv[1]), docstore_size_hint={size})
start = time.perf_counter()
store = docs.docs_store()
store.build()
built = time.perf_counter() - start
ids = json.loads(sys.argv[3])
times = []
for doc_id in ids if sys.argv[4] == "lookup" else []:
    start = time.perf_counter()
    doc = store.get(doc_id)
    times.append(time.perf_counter() - start)
    assert doc.text
print(json.dumps({"seconds": built, "times": times, "peak": peak()}))
"""

#: The process's own peak resident memory (VmHWM: a forked child's getrusage would report its
#: parent's).
PEAK = """
def peak():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
"""
BUILD_RANKVIZ, LOOKUP_RANKVIZ, IRDS = (
    script.replace("PEAK", PEAK) for script in (BUILD_RANKVIZ, LOOKUP_RANKVIZ, IRDS)
)

WORDS = np.array(
    "the of and to in a is that for it as was with be by on not he this are or his from at which "
    "but have an "
    "they you were her she there one all we their been has would more when if will about can what "
    "so up "
    "out them other some into than its only time could new these two may first then do any like my "
    "now "
    "over such our man me even most made after also did many before must through back years where "
    "much "
    "your way well down should because each just those people how too little state good very make "
    "world "
    "still own see men work long get here between both life being under never day same another "
    "know while "
    "last might us great old year off come since against go came right used take three".split()
)


def generate(path: Path, n: int) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    temporary = path.with_suffix(".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        for start in range(0, n, 100_000):
            size = min(100_000, n - start)
            lengths = rng.integers(20, 61, size)
            words = WORDS[rng.integers(0, len(WORDS), int(lengths.sum()))]
            cuts = np.cumsum(lengths)[:-1]
            handle.writelines(
                f"{start + i}\t{' '.join(part)}\n" for i, part in enumerate(np.split(words, cuts))
            )
    temporary.replace(path)


def run(script: str, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=MS_MARCO_PASSAGES)
    parser.add_argument("--lookups", type=int, default=1000)
    parser.add_argument(
        "--keep-indexes", action="store_true", help="time the lookups on the indexes built before"
    )
    args = parser.parse_args()
    folder = HERE / "data" / "docs"
    path = folder / f"docs-{args.docs}.tsv"
    generate(path, args.docs)
    ids = json.dumps(
        [str(i) for i in np.random.default_rng(1).integers(0, args.docs, args.lookups)]
    )
    rankviz_store, irds_home = folder / f"rankviz-{args.docs}", folder / f"irds-{args.docs}"
    mb = 1024 * 1024
    print(f"{args.docs:,} documents, {path.stat().st_size / mb:,.0f} MB ({path.name})")
    script = IRDS.replace("{size}", str(path.stat().st_size))
    if not args.keep_indexes:
        import shutil

        for stale in rankviz_store.glob("*.sqlite"):
            stale.unlink()
        # ir_datasets keeps a local file's store beside it
        for stale in (irds_home, path.with_name(path.name + ".pklz4")):
            shutil.rmtree(stale, ignore_errors=True)
        ours = run(BUILD_RANKVIZ, str(path), str(rankviz_store))
        side = sum(p.stat().st_size for p in rankviz_store.glob("*.sqlite"))
        print(
            f"rankviz index: built in {ours['seconds']:.1f} s, peak {ours['peak'] / mb:,.0f} MB, "
            f"side file {side / mb:,.0f} MB"
        )
        theirs = run(script, str(path), str(irds_home), "[]", "build")
        print(
            f"ir_datasets docs store: built in {theirs['seconds']:.1f} s, peak "
            f"{theirs['peak'] / mb:,.0f} MB"
        )
        print(
            f"ratio of the builds rankviz / ir_datasets: {ours['seconds'] / theirs['seconds']:.2f}"
        )
    ours_lookup = run(LOOKUP_RANKVIZ, str(path), str(rankviz_store), ids)
    theirs_lookup = run(script, str(path), str(irds_home), ids, "lookup")
    for name, result in (("rankviz", ours_lookup), ("ir_datasets", theirs_lookup)):
        times = np.array(result["times"]) * 1000
        print(
            f"{name}: one text by id: median {np.median(times):.2f} ms, slowest "
            f"{times.max():.1f} ms "
            f"({len(times):,} lookups), peak {result['peak'] / mb:,.0f} MB"
        )
    print(
        f"ratio of the median lookups rankviz / ir_datasets: "
        f"{np.median(ours_lookup['times']) / np.median(theirs_lookup['times']):.2f}"
    )


if __name__ == "__main__":
    main()
