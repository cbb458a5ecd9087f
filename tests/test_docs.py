"""The README's generated parts agree with the code they describe."""

from __future__ import annotations

import re

from conftest import ROOT

from rankviz.measures import markdown_table
from rankviz.settings import markdown_options

README = (ROOT / "README.md").read_text()


def between(name: str) -> str:
    match = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", README, re.S)
    assert match, f"README has no {name} block"
    return match.group(1)


def test_the_measure_table_is_generated_from_the_families() -> None:
    expected = markdown_table()
    assert between("measures") == expected, "stale; paste rankviz.measures.markdown_table():\n" + expected


def test_the_options_table_is_generated_from_the_settings() -> None:
    expected = markdown_options()
    assert between("options") == expected, "stale; paste rankviz.settings.markdown_options():\n" + expected


def test_the_architecture_names_every_package_folder() -> None:
    section = README[README.index("## Architecture") :]
    for folder in ("rankviz/io/", "rankviz/measures/", "rankviz/analyses/", "rankviz/cli/", "rankviz/app/", "pages/"):
        assert f"`{folder}`" in section
