"""``ties="run"``: each ranking follows the run file's rank column, then its file order, whether
the file lists its lines by rank (as runs are written: no reordering at all) or in any other
order."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import rankviz as rv
from rankviz.ranking.ordering import rank


def _lines(seed: int) -> list[tuple[str, str, int, float]]:
    rng = random.Random(seed)
    lines = []
    for q in range(4):
        for i in range(rng.randint(1, 12)):
            # ranks that disagree with the scores, repeated ranks, tied scores
            lines.append((f"q{q}", f"d{q}-{i}", rng.randint(1, 6), float(rng.choice([1, 2, 3]))))
    return lines


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("listed", ["by rank", "shuffled"])
def test_the_rank_column_then_file_order_decides(tmp_path: Path, seed: int, listed: str) -> None:
    lines = _lines(seed)
    if listed == "by rank":
        lines.sort(key=lambda line: (line[0], line[2]))
    else:
        random.Random(seed + 100).shuffle(lines)
    path = tmp_path / "run"
    path.write_text("".join(f"{q} Q0 {d} {r} {s} t\n" for q, d, r, s in lines))
    judged = {(q, d) for q, d, _, _ in lines[::2]} | {(q, f"{q}-judged") for q, _, _, _ in lines}
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} 1\n" for q, d in sorted(judged)))
    table = rank(rv.read_run(path), rv.read_qrels(tmp_path / "qrels"), ties="run")
    for qid in sorted({q for q, _, _, _ in lines}):
        mine = [(i, line) for i, line in enumerate(lines) if line[0] == qid]
        expected = [d for _, (_, d, _, _) in sorted(mine, key=lambda item: (item[1][2], item[0]))]
        rows = table.query_rows(qid)
        assert table.docids(np.arange(rows.start, rows.stop)).tolist() == expected
        groups = table.tie_group[rows]
        scores = table.score[rows]
        for a in range(len(expected)):
            for b in range(len(expected)):
                assert (groups[a] == groups[b]) == (scores[a] == scores[b])
