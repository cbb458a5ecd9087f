"""Two ways of writing one id: ``q12`` and ``12``, ``msmarco_passage_7`` and ``7``, ``D1#3`` and
``D1``, ``Doc7`` and ``doc7``. What a check calls a near miss: ids that differ only so."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankviz._arrow import booleans, from_numpy, to_numpy

#: What every id goes through before two are compared (both sides alike): case, leading zeros.
_BASE = ((r"^0+([0-9]+)$", r"\1"),)
#: What one way of writing an id may add that the other lacks: a passage's segment suffix (doc#3), a
#: word prefix before a number (q12, doc:7, msmarco_passage_7), a namespace (doc:any-id), or a
#: suffix with one of those. Never dropped from both
#: sides: KILT_7 and MARCO_D7 are two collections' documents, not one document written two ways.
_SUFFIX = (r"^(.*)#[0-9]+$", r"\1")
_PREFIX = (r"^[a-z][a-z_]*[:_\-]?([0-9]+)$", r"\1")
# a namespace before any id: doc:clueweb09-en0000-00-00000
_NAMESPACE = (r"^[a-z][a-z_]*:(.+)$", r"\1")


def _holding(keys, character: str) -> np.ndarray:
    """Which ids hold ``character`` (ASCII): none, without a pass over the ids, when no byte of
    their buffers is it (most collections' docids hold no ``#`` and no ``:``)."""
    chunks = keys.chunks if isinstance(keys, pa.ChunkedArray) else [keys]
    buffers = [chunk.buffers()[2] for chunk in chunks]
    if not any(b is not None and ord(character) in np.frombuffer(b, np.uint8) for b in buffers):
        return np.zeros(len(keys), dtype=bool)
    return booleans(pc.match_substring(keys, character))


def _has_suffix(keys) -> np.ndarray:
    return _holding(keys, "#")


def _starts_with_a_letter(keys) -> np.ndarray:
    return booleans(pc.utf8_is_alpha(pc.utf8_slice_codeunits(keys, 0, 1)))


def _has_namespace(keys) -> np.ndarray:
    return _holding(keys, ":")


def _any_number(keys) -> bool:
    return bool(pc.any(pc.ascii_is_decimal(keys)).as_py())


def _anything(keys) -> bool:
    return True


#: Each addition, with the cheap tests an id must pass to carry it (only those go through its
#: patterns: MS MARCO's millions of numbers go through none), and one of the ids it must be
#: matched against, telling whether any could be what dropping it leaves (dropping a word prefix
#: leaves a number: a million ``D0001234`` need not be rewritten when no other id is a number).
_ADDITIONS = (
    ((_SUFFIX,), (_has_suffix,), _anything),
    ((_PREFIX,), (_starts_with_a_letter,), _any_number),
    ((_NAMESPACE,), (_has_namespace,), _anything),
    ((_SUFFIX, _PREFIX), (_has_suffix, _starts_with_a_letter), _any_number),
    ((_SUFFIX, _NAMESPACE), (_has_suffix, _has_namespace), _anything),
)


def _rewritten(keys, rules):
    for pattern, replacement in rules:
        keys = pc.replace_substring_regex(keys, pattern, replacement)
    return keys


def normalised(ids: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Each id trimmed, lower-cased, without leading zeros."""
    keys = pc.utf8_lower(pc.utf8_trim_whitespace(ids))
    return _rewritten(keys, _BASE) if booleans(pc.starts_with(keys, "0")).any() else keys


@dataclass(frozen=True, eq=False)
class IdForms:
    """Ids to match near misses against, with what :func:`near_match` reads of them made once,
    when first asked: the normalised keys and which carry each addition. A qrels' million docids
    go through those passes once, however many runs' samples are matched against them.

    Parameters
    ----------
    ids
        The ids (Arrow strings).
    """

    ids: pa.Array
    _carrying: dict = field(default_factory=dict, repr=False)

    @functools.cached_property
    def keys(self) -> pa.Array:
        """The ids :func:`normalised`."""
        return normalised(self.ids)

    def carrying(self, tests) -> np.ndarray:
        """Positions of the ids that pass every one of ``tests`` (each test's pass made once)."""
        for test in tests:
            if test not in self._carrying:
                self._carrying[test] = test(self.keys)
        return np.flatnonzero(np.logical_and.reduce([self._carrying[test] for test in tests]))


def _passing(keys, tests) -> np.ndarray:
    return np.flatnonzero(np.logical_and.reduce([test(keys) for test in tests]))


def near_match(unmatched: pa.Array, targets: pa.Array | IdForms) -> np.ndarray:
    """For each unmatched id, the index of the target it matches once normalised, else -1: equal but
    for case or leading zeros, or once a prefix or suffix only one of the two carries is dropped.
    ``targets``: ids, or their :class:`IdForms` when many samples are matched against them."""
    forms = targets if isinstance(targets, IdForms) else IdForms(targets)
    match = np.full(len(unmatched), -1, dtype=np.int64)
    if not len(unmatched) or not len(forms.ids):
        return match
    target_keys = forms.keys
    keys = normalised(unmatched).cast(target_keys.type)

    def note(found: np.ndarray) -> None:
        fresh = (match < 0) & (found >= 0)
        match[fresh] = found[fresh]

    note(_first_in(keys, target_keys))
    for rules, tests, leaves in _ADDITIONS:
        # the target carries the addition
        carrying = forms.carrying(tests) if leaves(keys) else np.zeros(0, np.int64)
        if len(carrying):
            found = _first_in(
                keys, _rewritten(target_keys.take(from_numpy(carrying)), (*rules, *_BASE))
            )
            note(np.where(found >= 0, carrying[np.maximum(found, 0)], -1))
        carrying = _passing(keys, tests)  # this id carries it
        if len(carrying):
            own = keys.take(from_numpy(carrying))
            shorter = _rewritten(own, (*rules, *_BASE))
            found = np.full(len(unmatched), -1, dtype=np.int64)
            found[carrying] = np.where(
                booleans(pc.not_equal(shorter, own)), _first_in(shorter, target_keys), -1
            )
            note(found)
    return match


def _index_in(values, value_set) -> np.ndarray:
    return to_numpy(pc.index_in(values, value_set=value_set), fill=-1).astype(np.int64)


def _first_in(values, targets) -> np.ndarray:
    """Each value's first position in ``targets``, -1 where it is not there. The hash table is
    made of the smaller side: a sample of a run's ids against a million judged ones probes the
    million into a table of the sample's."""
    if len(targets) <= len(values):
        return _index_in(values, targets)
    distinct = pc.unique(values)
    owner = _index_in(targets, distinct)  # which distinct value each target equals
    hits = np.flatnonzero(owner >= 0)
    first = np.full(len(distinct), len(targets), dtype=np.int64)
    np.minimum.at(first, owner[hits], hits)
    first[first == len(targets)] = -1
    return first[_index_in(values, distinct)]


def near_misses(unmatched: pa.Array, targets: pa.Array) -> list[tuple[str, str]]:
    """(unmatched id, the target it matches once normalised), for every unmatched id that does."""
    match = near_match(unmatched, targets)
    rows = np.flatnonzero(match >= 0)
    names, wanted = (
        unmatched.take(from_numpy(rows)).to_pylist(),
        targets.take(from_numpy(match[rows])).to_pylist(),
    )
    return [(str(a), str(b)) for a, b in zip(names, wanted, strict=True)]
