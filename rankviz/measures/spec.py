"""A measure is a declarative spec (family, parameters with defaults and docs, cutoff) plus a
kernel.

Names follow ir_measures: ``RR@10``, ``nDCG(gain=exp)@10``, ``ERR(gmax=4)@20``. Parameters equal to
their default are dropped, so ``str(parse("RR(rel=1)@10")) == "RR@10"`` and ``parse(str(m)) == m``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from rankviz.errors import MeasureError, OptionError
from rankviz.measures.aggregators import MEAN, Aggregator
from rankviz.measures.spellings import (
    TREC_EVAL_SETS,
    iprec_levels,
    rewritten,
    rprec_multiples,
    split_outside_brackets,
    trec_eval_cutoffs,
)
from rankviz.settings.eval_settings import JUDGED_ONLY
from rankviz.settings.options import Option
from rankviz.settings.tie_policy import TiePolicy

#: A measure's parameter is an option like any other (:mod:`rankviz.settings.eval_settings`): its
# name, default,
#: values and doc are the same in a measure's name, on the command line and in the app.
Param = Option

#: The largest cutoff (positions are int32).
MAX_CUTOFF = 2**31 - 1


@dataclass(frozen=True)
class Family:
    """A measure family: its canonical name, aliases, parameters, cutoff rule and kernel.

    ``kernel(table, cutoff, **params)`` returns one float per query of the table, aligned with
    ``table.qids``; ``expected`` has the same signature and returns the exact mean over all orders
    inside each group of equal scores (the ``expected`` tie policy), or is None where no closed
    form is known (``ties=expected`` then refuses the measure, and its chance level is not drawn).
    """

    name: str
    aliases: tuple[str, ...]
    params: tuple[Param, ...]
    cutoff_required: bool
    kernel: Callable[..., np.ndarray]
    expected: Callable[..., np.ndarray] | None
    definition: str
    convention: str
    cutoff_allowed: bool = True
    condensable: bool = True  # takes judged_only=True (the condensed list)
    #: parameters printed even at their default, where ir_measures reads the bare name as another
    #: measure (its ``RBP`` is graded; ours is binary from ``rel``)
    always_named: tuple[str, ...] = ()
    #: boolean parameters that turn the value into one where lower is better (RBP's residual: what
    #: is still unknown); every other value is better higher (a gain, or Judged's share judged)
    lower_is_better_with: tuple[str, ...] = ()
    #: every value is better lower (Unjudged's share unjudged: less rests on guesses)
    lower_is_better: bool = False
    #: the parameter written after ``@`` in place of a cutoff, as ir_measures writes it
    #: (``IPrec@0.5`` is the interpolated precision at recall 0.5); it must be given
    at_param: str | None = None
    #: parameters that mean something only with another set: (parameter, the boolean it needs)
    needs: tuple[tuple[str, str], ...] = ()
    #: how its mean is taken (:data:`MEAN`, or :data:`GEOMETRIC` of per-query logs)
    aggregator: Aggregator = MEAN
    #: the queries whose value is a 0 / 0, which the kernel scores 0 and trec_eval prints as
    #: ``-nan`` (same signature as the kernel, a bool per query); None: never
    undefined: Callable[..., np.ndarray] | None = None
    #: the deepest cutoff it takes (ndeval's measures are computed to rank 20)
    max_cutoff: int = MAX_CUTOFF
    #: the judgments beside the qrels it reads (:attr:`rankviz.io.model.Qrels.beside`'s kind, with
    #: what to say where they are missing), None: the grades alone
    reads: tuple[str, str] | None = None
    #: how a measure of the family is written when not ``Name(params)@K`` (trec_eval's
    #: ``P_avgjg_10``), read back by the spellings
    written: Callable[[Measure], str] | None = None

    @property
    def names(self) -> str:
        """How the family is written: ``RR``, ``RR@K`` (and its aliases)."""
        if self.at_param is not None:
            forms = [f"{self.name}@{self.at_param}"]
        elif self.cutoff_required:
            forms = [f"{self.name}@K"]
        else:
            forms = [self.name] + ([f"{self.name}@K"] if self.cutoff_allowed else [])
        shown = [a for a in self.aliases if a.lower() != self.name.lower()][:1]
        return ", ".join(f"`{f}`" for f in forms) + (f" (alias {shown[0]})" if shown else "")

    @property
    def at_example(self) -> str:
        """How a family with an :attr:`at_param` is written, at the middle of its range
        (``IPrec@0.5``)."""
        option = self.param(str(self.at_param))
        return f"{self.name}@{((option.low or 0) + (option.high or 1)) / 2}"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        accepted = ", ".join(p.name for p in self.params) or "none"
        raise MeasureError(f"{self.name} has no parameter {name!r} (parameters: {accepted})")


FAMILIES: dict[str, Family] = {}
_LOOKUP: dict[str, str] = {}


def register(family: Family) -> Family:
    """Add a family; every family that can be condensed takes ``judged_only`` (last) besides its own
    parameters."""
    if family.condensable and JUDGED_ONLY not in family.params:
        family = replace(family, params=(*family.params, JUDGED_ONLY))
    FAMILIES[family.name] = family
    for alias in (family.name, *family.aliases):
        _LOOKUP[alias.lower()] = family.name
    return family


@dataclass(frozen=True)
class Measure:
    """A fully specified measure; ``str()`` is its canonical name, which every output shows.

    Parameters
    ----------
    name
        The family's canonical name (``nDCG``).
    params
        (parameter, value) pairs that differ from the family's defaults, in the family's order.
    cutoff
        K of ``@K``; None without one.
    """

    name: str
    params: tuple[tuple[str, object], ...] = ()
    cutoff: int | None = None

    @property
    def family(self) -> Family:
        return FAMILIES[self.name]

    def number(self, param: str) -> float:
        """A numeric parameter's value (its default when not set)."""
        value = self.value_of(param)
        if not isinstance(value, (int, float)):
            raise TypeError(f"{self}: {param} is not a number")
        return value

    def value_of(self, param: str) -> object:
        """The parameter's value, its default when not set."""
        for key, value in self.params:
            if key == param:
                return value
        return self.family.param(param).default

    @property
    def higher_is_better(self) -> bool:
        """Which way a value is better: what the optimistic tie order maximises (or, when False,
        minimises)."""
        return not (
            self.family.lower_is_better
            or any(self.value_of(p) for p in self.family.lower_is_better_with)
        )

    def aggregated(self, mean: float) -> float:
        """The number a mean of its per-query values stands for (exp of a mean of logs for a
        geometric mean; the mean itself for nearly every family)."""
        return self.family.aggregator.shown(mean)

    @property
    def key(self) -> str:
        """What identifies its values in a cache: its name (a score's adds its content)."""
        return str(self)

    @property
    def from_rankings(self) -> bool:
        """Whether it is computed from the ranked documents (a score read from a file is not: it
        has no chance level)."""
        return True

    @property
    def has_closed_form(self) -> bool:
        """Whether its exact mean over the orders of tied documents is known (``ties=expected``,
        the chance level)."""
        return self.family.expected is not None

    def __str__(self) -> str:
        if self.family.written is not None:
            return self.family.written(self)
        text = self.name
        at = self.family.at_param
        shown = [(k, v) for k, v in self.params if k != at]
        if shown:
            text += "(" + ",".join(f"{k}={v}" for k, v in shown) + ")"
        if at is not None:
            text += f"@{self.value_of(at)}"
        elif self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def undefined(self, table) -> np.ndarray:
        """A bool per query of ``table``: where the value is a 0 / 0 the kernel scores 0 (an empty
        list's interpolated precision), as :attr:`Family.undefined` says; trec_eval prints
        ``-nan`` there."""
        if self.family.undefined is None:
            return np.zeros(table.n_queries, dtype=bool)
        values = {p.name: self.value_of(p.name) for p in self.family.params if p is not JUDGED_ONLY}
        if self.family.condensable and self.value_of("judged_only"):
            table = table.condensed()
        return self.family.undefined(table, self.cutoff, **values)

    def __call__(self, table) -> np.ndarray:
        """Per-query values on a :class:`~rankviz.ranking.ranking_table.RankingTable`, aligned with
        its qids; NaN under a closed-form tie policy for a measure without one (a chance level not
        known)."""
        values = {
            p.name: self.value_of(p.name)
            for p in self.family.params
            if p is not JUDGED_ONLY or not self.family.condensable  # its own condensing
        }
        if self.family.reads is not None and self.family.reads[0] not in table.beside:
            raise MeasureError(f"{self} needs {self.family.reads[1]}")
        if self.family.condensable and self.value_of("judged_only"):
            table = table.condensed()
        if not table.ties.closed_form:
            return self.family.kernel(table, self.cutoff, **values)
        if self.family.expected is None:
            return np.full(table.n_queries, np.nan)
        return self.family.expected(table, self.cutoff, **values)


def refuse_without_closed_form(measures: Sequence[Measure], ties: TiePolicy) -> None:
    """An OptionError naming the measures without a closed form over tied orders, when ``ties``
    takes closed forms (``expected``)."""
    lacking = [str(m) for m in measures if not m.has_closed_form]
    if ties.closed_form and lacking:
        raise OptionError(
            f"ties={ties}: no closed form over the orders of tied documents for "
            f"{', '.join(lacking)}; ties=random draws orders"
        )


_SYNTAX = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z_-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*$"
)


def make(name: str, cutoff: int | None = None, **params: object) -> Measure:
    """Build a canonical measure from a family name (or alias), a cutoff and parameters."""
    family_name = _LOOKUP.get(name.lower())
    if family_name is None:
        known = ", ".join(sorted({*FAMILIES, "MRR", "MAP", "NDCG", "Success"}))
        raise MeasureError(f"unknown measure {name!r}; known: {known}")
    family = FAMILIES[family_name]
    given = {}
    for key, value in params.items():
        spec = family.param(key)
        try:
            value = spec.parse(str(value))
        except OptionError as exc:
            raise MeasureError(f"{family.name}: {exc}") from None
        if value != spec.default or key in family.always_named:
            given[key] = value
    for key in family.always_named:
        given.setdefault(key, family.param(key).default)
    for key, needed in family.needs:
        if given.get(key) is not None and not given.get(needed):
            raise MeasureError(f"{family.name}: {key} needs {needed}=True")
    if family.at_param is not None and given.get(family.at_param) is None:
        raise MeasureError(
            f"{family.name} needs its {family.at_param} after @, e.g. {family.at_example}"
        )
    ordered = tuple((p.name, given[p.name]) for p in family.params if p.name in given)
    if cutoff is not None and (
        not isinstance(cutoff, (int, np.integer)) or not 1 <= cutoff <= family.max_cutoff
    ):
        raise MeasureError(
            f"{name}@{cutoff}: the cutoff must be at least 1 and at most {family.max_cutoff}"
        )
    if cutoff is None and family.cutoff_required:
        raise MeasureError(f"{family.name} needs a cutoff, e.g. {family.name}@10")
    if cutoff is not None and not family.cutoff_allowed:
        raise MeasureError(
            f"{family.name} takes no cutoff (as trec_eval's {family.name.lower()}): "
            f"write {family.name}"
        )
    return Measure(family.name, ordered, None if cutoff is None else int(cutoff))


def parse(text: str | Measure, *, defaults: dict[str, object] | None = None) -> Measure:
    """A measure from its name, as ir_measures and trec_eval write it.

    Parameters
    ----------
    text
        ``"RR(rel=2)@10"``, ``"nDCG@10"``, trec_eval's ``"ndcg_cut.10"`` or ``"P_5"``, or a
        :class:`Measure` (returned as it is).
    defaults
        Parameter values for what the text does not set (when the family has the parameter):
        ``{"rel": 2}``.

    Returns
    -------
    Measure
        The canonical measure; ``str()`` of it is its name in every output."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        if not type(text).__module__.startswith("ir_measures"):
            raise MeasureError(
                f"a measure is a name like RR@10 or nDCG(cutoff=10), not a {type(text).__name__}"
            )
        # an ir_measures measure object prints its ir_measures name, which reads here too
        text = str(text)
    text = rewritten(text)
    match = _SYNTAX.match(text)
    if not match:
        raise MeasureError(
            f"cannot read measure {text!r}; write it like RR@10, nDCG(gain=exp)@10 or AP"
        )
    params: dict[str, object] = {}
    if match["params"] and match["params"].strip():
        for item in split_outside_brackets(match["params"]):
            key, eq, value = item.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise MeasureError(
                    f"in {text!r}: parameter {item.strip()!r} should look like name=value"
                )
            params[key.strip()] = value.strip()
    name = match["name"]
    if name.lower() == "numret" and "rel" in params:  # how ir_measures prints NumRelRet
        name = "NumRelRet"
    family_name = _LOOKUP.get(name.lower())
    at = FAMILIES[family_name].at_param if family_name is not None else None
    if at is not None and match["cutoff"] is not None:  # IPrec@0.5: a parameter, not a cutoff
        if at in params:
            raise MeasureError(f"in {text!r}: {at} is given twice")
        params[at] = match["cutoff"]
    written = [match["cutoff"]] if match["cutoff"] is not None and at is None else []
    if "cutoff" in params:  # ir_measures' other spelling: nDCG(cutoff=10) is nDCG@10
        written.append(str(params.pop("cutoff")))
    cutoff = None
    for given in written:
        if not re.fullmatch(r"[0-9]+", given):
            raise MeasureError(f"in {text!r}: the cutoff {given!r} must be a whole number")
        if cutoff is not None and cutoff != int(given):
            raise MeasureError(f"in {text!r}: two different cutoffs ({cutoff} and {int(given)})")
        cutoff = int(given)
    if family_name is not None and defaults:
        names = {p.name for p in FAMILIES[family_name].params}
        for key, default in defaults.items():
            if key in names and key not in params:
                params[key] = default
    return make(name, cutoff, **params)


def expand(text: str | Measure, *, defaults: dict[str, object] | None = None) -> list[Measure]:
    """The measures one item of a list of measure names stands for: one, as :func:`parse` reads
    it, or for trec_eval's spelling of several cutoffs, ``P.5,10`` or ``ndcg_cut.5,10,20``, one per
    cutoff (as ``trec_eval -m`` and ir_measures' ``parse_trec_measure`` read it), and for
    trec_eval's sets ``official`` and ``all_trec`` their measures of the catalogue."""
    if isinstance(text, str) and text.strip() in TREC_EVAL_SETS:
        return [parse(name, defaults=defaults) for name in TREC_EVAL_SETS[text.strip()]]
    multiples = (rprec_multiples(text) or iprec_levels(text)) if isinstance(text, str) else None
    if multiples is not None:
        return [parse(name, defaults=defaults) for name in multiples]
    spelled = trec_eval_cutoffs(text) if isinstance(text, str) else None
    if spelled is None:
        return [parse(text, defaults=defaults)]
    family, cutoffs = spelled
    return [parse(f"{family}@{c}", defaults=defaults) for c in cutoffs]
