"""The app's pages, one script each: Streamlit runs a page's script on every rerun (through
``st.navigation``, :mod:`rankviz.app.frame.pages`); nothing imports them. They live in the package
so that an installed rankviz serves them (``rankviz app``); the checkout's ``pages/`` are thin
entries."""
