"""One pass over one run for what every page of the app shows of it first: its values under the
measures, its chance level, the share of its top K judged and the checks' facts.

Twenty MS MARCO-sized runs must not keep twenty ranking tables (270 MB each) in memory: each run is
ordered once, every number above is taken from that table, and the table is dropped. What stays is a
few arrays of per-query values, which assemble into the evaluation of all the runs
(:func:`rankviz.evaluate.assemble`) and which a front end keeps on disk (:meth:`RunPass.to_arrays`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankviz.analyses.unjudged import judged_share
from rankviz.evaluate import TableValues, assemble, table_values, tie_seed
from rankviz.ranking import chance_table
from rankviz.run_facts import RunFacts, gather, sample_stride
from rankviz.tie_policy import EXPECTED, TREC_EVAL

if TYPE_CHECKING:
    from rankviz.evaluation import Evaluation
    from rankviz.study import Study

FORMAT = "1"  # bump when what a pass holds changes: older files on disk are then ignored


@dataclass(frozen=True, eq=False)
class RunPass:
    """What one pass over a run's table found (see the module's docstring)."""

    values: TableValues  # the study's measures under its settings
    # the same measures over each query's retrieved documents in a random order (exactly)
    chance: TableValues
    judged: float  # the share of the top K judged (:func:`rankviz.analyses.unjudged.judged_share`)
    facts: RunFacts | None  # what the checks need, when asked for

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Plain NumPy arrays (no objects: loading them needs no pickle)."""
        arrays = {"qids": self.values.qids.astype(str), "answered": self.values.answered}
        arrays |= {f"value:{k}": v for k, v in self.values.values.items()}
        arrays |= {f"chance:{k}": v for k, v in self.chance.values.items()}
        meta = {
            "format": FORMAT,
            "judged": self.judged,
            "ignored": list(self.values.ignored),
            "facts": None if self.facts is None else self.facts.to_dict(),
        }
        return arrays | {"meta": np.array(json.dumps(meta))}

    @staticmethod
    def from_arrays(arrays: Mapping[str, np.ndarray]) -> RunPass:
        """The pass :meth:`to_arrays` wrote; ValueError for another format."""
        meta = json.loads(str(arrays["meta"]))
        if meta.get("format") != FORMAT:
            raise ValueError("another format")
        qids, answered = (
            np.asarray(arrays["qids"]).astype(object),
            np.asarray(arrays["answered"], dtype=bool),
        )
        ignored = tuple(meta["ignored"])

        def part(prefix: str) -> TableValues:
            values = {
                k.removeprefix(prefix): np.asarray(v)
                for k, v in arrays.items()
                if k.startswith(prefix)
            }
            return TableValues(qids=qids, answered=answered, values=values, ignored=ignored)

        facts = None if meta["facts"] is None else RunFacts.from_dict(meta["facts"])
        return RunPass(part("value:"), part("chance:"), float(meta["judged"]), facts)


def run_pass(study: Study, name: str, *, k: int, facts_k: int | None = None) -> RunPass:
    """One run of ``study`` in one pass: its table under the study's tie policy (and, when that
    policy orders otherwise, in trec_eval's order for the chance level and the facts), then every
    number.
    ``k``: the top K of the judged share; ``facts_k``: gather the checks' facts at that K (the
    study's qrels must then be the qrels file the checks compare with). Not under random ties (their
    draws are shared by every run of an evaluation)."""
    settings = study.settings
    if settings.ties.sampled:
        raise ValueError("a run's pass is not taken under random ties")
    table = study.table(name)
    base = table if settings.ties.in_trec_eval_order else study.table(name, TREC_EVAL)
    values = table_values(table, study.measures, settings, tie_seed(settings))
    chance = table_values(chance_table(base), study.measures, settings.replace(ties=EXPECTED), 0)
    facts = None
    if facts_k is not None:
        run = study.runs[name]
        facts = gather(
            run,
            base,
            study.qrels.doc_ids,
            k=facts_k,
            rel=settings.rel,
            stride=sample_stride(len(run)),
        )
    return RunPass(values, chance, judged_share(table, k), facts)


def assembled(
    passes: Sequence[tuple[str, RunPass]], study: Study, *, chance: bool = False
) -> Evaluation:
    """The evaluation of these runs (``chance``: their chance level) from their passes: what
    :meth:`Study.evaluation` (:meth:`Study.chance`) gives for them."""
    settings = study.settings.replace(ties=EXPECTED) if chance else study.settings
    gathered = [(name, found.chance if chance else found.values) for name, found in passes]
    return assemble(
        gathered,
        list(study.measures),
        settings,
        qrels_qids=study.qrels.query_ids,
        groups=study.groups,
        weights=study.weights,
    )
