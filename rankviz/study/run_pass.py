"""One pass over one run for what every page of the app shows of it first: its values under the
measures, its chance level, the share of its top K judged and the checks' facts.

Twenty MS MARCO-sized runs must not keep twenty ranking tables (270 MB each) in memory: each run is
ordered once, every number above is taken from that table, and the table is dropped. What stays is a
few arrays of per-query values, which assemble into the evaluation of all the runs
(:func:`rankviz.evaluation.evaluate.assemble`) and which a front end keeps on disk
(:meth:`RunPass.to_arrays`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from rankviz.evaluation.assembly import TableValues
from rankviz.evaluation.run_facts import RunFacts
from rankviz.io.packed_ids import ids_as_arrays, ids_from_arrays

FORMAT = "6"  # bump when what a pass holds changes: older files on disk are then ignored


@dataclass(frozen=True, eq=False)
class RunPass:
    """What one pass over a run's table found (see the module's docstring)."""

    values: TableValues  # the study's measures under its settings
    # the same measures over each query's retrieved documents in a random order (exactly)
    chance: TableValues
    judged: float  # the share of the top K judged (:func:`rankviz.analyses.unjudged.judged_share`)
    facts: RunFacts | None  # what the checks need, when asked for

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Plain NumPy arrays (no objects: loading them needs no pickle; the query ids as
        :func:`~rankviz.io.packed_ids.ids_as_arrays` keeps them)."""
        arrays = ids_as_arrays("qids", self.values.qids)
        arrays["answered"] = self.values.answered
        if self.values.qid_rank is not None:  # the queries' strcmp order, not sorted again
            arrays["qid_rank"] = self.values.qid_rank
        arrays |= {f"value:{k}": v for k, v in self.values.values.items()}
        arrays |= {f"chance:{k}": v for k, v in self.chance.values.items()}
        facts = None
        if self.facts is not None:
            facts, per_query = self.facts.to_parts()
            arrays |= {f"facts:{k}": v for k, v in per_query.items()}
        meta = {
            "format": FORMAT,
            "judged": self.judged,
            "ignored": list(self.values.ignored),
            "facts": facts,
        }
        return arrays | {"meta": np.array(json.dumps(meta))}

    @staticmethod
    def from_arrays(arrays: Mapping[str, np.ndarray]) -> RunPass:
        """The pass :meth:`to_arrays` wrote; ValueError for another format."""
        meta = json.loads(str(arrays["meta"]))
        if meta.get("format") != FORMAT:
            raise ValueError("another format")
        qids = ids_from_arrays("qids", arrays)
        answered = np.asarray(arrays["answered"], dtype=bool)
        ignored = tuple(meta["ignored"])
        qid_rank = np.asarray(arrays["qid_rank"]) if "qid_rank" in arrays else None

        def part(prefix: str) -> TableValues:
            values = {
                k.removeprefix(prefix): np.asarray(v)
                for k, v in arrays.items()
                if k.startswith(prefix)
            }
            return TableValues(qids, answered, values, ignored, qid_rank=qid_rank)

        facts = (
            None
            if meta["facts"] is None
            else RunFacts.from_parts(
                meta["facts"],
                {k.removeprefix("facts:"): v for k, v in arrays.items() if k.startswith("facts:")},
            )
        )
        return RunPass(part("value:"), part("chance:"), float(meta["judged"]), facts)
