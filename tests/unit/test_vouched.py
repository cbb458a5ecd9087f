"""Who a sign-in is (#67): an explicit ``email_verified: false`` stays false whatever else the
provider sends, ``xms_edov`` counts on Microsoft Entra ID alone and only without email_verified,
and an address whose name or domain mixes scripts is refused (UTS #39's mixed-script rule)."""

from __future__ import annotations

import pytest

from rankviz.study.served import mixed_scripts, vouched_address

ENTRA = "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"


@pytest.mark.parametrize(
    ("claims", "identity"),
    [
        ({"email": "olga@example.org", "email_verified": True}, "olga@example.org"),
        ({"email": "olga@example.org", "email_verified": "true"}, "olga@example.org"),
        ({"email": "olga@example.org", "xms_edov": True, "iss": ENTRA}, "olga@example.org"),
        ({"email": "olga@example.org", "xms_edov": "1", "iss": ENTRA}, "olga@example.org"),
        # an explicit false stays false: xms_edov does not override it, on Entra either
        ({"email": "olga@example.org", "email_verified": False, "xms_edov": True}, ""),
        (
            {"email": "olga@example.org", "email_verified": False, "xms_edov": True, "iss": ENTRA},
            "",
        ),
        # xms_edov is Entra's claim: any other issuer's counts for nothing
        ({"email": "olga@example.org", "xms_edov": True}, ""),
        ({"email": "olga@example.org", "xms_edov": True, "iss": "https://evil.example"}, ""),
        ({"email": "olga@example.org", "xms_edov": False, "iss": ENTRA}, ""),
    ],
)
def test_the_verified_claims(claims: dict, identity: str) -> None:
    found, why = vouched_address(claims)
    assert found == identity
    assert bool(why) == (identity == "")


@pytest.mark.parametrize(
    ("address", "mixed"),
    [
        ("olga@example.org", ""),
        ("\u043elga@example.org", "name"),  # a Cyrillic o in a Latin name
        ("\u043e\u043b\u044c\u0433\u0430@example.org", ""),  # all Cyrillic: one script
        ("\u5c71\u7530\u3072\u308d\u3057@example.org", ""),  # Han with Hiragana: Japanese
        ("\ud55c\u56fd@example.org", ""),  # Hangul with Han: Korean
        ("ann.1990+x@example.org", ""),  # digits and punctuation belong to every script
        ("olga@xn--exmple-4nf.org", "domain"),  # a Cyrillic a among Latin letters
        ("olga@xn--e1afmkfd.xn--p1ai", ""),  # Cyrillic labels, each of one script
    ],
)
def test_a_name_or_domain_mixing_scripts(address: str, mixed: str) -> None:
    assert mixed_scripts(address) == mixed


def test_a_mixed_script_address_is_refused_in_one_sentence_naming_why() -> None:
    found, why = vouched_address({"email": "\u043elga@example.org", "email_verified": True})
    assert found == "" and why.count(". ") == 0 and "mixes letters of several scripts" in why
    assert "UTS #39" in why
