"""Ordering and ties: each query's ranking as a table in the order a tie policy gives."""
