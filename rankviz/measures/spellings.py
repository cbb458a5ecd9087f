"""The other ways a measure is written: trec_eval's (``P.5,10``, ``P_10``, ``ndcg_cut.10``,
``iprec_at_recall_0.50``, ``11pt_avg``, ``rbp``, a gain table ``ndcg.1=3,2=9``), rewritten as
the catalogue writes them, and the splits of a list or a parameter list at the commas that
separate (not those inside ``(...)`` or ``{...}``)."""

from __future__ import annotations

import re

from rankviz.errors import MeasureError

#: trec_eval's measures with cutoffs, as its ``-m`` takes them (``P.10``) and its output prints them
#: (``P_10``), and the family each is (ir_measures reads them the same way: ``map_cut.10`` is AP@10)
TREC_EVAL_CUTOFFS = {
    "P": "P",
    "recall": "R",
    "ndcg_cut": "nDCG",
    "map_cut": "AP",
    "success": "Hits",
    "relative_P": "P(relative=True)",
    "unj": "Unjudged",
    "P_avgjg": "P_avgjg",
}
#: trec_eval's cutoffs of P, recall, ndcg_cut, map_cut, relative_P and P_avgjg; of success; of unj
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)
#: each of those measures' cutoffs when its name is given bare (``-m ndcg_cut``: trec_eval prints
#: ndcg_cut_5 ... ndcg_cut_1000; ir_measures' parse_trec_measure reads it so too)
DEFAULT_CUTOFFS = {
    **{name: CUTOFFS for name in ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "P_avgjg")},
    "success": SUCCESS_CUTOFFS,
    "unj": UNJ_CUTOFFS,
}
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)"
#: trec_eval's interpolated precision at recall levels (``iprec_at_recall_0.50``,
#: ``iprec_at_recall..10,.25`` as its -m reads it: C's atof of each), ir_measures' ``IPrec@0.5``;
#: the bare name, in a list, is its eleven levels
_IPREC = re.compile(rf"^\s*iprec_at_recall(?:[._](?P<levels>{_NUMBER}(?:,{_NUMBER})*))?\s*$")
IPREC_LEVELS = tuple(i / 10 for i in range(11))
#: trec_eval's names whose measure the family's own name would not give: ``11pt_avg`` begins
#: with a digit; ``rbp`` is graded at p = 0.9 where the catalogue's RBP is binary at 0.8
TREC_EVAL_NAMES = {
    "11pt_avg": "IPrecAvg",
    "rbp": "RBP(p=0.9,graded=True)",
    "set_relative_P": "SetP(relative=True)",
}
#: trec_eval's utility with its four coefficients, set_F with its beta (``utility.2,-1,0,0``,
#: ``set_F.0.5``), as the catalogue's parameters
_UTILITY = re.compile(rf"^\s*utility[._](?P<c>{_NUMBER}(?:,{_NUMBER}){{3}})\s*$")
_UTILITY_PARAMS = ("rel_ret", "nonrel_ret", "rel_nonret", "nonrel_nonret")
_SET_F = re.compile(rf"^\s*set_F[._](?P<beta>{_NUMBER})\s*$")
#: trec_eval's 11pt_avg at the recall levels given (``11pt_avg..25,.5,.75``)
_11PT = re.compile(rf"^\s*11pt_avg[._](?P<levels>{_NUMBER}(?:,{_NUMBER})*)\s*$")
#: trec_eval's R-precision at multiples of R (``Rprec_mult.0.5,2``; bare: its ten defaults)
_RPREC_MULT = re.compile(
    rf"^\s*(?P<name>Rprec_mult(?:_avgjg)?)(?:[._](?P<m>{_NUMBER}(?:,{_NUMBER})*))?\s*$"
)
RPREC_MULTIPLES = tuple(m / 10 for m in range(2, 22, 2))
_TREC_EVAL = re.compile(
    r"^\s*(?P<name>P|recall|ndcg_cut|map_cut|success|relative_P|unj|P_avgjg)"
    r"(?:[._](?P<cutoffs>[0-9]+(?:,[0-9]+)*))?\s*$"
)
#: trec_eval's measures that read a gain table (``ndcg.1=3,2=9``; printed ``ndcg_1=3,2=9``)
TREC_EVAL_GAINED = {
    "ndcg_rel": "ndcg_rel",
    "ndcg": "nDCG",
    "Rndcg": "Rndcg",
    "dcg": "DCG",
    "ideal_dcg": "IdealDCG",
    "G": "G",
}
#: trec_eval's rbp with parameters: its persistence ``p=`` and a gain table (``rbp.p=0.5,2=3``)
_RBP_ITEM = r"(?:p=[^,=]+|[0-9]+=[^,=]+)"
_RBP = re.compile(rf"^\s*rbp[._](?P<params>{_RBP_ITEM}(?:,{_RBP_ITEM})*)\s*$")
#: trec_eval's rbp_resid with its persistence (``rbp_resid.p=0.5``)
_RBP_RESID = re.compile(rf"^\s*rbp_resid(?:[._]p=(?P<p>{_NUMBER}))?\s*$")
_GAIN_TABLE = re.compile(
    r"^\s*(?P<name>ndcg_rel|ndcg|Rndcg|ideal_dcg|dcg|G)[._]"
    r"(?P<table>[0-9]+=[^,=]+(?:,[0-9]+=[^,=]+)*)\s*$"
)


_AT = [f"@{c}" for c in CUTOFFS]
#: trec_eval's sets of measures (``-m official``, ``-m all_trec``) as the catalogue's measures, in
#: the order trec_eval prints them; what they leave out: :data:`TREC_EVAL_LEFT_OUT`
TREC_EVAL_SETS = {
    "official": [
        "NumRet", "NumRel", "NumRelRet", "AP", "GMAP", "Rprec", "Bpref", "RR",
        *(f"IPrec@{level}" for level in IPREC_LEVELS), *(f"P{at}" for at in _AT),
    ],
    "all_trec": [
        "NumRet", "NumRel", "NumRelRet", "AP", "GMAP", "Rprec", "Bpref", "RR",
        *(f"IPrec@{level}" for level in IPREC_LEVELS), *(f"P{at}" for at in _AT),
        *(f"R{at}" for at in _AT), "infAP", "GMBpref",
        *(f"Rprec(mult={m / 10:g})" for m in range(2, 22, 2)),
        "Utility", "IPrecAvg", "binG", "G", "nDCG", "ndcg_rel", "Rndcg",
        *(f"nDCG{at}" for at in _AT), *(f"AP{at}" for at in _AT),
        *(f"P(relative=True){at}" for at in _AT), "Hits@1", "Hits@5", "Hits@10",
        "SetP", "SetP(relative=True)", "SetR", "SetAP", "SetF", "NumNonRelJudgedRet",
        "RBP(p=0.9,graded=True)", "rbp_resid", "Unjudged@5", "Unjudged@10", "Unjudged@20",
    ],
    "set": [
        "NumRet", "NumRel", "NumRelRet", "Utility", "SetP", "SetP(relative=True)", "SetR", "SetAP",
        "SetF",
    ],
    "all_prefs": [
        "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
        "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
        "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
        "prefs_avgjg_imp",
    ],
}  # fmt: skip


#: What each of trec_eval's sets prints that the catalogue's measures of it leave out, and why:
#: said wherever a set is taken, so that "every measure" is never read into it.
TREC_EVAL_LEFT_OUT = {
    "official": "runid and num_q (not per-query values)",
    "all_trec": "runid and num_q (not per-query values) and relstring (a text)",
    "set": "runid and num_q (not per-query values)",
    "all_prefs": "runid and num_q (not per-query values)",
}


def rewritten(text: str) -> str:
    """One measure in trec_eval's spelling as the catalogue writes it (``P_10``: ``P@10``,
    ``ndcg.1=3,2=9``: ``nDCG(gains={1:3,2:9})``); any other text as it is. A MeasureError for a
    spelling of several measures (``P.5,10``, the bare ``iprec_at_recall``)."""
    text = TREC_EVAL_NAMES.get(text.strip(), text)
    if re.match(r"^\s*(relstring|runid|num_q)(?:[._]\S*)?\s*$", text):
        raise MeasureError(
            f"trec_eval's {text.strip().split('.')[0]} is not a measure of each query's ranking "
            "(relstring: a text of the first grades; runid, num_q: of the call): rankviz trec-eval "
            "prints it"
        )
    resid = _RBP_RESID.match(text)
    if resid is not None:
        return f"rbp_resid(p={resid['p']})" if resid["p"] else "rbp_resid"
    utility = _UTILITY.match(text)
    if utility is not None:
        pairs = zip(_UTILITY_PARAMS, utility["c"].split(","), strict=True)
        return f"Utility({','.join(f'{k}={float(v):g}' for k, v in pairs)})"
    set_f = _SET_F.match(text)
    if set_f is not None:
        return f"SetF(beta={float(set_f['beta']):g})"
    levels = _11PT.match(text)
    if levels is not None:
        return f"IPrecAvg(levels={{{levels['levels']}}})"
    multiples = rprec_multiples(text)
    if multiples is not None:
        if len(multiples) > 1:
            raise MeasureError(
                f"{text.strip()!r} is {len(multiples)} measures ({', '.join(multiples)}): give it "
                "where a list of measures is taken"
            )
        return multiples[0]
    recall_levels = iprec_levels(text)
    if recall_levels is not None:
        if len(recall_levels) > 1:
            raise MeasureError(
                f"{text.strip()!r} is {len(recall_levels)} measures ({recall_levels[0]} .. "
                f"{recall_levels[-1]}): give it where a list of measures is taken, or one level "
                "(iprec_at_recall_0.50, IPrec@0.5)"
            )
        return recall_levels[0]
    rbp = _RBP.match(text)
    if rbp is not None:
        items = rbp["params"].split(",")
        persistence = [i for i in items if i.startswith("p=")][-1:] or ["p=0.9"]
        table = ",".join(i.replace("=", ":") for i in items if not i.startswith("p="))
        gains = [f"gains={{{table}}}"] if table else []
        return f"RBP({','.join([*persistence, 'graded=True', *gains])})"
    gained = _GAIN_TABLE.match(text)
    if gained is not None:
        table = gained["table"].replace("=", ":")
        return f"{TREC_EVAL_GAINED[gained['name']]}(gains={{{table}}})"
    spelled = trec_eval_cutoffs(text)
    if spelled is None:
        return text
    family, cutoffs = spelled
    if len(cutoffs) > 1:
        listed = ", ".join(f"{family}@{c}" for c in cutoffs)
        raise MeasureError(
            f"{text.strip()!r} is {len(cutoffs)} measures ({listed}): give it where a list of "
            "measures is taken (-m, evaluate's measures, the link's measures=)"
        )
    return f"{family}@{cutoffs[0]}"


def trec_eval_cutoffs(text: str) -> tuple[str, list[int]] | None:
    """The family and cutoffs of trec_eval's spelling of a measure with cutoffs (``P.10``,
    ``P_10``, ``ndcg_cut.5,10``; bare, ``ndcg_cut``, its default cutoffs), or None for any other
    text."""
    spelled = _TREC_EVAL.match(text)
    if spelled is None:
        return None
    name = spelled["name"]
    if spelled["cutoffs"] is None:
        return TREC_EVAL_CUTOFFS[name], list(DEFAULT_CUTOFFS[name])
    return TREC_EVAL_CUTOFFS[name], [int(c) for c in spelled["cutoffs"].split(",")]


def iprec_levels(text: str) -> list[str] | None:
    """trec_eval's ``iprec_at_recall`` (its eleven levels), ``iprec_at_recall_0.50`` or
    ``iprec_at_recall..10,.25`` (the levels its -m reads: C's atof of each) as the catalogue's
    measures, ``IPrec@0.1``; None for any other text."""
    spelled = _IPREC.match(text)
    if spelled is None:
        return None
    if spelled["levels"] is None:
        return [f"IPrec@{level}" for level in IPREC_LEVELS]
    return [f"IPrec@{float(level):g}" for level in dict.fromkeys(spelled["levels"].split(","))]


def rprec_multiples(text: str) -> list[str] | None:
    """trec_eval's ``Rprec_mult`` (its ten multiples) or ``Rprec_mult.0.5,2`` as the catalogue's
    measures, ``Rprec(mult=0.5)``; None for any other text."""
    spelled = _RPREC_MULT.match(text)
    if spelled is None:
        return None
    multiples = (
        [float(m) for m in spelled["m"].split(",")] if spelled["m"] else list(RPREC_MULTIPLES)
    )
    family = "Rprec" if spelled["name"] == "Rprec_mult" else spelled["name"]
    return [f"{family}(mult={m:g})" for m in dict.fromkeys(sorted(multiples))]


def split_outside_brackets(text: str) -> list[str]:
    """``text`` split at the commas outside ``(...)`` and ``{...}``: ``p=0.9,gains={1:3,2:9}`` is
    two parameters."""
    items, depth, start = [], 0, 0
    for at, char in enumerate(text):
        depth += (char in "({") - (char in ")}")
        if char == "," and depth == 0:
            items.append(text[start:at])
            start = at + 1
    items.append(text[start:])
    return items


def split_names(items: list[str]) -> list[str]:
    """Measure names from a list split at its commas (a link's ``measures=``), joined again where
    the split cut one (``RBP(p=0.9,graded=True)``, ``nDCG(gains={1:3,2:9})``, trec_eval's
    ``ndcg.1=3,2=9``), trec_eval's spellings written canonically: ``ndcg_cut.10`` is nDCG@10, and
    ``P.5,10`` is P@5 and P@10."""
    joined = split_outside_brackets(",".join(items))
    whole: list[str] = []
    for item in joined:
        continues = bool(whole) and (
            (item.isdigit() and trec_eval_cutoffs(whole[-1]) is not None)
            or (
                re.fullmatch(_NUMBER, item)
                and re.match(
                    r"\s*(Rprec_mult(_avgjg)?|utility|11pt_avg|iprec_at_recall)[._]", whole[-1]
                )
            )
            or (
                re.fullmatch(r"[0-9]+=[^,=]+|p=[^,=]+", item)
                and (_GAIN_TABLE.match(whole[-1]) or _RBP.match(whole[-1]))
            )
        )
        if continues:
            whole[-1] += f",{item}"
        elif item:
            whole.append(item)
    written = []
    for item in whole:
        spelled = trec_eval_cutoffs(item)
        multiples = rprec_multiples(item) or iprec_levels(item)
        if spelled is not None:
            written += [f"{spelled[0]}@{c}" for c in spelled[1]]
        elif multiples is not None:
            written += multiples
        elif _UTILITY.match(item) or _SET_F.match(item):
            written.append(rewritten(item))
        else:
            written.append(rewritten(item) if _GAIN_TABLE.match(item) or _RBP.match(item) else item)
    return written
