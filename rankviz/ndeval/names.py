"""ndeval's measures by name (its CSV's columns, in its order) and ir_measures' name of each; no
pandas, so naming a measure costs nothing."""

CUTOFFS = (5, 10, 20)
#: ndeval's columns, in its order, and ir_measures' name of each
COLUMNS = {
    **{f"ERR-IA@{k}": f"ERR_IA@{k}" for k in CUTOFFS},
    **{f"nERR-IA@{k}": f"nERR_IA@{k}" for k in CUTOFFS},
    **{f"alpha-DCG@{k}": f"alpha_DCG@{k}" for k in CUTOFFS},
    **{f"alpha-nDCG@{k}": f"alpha_nDCG@{k}" for k in CUTOFFS},
    "NRBP": "NRBP",
    "nNRBP": "nNRBP",
    "MAP-IA": "AP_IA",
    **{f"P-IA@{k}": f"P_IA@{k}" for k in CUTOFFS},
    **{f"strec@{k}": f"StRecall@{k}" for k in CUTOFFS},
}
