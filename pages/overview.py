"""Overview: a thin entry for Streamlit's `pages/` folder; the page is
`rankviz/app/views/overview.py`.

Reached through the folder (a fresh server's first request), it hands over to the navigation, which
runs the page the URL asks for."""

from rankviz.app.frame.pages import navigate

navigate()
