"""Names of the significance options, importable without scipy (the command line builds its parser from them)."""

ALTERNATIVES = ("two-sided", "greater", "less")
TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey")
CORRECTIONS = ("none", "bonferroni", "holm", "bh")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")  # Wilcoxon's handling of zero differences
