"""rankviz dashboard: the frame (data, runs, measures, conventions) and the page navigation.

streamlit run app.py [-- --data DIR [--data DIR ...]]
"""

import streamlit as st

import app_support as support
from rankviz.errors import RankvizError

st.set_page_config(page_title="rankviz", layout="wide")

ctx = support.show_frame()
pages = [
    st.Page("views/overview.py", title="Overview", default=True),
    st.Page("views/deltas.py", title="Per-query deltas"),
    st.Page("views/histograms.py", title="Rank histograms"),
    st.Page("views/significance.py", title="Significance"),
    st.Page("views/ties.py", title="Ties"),
    st.Page("views/metric_choice.py", title="Metric choice"),
]
navigation = st.navigation(pages)
if ctx is not None:
    try:
        navigation.run()
    except RankvizError as exc:
        st.error(str(exc))
