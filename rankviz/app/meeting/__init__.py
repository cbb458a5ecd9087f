"""The meeting's record in the app: the qrels in force, what a person types and records (drafts,
grades, tags, notes, conflicts), the owners' import and undo."""
