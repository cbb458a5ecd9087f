"""The sample collections rankviz ships: a folder's path from Python, wherever the code runs."""

from __future__ import annotations

from pathlib import Path

from rankviz.errors import CollectionError

_PACKAGE = Path(__file__).resolve().parents[1]
#: where samples are: the package's own (Cranfield, in every install), then a checkout's
#: sample_data beside the package (DL-HARD, CAsT, the RAG sample)
PLACES = (_PACKAGE / "sample_data", _PACKAGE.parent / "sample_data")


def sample_path(name: str = "cranfield") -> Path:
    """The folder of the bundled sample collection ``name``, to open from any working folder:
    ``rv.Study.open(rv.sample_path("cranfield"))``.

    Parameters
    ----------
    name
        ``cranfield`` (in every install), or in a checkout ``dl-hard-passage``,
        ``trec-cast-2021``, ``rag-nuggets``.

    Returns
    -------
    Path
        The collection folder. A CollectionError names the samples there are when ``name`` is not
        one of them.
    """
    for place in PLACES:
        if (place / name / "collection.toml").is_file():
            return place / name
    there = sorted(
        {p.name for place in PLACES if place.is_dir() for p in place.iterdir() if p.is_dir()}
    )
    raise CollectionError(f"no sample collection {name!r}; there are: {', '.join(there)}")
