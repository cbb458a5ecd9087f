"""The Streamlit app: the only package code that imports streamlit.

- :mod:`~rankviz.app.text`: user text made inert for markdown (every message goes through it);
- :mod:`~rankviz.app.state`: the URL (``st.query_params``) as validated settings, kept across pages;
- :mod:`~rankviz.app.loaders`: cached loaders, keyed on file stamps or content digests;
- :mod:`~rankviz.app.frame`: the sidebar every page shares, and the :class:`~rankviz.app.frame.Context`
  it gives the page;
- :mod:`~rankviz.app.pages`: the page registry that ``app.py`` and the links between pages read.
"""
