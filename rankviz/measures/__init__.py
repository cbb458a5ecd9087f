"""Measures: one module per family (spec + vectorised kernels); see :mod:`rankviz.measures.spec`.

Each family describes itself (definition, convention, parameters), and :func:`describe_families`
turns those descriptions into the measure table of docs/measures.md, ``rankviz measures`` and the
app.
"""

# registered in the order every table lists them
from rankviz.measures import rr, hits, ap, precision, recall, ndcg, err, rprec  # noqa: F401, I001
from rankviz.measures import bpref, rbp, judged, num_ret, num_rel, num_rel_ret  # noqa: F401, I001
from rankviz.measures import set_p, set_r, set_f, set_ap, num_nonrel_judged_ret  # noqa: F401, I001
from rankviz.measures import ncg, iprec, infap, bing, utility  # noqa: F401, I001
from rankviz.measures import iprec_avg, g, ndcg_rel, rndcg  # noqa: F401, I001
from rankviz.measures import dcg, ideal_dcg, unjudged_share, log_ap, rbp_resid, yaap  # noqa: F401, I001
from rankviz.measures import diversity, judgment_groups, preferences  # noqa: F401, I001
from rankviz.measures.spec import (
    FAMILIES,
    Family,
    Measure,
    Param,
    expand,
    make,
    parse,
    refuse_without_closed_form,
)
from rankviz.measures.spellings import split_names, trec_eval_cutoffs
from rankviz.settings.eval_settings import JUDGED_ONLY


def describe_families() -> list[tuple[str, str, str, str]]:
    """One row per family: how it is written, its definition, its convention, its parameters."""
    rows = []
    for family in FAMILIES.values():
        # every condensable family takes it: said once
        own = [p for p in family.params if p is not JUDGED_ONLY]
        params = (
            "; ".join(
                (
                    f"`{p.name}` (after @)"
                    if p.name == family.at_param
                    else f"`{p.name}={p.default}`"
                    if p.default is not None
                    else f"`{p.name}` (none)"
                )
                + f": {p.doc}{_values(p)}"
                for p in own
            )
            or "none"
        )
        rows.append((family.names, family.definition, family.convention, params))
    return rows


def _values(param: Param) -> str:
    meanings = [f"{value}: {meaning}" for value, meaning in param.meanings.items() if meaning]
    return f" ({'; '.join(meanings)})" if meanings else ""


def markdown_table() -> str:
    """The measure table of docs/measures.md (tests/unit/test_docs.py keeps it in step)."""
    lines = ["| measure | definition | convention (default) | parameters |", "|---|---|---|---|"]
    lines += [
        "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
        for row in describe_families()
    ]
    condensable = ", ".join(f"`{f.name}`" for f in FAMILIES.values() if f.condensable)
    said = f"These families also take `judged_only=True` ({condensable}): {JUDGED_ONLY.doc}."
    lines += ["", said]
    return "\n".join(lines) + "\n"


__all__ = [
    "FAMILIES",
    "Family",
    "Measure",
    "Param",
    "describe_families",
    "expand",
    "make",
    "markdown_table",
    "parse",
    "refuse_without_closed_form",
    "split_names",
    "trec_eval_cutoffs",
]
