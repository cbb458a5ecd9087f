"""rankviz in the browser: ``streamlit run app.py [-- --data DIR [--data DIR ...]]``.

The navigation over the pages of ``pages/`` (:mod:`rankviz.app.pages`); every page builds the
shared frame itself (:func:`rankviz.app.frame.open_page`).
"""

from rankviz.app.pages import navigate

navigate()
