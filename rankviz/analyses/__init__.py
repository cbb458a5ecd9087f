"""Analyses built on evaluations and ranking tables: deltas, ties, significance, metric choice,
protocols.

Each module is plain functions and frozen result objects; the command line and the app render them.
"""
