"""Evaluation: per-query values of every run and measure, and their means."""
