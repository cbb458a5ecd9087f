"""The app's caches: what it reads of the served folders and uploads, kept under content keys, the
collections a session may see, and the study's answers kept at the app's boundary (shared, per
session, on disk, in a cluster)."""
