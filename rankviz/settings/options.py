"""An option, defined once: its values, its default, what it means, and how each front end spells
it.

The command line builds its flag from it (:attr:`Option.flag`), the app its widget and URL value
(:mod:`rankviz.app.widgets.option_widgets`), the settings classes their validation, and the docs
their tables.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from rankviz.errors import OptionError


@dataclass(frozen=True)
class Option:
    """One option: a choice among ``choices`` or a number in ``[low, high]`` (``kind`` int or
    float)."""

    name: str
    default: Any
    doc: str
    label: str = ""
    choices: tuple = ()
    # value -> what it means (help and conventions)
    meanings: Mapping[Any, str] = field(default_factory=dict)
    kind: type = str
    low: float | None = None
    high: float | None = None
    optional: bool = False  # None is a value (fresh entropy for a seed, no group)
    none_text: str = ""  # how None is written (a link's value); "none" reads as None too
    cli: str = ""  # the command-line flag, when not --name
    validate: Callable[[str], str] | None = None  # for a text value with a syntax of its own

    @property
    def flag(self) -> str:
        return self.cli or "--" + self.name.replace("_", "-")

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ")

    def check(self, value: Any) -> Any:
        """The value if it is allowed, else an OptionError that says what is."""
        if (value is None or value is GIVEN_NONE) and self.optional:
            return None
        if self.kind is bool:
            if not isinstance(value, bool):
                raise OptionError(f"{self.name}={value!r}: expected True or False")
            return bool(value)
        if self.choices:
            if isinstance(value, str) and value not in self.choices:  # a value named (a tie policy)
                value = next((c for c in self.choices if str(c) == value), value)
            if value not in self.choices:
                raise OptionError(
                    f"{self.name}={value!r}: choose one of {', '.join(map(str, self.choices))}"
                )
            return value
        if self.kind is str:
            if not isinstance(value, str) or not value:
                raise OptionError(f"{self.name}={value!r}: expected a name")
            return self.validate(value) if self.validate else value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise OptionError(f"{self.name}={value!r}: expected {self._kind_text()}")
        if isinstance(value, float) and not math.isfinite(value):
            raise OptionError(f"{self.name}={value!r}: expected a finite number")
        if self.kind is int and value != int(value):
            raise OptionError(f"{self.name}={value!r}: expected a whole number")
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise OptionError(f"{self.name}={value!r}: {self.range_text()}")
        return self.kind(value)

    def parse(self, text: str) -> Any:
        """A value from text (a command-line flag, a URL parameter, a measure parameter)."""
        text = text.strip()
        if self.optional and text.lower() in ("", "none", self.none_text):
            return None
        if self.kind is bool:
            # a link may say present=1
            flags = {"true": True, "false": False, "1": True, "0": False}
            if text.lower() not in flags:
                raise OptionError(f"{self.name}={text!r}: expected True or False")
            return flags[text.lower()]
        if self.choices:
            matches = [c for c in self.choices if str(c) == text]
            return self.check(matches[0] if matches else text)
        if self.kind is str:
            return self.check(text)
        if not re.fullmatch(
            r"[+-]?[0-9]+"
            if self.kind is int
            else r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?",
            text,
        ):
            raise OptionError(
                f"{self.name}={text!r}: expected {self._kind_text()}; {self.range_text()}"
            )
        return self.check(int(text) if self.kind is int else float(text))

    def _kind_text(self) -> str:
        return "a whole number" if self.kind is int else "a number"

    def range_text(self) -> str:
        low, high = (
            None if v is None else f"{int(v):,}" if self.kind is int else f"{v:g}"
            for v in (self.low, self.high)
        )
        if low is not None and high is not None:
            return f"must be from {low} to {high}"
        if low is not None:
            return f"must be at least {low}"
        return f"must be at most {high}" if high is not None else ""

    def help(self) -> str:
        """One paragraph: what it sets, its values and its default (command-line help, widget
        help)."""
        values = "; ".join(
            f"{value}: {meaning}" for value, meaning in self.meanings.items() if meaning
        )
        if not values and self.choices:
            values = "one of " + ", ".join(map(str, self.choices))
        elif not values and self.kind is not str:
            values = self.range_text()
        default = "none" if self.default is None else self.default
        return f"{self.doc}{' (' + values + ')' if values else ''}; default {default}"


class GivenNone:
    """An optional option given as none on the command line (a seed's ``fresh``): unlike a flag
    left out (argparse's None, the default applies), it replaces the default with None."""

    def __repr__(self) -> str:
        return "GIVEN_NONE"


GIVEN_NONE = GivenNone()


class Settings:
    """Shared behaviour of the frozen settings classes: validation, replacement, text parsing.

    Each class's docstring ends with a Parameters section made from its options' own help (the
    text the command line and the app show), so the three never say different things."""

    OPTIONS: ClassVar[dict[str, Option]]
    BESIDE: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # cleaned first: Python 3.13 strips a docstring's common indentation, older versions keep it
        own = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
        if "OPTIONS" in cls.__dict__ and "Parameters\n" not in own:
            said = {name: option.help() for name, option in cls.OPTIONS.items()}
            entries = [
                f"{name}\n"
                + "\n".join(
                    "    " + line for line in textwrap.wrap(text, 88, break_on_hyphens=False)
                )
                for name, text in {**said, **cls.BESIDE}.items()
            ]
            cls.__doc__ = f"{own}\n\nParameters\n----------\n" + "\n".join(entries) + "\n"

    def __post_init__(self) -> None:
        for name, option in self.OPTIONS.items():
            object.__setattr__(self, name, option.check(getattr(self, name)))

    def replace(self, **changes: Any) -> Self:
        # every subclass is a frozen dataclass
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    @classmethod
    def from_args(cls, given: Mapping[str, Any] | Any, *, base: Self | None = None) -> Self:
        """Settings from parsed options: a command line's flags (an ``argparse.Namespace``) or a
        mapping by option name; each one given (not None) replaces ``base``'s (default: every
        option's default), the others are left as they are.

        Parameters
        ----------
        given
            The parsed flags or values; names that are not this class's options are ignored.
        base
            The settings the given options replace (a collection's defaults).

        Returns
        -------
        The settings, validated.
        """
        values = given if isinstance(given, Mapping) else vars(given)
        chosen = {n: values[n] for n in cls.OPTIONS if values.get(n) is not None}
        return (base or cls()).replace(**chosen)

    @classmethod
    def from_url(
        cls,
        values: Mapping[str, str],
        *,
        base: Self | None = None,
        on_error: Callable[[str], None] | None = None,
    ) -> Self:
        """Settings from text values (a link's parameters) over ``base``; a bad value raises, or
        with
        ``on_error`` is reported there and left at ``base``'s."""
        parsed: dict[str, Any] = {}
        for name, option in cls.OPTIONS.items():
            if name in values:
                try:
                    parsed[name] = option.parse(values[name])
                except OptionError as exc:
                    if on_error is None:
                        raise
                    on_error(f"{exc}; using {getattr(base or cls(), name)}")
        return (base or cls()).replace(**parsed)

    def to_text(self) -> dict[str, str]:
        """Every option that differs from its default, as text (URL parameters)."""
        return {
            name: option.none_text if getattr(self, name) is None else str(getattr(self, name))
            for name, option in self.OPTIONS.items()
            if getattr(self, name) != option.default
        }
