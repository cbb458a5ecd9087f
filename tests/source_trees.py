"""Every source file parsed once per test process: the architecture and static tests walk the same
files many times (each walk of the package costs about a tenth of a second)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of ``path``'s tree, as :func:`ast.walk` gives them."""
    return tuple(ast.walk(tree(path)))
