"""Parameters shared by several measure families (defined with every other option in
:mod:`rankviz.settings`)."""

from rankviz.settings import REL

__all__ = ["REL"]
