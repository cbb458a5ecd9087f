"""The Streamlit app: the only package code that imports streamlit. Its rooms, lowest first:

- :mod:`~rankviz.app.text`: user text made inert for markdown (every message goes through it);
- :mod:`~rankviz.app.widgets` and :mod:`~rankviz.app.state`: widgets from the library's options, and
the
  URL (``st.query_params``) as validated settings, kept across pages;
- :mod:`~rankviz.app.cache`: what a result is known by (file stamps, content digests) and the
bounded caches;
- :mod:`~rankviz.app.inputs`: the collections, runs, qrels, uploads and meeting record the app
serves, read;
- :mod:`~rankviz.app.compute`: the study's calls, cached under one
:class:`~rankviz.app.compute.Key`;
- :mod:`~rankviz.app.context`: the :class:`~rankviz.app.context.Context` a page gets, which asks its
  :class:`~rankviz.study.study.Study`;
- :mod:`~rankviz.app.frame`: the sidebar every page shares, which decides the context;
- :mod:`~rankviz.app.meeting_panel`: the meeting's controls;
- :mod:`~rankviz.app.pages`: the page registry.
"""
