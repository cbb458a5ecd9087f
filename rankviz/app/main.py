"""The app's script for ``rankviz app`` (``streamlit run`` this file): the navigation over the pages
of :mod:`rankviz.app.views`, from an installed package or a checkout alike."""

from rankviz.app.frame.pages import navigate

navigate()
