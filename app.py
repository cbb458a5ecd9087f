"""rankviz in the browser from a checkout: ``streamlit run app.py [-- --data DIR [--data DIR
...]]``.

The same navigation as ``rankviz app`` (:mod:`rankviz.app.main`) over the pages of
:mod:`rankviz.app.views`; every page builds the shared frame itself
(:func:`rankviz.app.frame.page_frame.open_page`).
"""

from rankviz.app.frame.pages import navigate

navigate()
