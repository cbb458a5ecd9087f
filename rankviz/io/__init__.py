"""Readers for runs, qrels and collection folders."""
