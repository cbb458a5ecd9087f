"""trec_eval 10's names: its measures in its order, its nicknames (``official``, ``all_trec``),
which rankviz family or computation answers each, and its parameters as it reads them
(``P.5,10``, ``iprec_at_recall..10,.5``, ``ndcg.1=3,2=9``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rankviz.errors import OptionError
from rankviz.measures.judgment_groups import DEFAULTS
from rankviz.measures.spellings import CUTOFFS
from rankviz.trec_eval import measures as trec_eval_measures
from rankviz.trec_eval.measures import MEASURES as PORTED

GROUPED = tuple(DEFAULTS)  # the judgment-group measures, read from -R qrels_jg

#: trec_eval's measures in the order it prints them (its ``te_trec_measures``)
ORDER = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P "
    "relstring recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G dcg ideal_dcg ndcg "
    "ndcg_rel Rndcg ndcg_cut map_cut relative_P success set_P set_relative_P set_recall set_map "
    "set_F num_nonrel_judged_ret prefs_num_prefs_poss prefs_num_prefs_ful "
    "prefs_num_prefs_ful_ret prefs_simp prefs_pair prefs_avgjg prefs_avgjg_Rnonrel prefs_simp_ret "
    "prefs_pair_ret prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp "
    "prefs_avgjg_imp map_avgjg P_avgjg Rprec_mult_avgjg yaap rbp rbp_resid unj"
).split()
#: trec_eval's nicknames for sets of measures (its ``te_trec_measure_nicknames``)
NICKNAMES = {
    "official": "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
    "iprec_at_recall P".split(),
    "set": "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall set_relative_P "
    "set_map set_F".split(),
    "all_trec": "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
    "iprec_at_recall P relstring recall unj rbp rbp_resid infAP gm_bpref utility 11pt_avg ndcg "
    "relative_P Rprec_mult success map_cut ndcg_cut ndcg_rel Rndcg binG G set_P set_recall "
    "set_relative_P set_map set_F num_nonrel_judged_ret".split(),
    "all_prefs": "runid num_q prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret "
    "prefs_simp prefs_pair prefs_avgjg prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret "
    "prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp prefs_avgjg_imp".split(),
    "prefs": "runid num_q prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret "
    "prefs_simp prefs_pair prefs_avgjg".split(),
    "qrels_jg": "runid num_q map_avgjg P_avgjg Rprec_mult_avgjg".split(),
}
RECALL_LEVELS = tuple(i / 10 for i in range(11))
#: what rankviz computes: the family of each trec_eval measure, and its default parameters
FAMILIES = {
    "num_ret": ("NumRet", ()),
    "num_rel": ("NumRel", ()),
    "num_rel_ret": ("NumRelRet", ()),
    "map": ("AP", ()),
    "Rprec": ("Rprec", ()),
    "bpref": ("Bpref", ()),
    "recip_rank": ("RR", ()),
    "P": ("P", CUTOFFS),
    "recall": ("R", CUTOFFS),
    "ndcg": ("nDCG", ()),
    "ndcg_cut": ("nDCG", CUTOFFS),
    "map_cut": ("AP", CUTOFFS),
    "success": ("Hits", (1, 5, 10)),
    "set_P": ("SetP", ()),
    "set_relative_P": ("SetP(relative=True)", ()),
    "set_recall": ("SetR", ()),
    "set_map": ("SetAP", ()),
    "set_F": ("SetF", ()),
    "relative_P": ("P(relative=True)", CUTOFFS),
    "num_nonrel_judged_ret": ("NumNonRelJudgedRet", ()),
    # trec_eval's own measures the catalogue computes to its last digit, whatever their parameters
    # (tests/reference/test_trec_eval_families.py). G, ndcg_rel and Rndcg stay trec_eval's steps:
    # under -c it scores a missed query on a ranking of one unjudged document, where Rndcg is not
    # 0; and unj, which trec_eval computes on -J's condensed list
    "infAP": ("infAP", ()),
    "binG": ("binG", ()),
    "Rprec_mult": ("Rprec", ()),
}
#: measures the catalogue answers whatever their parameters (read as trec_eval reads them)
CATALOGUED = ("infAP", "binG", "Rprec_mult")
#: computed here from trec_eval's definitions (not yet measures of the catalogue)
OWN = ("runid", "num_q", "gm_map", "gm_bpref", "iprec_at_recall", "11pt_avg")


def requested(given: Sequence[str], *, groups: bool = False) -> list[tuple[str, tuple]]:
    """The measures asked for, in trec_eval's order, each with its parameters: those of the first
    -m that gives the measure some (``-m P -m P.5 -m P.10`` is P_5), as trec_eval reads them.
    ``groups``: the qrels are judgment groups (``-R qrels_jg``), which only the judgment-group
    measures read (and the judgment-group measures read nothing else)."""
    asked: dict[str, tuple] = {}
    given_params: set[str] = set()
    for text in given:
        for name in NICKNAMES.get(text, [text]):
            base, _, params = name.partition(".")
            if base not in ORDER:
                raise OptionError(f"trec-eval: {base!r} is not a trec_eval measure")
            if base not in FAMILIES and base not in OWN and base not in PORTED + GROUPED:
                raise OptionError(
                    f"trec-eval: rankviz does not compute trec_eval's {base} (its preference "
                    "measures, -R prefs and qrels_prefs, are left out; it computes every other: "
                    + ", ".join(m for m in ORDER if m in FAMILIES or m in OWN + PORTED + GROUPED)
                    + ")"
                )
            if groups != (base in GROUPED) and base not in ("runid", "num_q"):
                raise OptionError(
                    f"trec-eval: {base} reads "
                    + ("-R qrels_jg's judgment groups" if base in GROUPED else "qrels (-R qrels)")
                    + ", not "
                    + ("judgment groups" if groups else "plain qrels")
                )
            if base not in given_params:
                asked[base] = _params(base, params)
                given_params.update([base] if params else [])
    return sorted(asked.items(), key=lambda item: ORDER.index(item[0]))


def _params(name: str, text: str) -> tuple:
    """A measure's parameters as trec_eval reads them: cutoffs as whole numbers (``atol``: 23.4 is
    23), recall levels as numbers, sorted; none given: trec_eval's defaults."""
    if name in PORTED and (name not in FAMILIES or text):
        return trec_eval_measures.parse_params(name, text)
    if name == "Rprec_mult_avgjg":
        return trec_eval_measures.parse_params("Rprec_mult", text)
    if name == "iprec_at_recall":
        return levels_of((text,)) if text else RECALL_LEVELS
    if name == "11pt_avg":  # recall levels, printed as written
        if text:
            levels_of((text,))
        return (text,) if text else ()
    if name == "set_F":  # trec_eval reads the first number and prints the text as given
        if text and not re.fullmatch(r"[0-9]*\.?[0-9]+(,.*)?", text):
            raise OptionError(f"trec-eval: set_F.{text}: {text!r} is not a weight")
        return (text,) if text else ()
    default = CUTOFFS if name == "P_avgjg" else FAMILIES[name][1] if name in FAMILIES else ()
    if not text:
        return default
    if not default:
        raise OptionError(f"trec-eval: {name} takes no parameters here, not {text!r}")
    cutoffs = []
    for part in text.split(","):
        digits = part.strip().split(".")[0]
        if not digits.isdigit() or int(digits) < 1:
            raise OptionError(f"trec-eval: {name}.{text}: {part!r} is not a cutoff")
        cutoffs.append(int(digits))
    return tuple(sorted(cutoffs))


def ported(name: str, params: tuple) -> bool:
    """Whether trec_eval's own computation answers (ndcg, G, ndcg_rel, Rndcg: only with a gain
    table; the :data:`CATALOGUED` never)."""
    return name in PORTED and name not in CATALOGUED and (name not in FAMILIES or bool(params))


def levels_of(params: tuple) -> tuple[float, ...]:
    """Recall levels: trec_eval's eleven, or the ones written (``11pt_avg..25,.5``), sorted."""
    if not params:
        return RECALL_LEVELS
    try:
        return tuple(sorted(float(p) for p in params[0].split(",")))
    except ValueError:
        raise OptionError(f"trec-eval: {params[0]!r} are not recall levels") from None
