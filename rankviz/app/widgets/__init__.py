"""The app's building blocks: text made safe to show, widgets built from options, the view in the
URL, the browser's keyboard and focus, number tables, progress bars."""
