"""trec_eval 10's names: its measures in its order, its nicknames (``official``, ``all_trec``),
its parameters as it reads them (``P.5,10``, ``iprec_at_recall..10,.5``, ``ndcg.1=3,2=9``: C's
``atof`` and ``atol``), and the catalogue's measure behind each name it prints."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from rankviz.errors import OptionError
from rankviz.measures.judgment_groups import DEFAULTS
from rankviz.measures.preferences import OFFERED as PREFERRED
from rankviz.measures.spellings import CUTOFFS, RPREC_MULTIPLES, SUCCESS_CUTOFFS, UNJ_CUTOFFS

GROUPED = tuple(DEFAULTS)  # the judgment-group measures, read from -R qrels_jg
#: what each -R format's file is read as, and the measures that read it (the rest read qrels)
READ_AS = {"qrels": "qrels", "qrels_jg": "groups", "prefs": "prefs", "qrels_prefs": "prefs"}
_READING = {"groups": GROUPED, "prefs": PREFERRED}
_SAID = {
    "qrels": "qrels (-R qrels)",
    "groups": "-R qrels_jg's judgment groups",
    "prefs": "preferences (-R prefs or qrels_prefs)",
}

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
#: the catalogue's family of each trec_eval measure, and its cutoffs when it takes some
FAMILIES = {
    "num_ret": ("NumRet", ()),
    "num_rel": ("NumRel", ()),
    "num_rel_ret": ("NumRelRet", ()),
    "map": ("AP", ()),
    "gm_map": ("GMAP", ()),
    "Rprec": ("Rprec", ()),
    "bpref": ("Bpref", ()),
    "recip_rank": ("RR", ()),
    "P": ("P", CUTOFFS),
    "recall": ("R", CUTOFFS),
    "infAP": ("infAP", ()),
    "gm_bpref": ("GMBpref", ()),
    "binG": ("binG", ()),
    "ndcg_cut": ("nDCG", CUTOFFS),
    "map_cut": ("AP", CUTOFFS),
    "relative_P": ("P(relative=True)", CUTOFFS),
    "success": ("Hits", SUCCESS_CUTOFFS),
    "set_P": ("SetP", ()),
    "set_relative_P": ("SetP(relative=True)", ()),
    "set_recall": ("SetR", ()),
    "set_map": ("SetAP", ()),
    "num_nonrel_judged_ret": ("NumNonRelJudgedRet", ()),
    "unj": ("Unjudged", UNJ_CUTOFFS),
    "yaap": ("yaap", ()),
}
#: measures that read a gain table (``ndcg.1=3,2=9``), and rbp_resid, which reads its ``p=``
GAINED = {
    "G": "G",
    "dcg": "DCG",
    "ideal_dcg": "IdealDCG",
    "ndcg": "nDCG",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "Rndcg",
    "rbp": "RBP",
    "rbp_resid": "rbp_resid",
}
#: what is printed from the ranking itself (no number) or is a count of the call
PRINTED = ("runid", "num_q", "relstring")
OTHERS = ("iprec_at_recall", "11pt_avg", "Rprec_mult", "utility", "set_F")
COMPUTED = (*FAMILIES, *GAINED, *OTHERS, *PRINTED, *GROUPED, *PREFERRED)


def requested(given: Sequence[str], *, judgments: str = "qrels") -> list[tuple[str, tuple]]:
    """The measures asked for, in trec_eval's order, each with its parameters: those of the first
    -m that gives the measure some (``-m P -m P.5 -m P.10`` is P_5), as trec_eval reads them.
    ``judgments``: what the qrels file is read as (:data:`READ_AS`): judgment groups and
    preferences are read by their own measures only, and those measures read nothing else."""
    asked: dict[str, tuple] = {}
    given_params: set[str] = set()
    for text in given:
        for name in NICKNAMES.get(text, [text]):
            base, _, params = name.partition(".")
            if base not in ORDER:
                raise OptionError(f"trec-eval: {base!r} is not a trec_eval measure")
            reads = next((kind for kind, names in _READING.items() if base in names), "qrels")
            if reads != judgments and base not in ("runid", "num_q"):
                raise OptionError(f"trec-eval: {base} reads {_SAID[reads]}, not {_SAID[judgments]}")
            if base not in given_params:
                asked[base] = _params(base, params)
                given_params.update([base] if params else [])
    return sorted(asked.items(), key=lambda item: ORDER.index(item[0]))


def _params(name: str, text: str) -> tuple:
    """A measure's parameters as trec_eval reads them: cutoffs as whole numbers (``atol``: 23.4 is
    23), recall levels and multiples as numbers, sorted; a gain table, utility's coefficients,
    relstring's length and set_F's weight as the text written (printed after the name); none
    given: trec_eval's defaults."""
    if name in ("Rprec_mult", "Rprec_mult_avgjg"):
        multiples = tuple(sorted(atof(part) for part in text.split(","))) if text else ()
        if len(set(multiples)) < len(multiples):
            raise OptionError(f"trec-eval: {name}.{text}: duplicate cutoffs")
        return multiples
    if name == "iprec_at_recall":
        return levels_of((text,)) if text else RECALL_LEVELS
    if name == "11pt_avg":  # recall levels, printed as written
        if text:
            levels_of((text,))
        return (text,) if text else ()
    if not text:
        default = CUTOFFS if name == "P_avgjg" else FAMILIES.get(name, ("", ()))[1]
        return default
    if name == "set_F":  # trec_eval reads the first number and prints the text as given
        if not re.fullmatch(r"[0-9]*\.?[0-9]+(,.*)?", text):
            raise OptionError(f"trec-eval: set_F.{text}: {text!r} is not a weight")
        return (text,)
    if name in GAINED:
        _gain_table(name, text)
        return (text,)
    if name == "utility" and len(text.split(",")) != 4:
        raise OptionError(f"trec-eval: {name}.{text}: utility takes four coefficients")
    if name in ("utility", "relstring"):
        return (text,)
    if name not in FAMILIES and name != "P_avgjg" or not _params(name, ""):
        raise OptionError(f"trec-eval: {name} takes no parameters here, not {text!r}")
    cutoffs = []
    for part in text.split(","):
        digits = part.strip().split(".")[0]
        if not digits.isdigit():
            raise OptionError(f"trec-eval: {name}.{text}: {part!r} is not a cutoff")
        cutoffs.append(int(digits))
    if name == "unj" and (min(cutoffs) < 1 or len(set(cutoffs)) < len(cutoffs)):
        raise OptionError(f"trec-eval: {name}.{text}: cutoffs must be positive and distinct")
    if min(cutoffs) < 1:
        raise OptionError(f"trec-eval: {name}.{text}: {min(cutoffs)} is not a cutoff")
    return tuple(sorted(cutoffs))


def _gain_table(name: str, text: str) -> tuple[float | None, dict[int, float]]:
    """A gain table as trec_eval reads it (``1=3,2=9``, ``p=0.5`` for rbp's persistence; keys that
    are not whole numbers are not grades): its ``p`` and its gains by grade."""
    pairs = text.split(",")
    if not all(p.count("=") == 1 and not p.startswith("=") for p in pairs):
        raise OptionError(f"trec-eval: {name}.{text}: malformed pair parameters")
    persistence, gains = None, {}
    for key, value in (p.split("=") for p in pairs):
        number = atof(value)  # C's atof also reads nan and inf(inity), which it leaves out
        if not math.isfinite(number) or re.match(r"\s*[+-]?(nan|inf)", value, re.IGNORECASE):
            raise OptionError(f"trec-eval: {name}.{text}: {value!r} is not a finite number")
        if key == "p" and name.startswith("rbp"):
            if not 0 < number < 1:
                raise OptionError(
                    f"trec-eval: {name}.{text}: p={value} is RBP's persistence, between 0 and 1 "
                    "(both excluded)"
                )
            persistence = number if persistence is None else persistence
        elif re.fullmatch(r"[+-]?\d+", key):
            if int(key) < 0 or int(key) in gains:
                raise OptionError(
                    f"trec-eval: {name}.{text}: rankviz reads a gain table of grades 0 and up, "
                    "each once"
                )
            gains[int(key)] = number
    return persistence, gains


def catalogued(name: str, params: tuple, *, docs: int) -> list[tuple[str, str]]:
    """Each name trec_eval prints for the measure with ``params``, and the catalogue's measure
    that computes it (``P_10``: ``P@10``; ``ndcg_1=3,2=9``: ``nDCG(gains={1:3,2:9})``); none
    for what is printed without one (:data:`PRINTED`)."""
    if name in PRINTED:
        return []
    if name in FAMILIES:
        family, _ = FAMILIES[name]
        if not params:
            return [(name, family)]
        return [(f"{name}_{c}", f"{family}@{c}") for c in params]
    if name == "set_F":  # one weight, printed as written (set_F.0.5 is set_F_0.5)
        if not params:
            return [(name, "SetF")]
        return [(f"set_F_{params[0]}", f"SetF(beta={atof(params[0])!r})")]
    if name == "Rprec_mult":  # multiples of R, printed to two decimals
        return [(f"{name}_{m:3.2f}", f"Rprec(mult={m!r})") for m in params or RPREC_MULTIPLES]
    if name == "iprec_at_recall":
        return [(f"{name}_{level:3.2f}", f"IPrec@{level!r}") for level in params]
    if name == "11pt_avg":
        if not params:
            return [(name, "IPrecAvg")]
        levels = ",".join(repr(level) for level in levels_of(params))
        return [(f"{name}_{params[0]}", f"IPrecAvg(levels={{{levels}}})")]
    if name == "utility":
        weights = [atof(w) for w in params[0].split(",")] if params else [1.0, -1.0, 0.0, 0.0]
        keys = ("rel_ret", "nonrel_ret", "rel_nonret", "nonrel_nonret")
        coefficients = ",".join(f"{k}={w!r}" for k, w in zip(keys, weights, strict=True))
        return [(f"{name}_{params[0]}" if params else name, f"Utility({coefficients},docs={docs})")]
    persistence, gains = _gain_table(name, params[0]) if params else (None, {})
    if name == "rbp_resid":
        return [(f"{name}_{params[0]}" if params else name, f"rbp_resid(p={persistence or 0.9!r})")]
    written = [f"gains={{{','.join(f'{g}:{v!r}' for g, v in gains.items())}}}"] if gains else []
    if name == "rbp":
        written = [f"p={persistence or 0.9!r}", "graded=True", *written]
    elif gains and name != "dcg":  # trec_eval's ideal ranking, the table's grades as written
        order = "" if list(gains) == sorted(gains) else "{" + ",".join(map(str, gains)) + "}"
        written.append(f"ideal=trec_eval{order}")
    family = GAINED[name] + (f"({','.join(written)})" if written else "")
    return [(f"{name}_{params[0]}" if params else name, family)]


def levels_of(params: tuple) -> tuple[float, ...]:
    """Recall levels: trec_eval's eleven, or the ones written (``11pt_avg..25,.5``), sorted."""
    if not params:
        return RECALL_LEVELS
    try:
        return tuple(sorted(float(p) for p in params[0].split(",")))
    except ValueError:
        raise OptionError(f"trec-eval: {params[0]!r} are not recall levels") from None


_FLOAT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def atof(text: str) -> float:
    """C's atof: the longest number the text starts with, 0 without one."""
    found = _FLOAT.match(text)
    return float(found.group(0)) if found else 0.0
