"""What a check finds, and the report of every finding: a code, a severity, the run, a count, up to
five examples and what to do; the exit status a CI job gates on."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

SEVERITIES = ("error", "warning", "note")  # worst first
EXAMPLES = 5  # examples kept per finding
EXIT_STATUS = {"error": 2, "warning": 1, "note": 0}


@dataclass(frozen=True)
class Finding:
    """One mistake (or one thing worth knowing) that changes what a number means.

    ``queries``: every query it concerns (the query view marks them); ``examples``: up to five of
    what was found (ids, pairs, depths) to look at first."""

    code: str
    severity: str
    message: str
    run: str | None = None
    count: int = 0
    examples: Sequence[str] = ()  # kept as a tuple of at most EXAMPLES
    queries: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity {self.severity!r}: one of {', '.join(SEVERITIES)}")
        object.__setattr__(self, "examples", tuple(str(e) for e in self.examples)[:EXAMPLES])

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "run": self.run,
            "count": self.count,
            "examples": list(self.examples),
            "message": self.message,
        }

    def line(self) -> str:
        """One line for a terminal or a banner (no markup)."""
        where = f" [{self.run}]" if self.run else ""
        shown = f" (e.g. {', '.join(self.examples)})" if self.examples else ""
        return f"{self.severity}: {self.code}{where}: {self.message}{shown}"


@dataclass(frozen=True)
class CheckReport:
    """Every finding of the checks, worst first."""

    findings: tuple[Finding, ...] = ()

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> CheckReport:
        order = {s: i for i, s in enumerate(SEVERITIES)}
        return cls(tuple(sorted(findings, key=lambda f: (order[f.severity], f.code, f.run or ""))))

    @property
    def status(self) -> int:
        """0 with nothing above a note, 1 with a warning, 2 with an error: what ``rankviz check``
        exits with."""
        return max((EXIT_STATUS[f.severity] for f in self.findings), default=0)

    def at_least(self, severity: str) -> list[Finding]:
        """The findings of ``severity`` and worse."""
        worst = SEVERITIES.index(severity)
        return [f for f in self.findings if SEVERITIES.index(f.severity) <= worst]

    def of_query(self, qid: str) -> list[Finding]:
        """The findings that concern one query (the query view says them)."""
        return [f for f in self.findings if qid in f.queries]

    def counts(self) -> dict[str, int]:
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}

    def summary(self) -> str:
        counts = self.counts()
        if not self.findings:
            return "checks: nothing found"
        return "checks: " + ", ".join(
            f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n
        )

    def to_dict(self) -> list[dict[str, Any]]:
        return [f.to_dict() for f in self.findings]

    def to_frames(self) -> dict[str, pd.DataFrame]:
        import pandas as pd  # only here: `rankviz evaluate` runs the checks without pandas

        columns = ["severity", "code", "run", "count", "message", "examples"]
        rows = [{**f.to_dict(), "examples": ", ".join(f.examples)} for f in self.findings]
        return {"findings": pd.DataFrame(rows, columns=columns)}
