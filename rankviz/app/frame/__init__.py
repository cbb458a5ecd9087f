"""The frame every page shares: the sidebar, what it decided (the study opened, the runs and
measures selected) and the page's numbers through the caches."""
