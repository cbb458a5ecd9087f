"""The Streamlit app: the only package code that imports streamlit. Its folders, lowest first; a
module imports only from its own folder and those below (``tests/unit/test_architecture.py``):

- :mod:`~rankviz.app.widgets`: user text made inert for markdown (every message goes through
  it), widgets from the library's options, the URL as validated settings, keyboard and focus;
- :mod:`~rankviz.app.signin`: who uses the session (the provider's vouched address, or the typed
  name) and what every page says of the server;
- :mod:`~rankviz.app.caches`: what a result is known by (file stamps, content digests), the
  collections a session may see, what the app reads, and the study's answers kept under one
  :class:`~rankviz.app.caches.compute.Key`;
- :mod:`~rankviz.app.meeting`: the meeting's record in force and what a person types into it;
- :mod:`~rankviz.app.frame`: the sidebar every page shares, the
  :class:`~rankviz.app.frame.context.Context` it decides (which asks its
  :class:`~rankviz.study.study.Study`), and the page registry;
- :mod:`~rankviz.app.panels`: parts more than one page draws (the meeting's panel, the deltas'
  views, ANOVA, documents, scores);
- :mod:`~rankviz.app.views`: the pages, each asking and rendering.
"""
