"""The matcher's cheap tests first: an excerpt of plain characters skips the character checks,
and a byte unit is looked for only where the ref holds one. Neither shortcut may change a
verdict: every plain character is one no character check objects to, and the byte-unit check
still rejects a unit whose case reads bits for bytes."""

from __future__ import annotations

import sys

import pytest

from core.language.byte_units import byte_unit_problem
from core.language.quotes import _character_problem, match_excerpt, plain_characters


def test_no_character_check_objects_to_a_plain_character() -> None:
    plain = [chr(code) for code in range(sys.maxunicode + 1)
             if not 0xD800 <= code <= 0xDFFF and plain_characters(chr(code))]
    assert len(plain) > 20_000  # ASCII, Latin-1, punctuation, CJK
    objected = [char for char in plain if _character_problem(f"a{char}1", "") is not None]
    assert objected == []


@pytest.mark.parametrize("char", ["\u200b", "\u202e", "\u0336", "\u00b9", "\u043e", "\u3007", "\x07", "\ue000"])
def test_a_suspect_character_is_not_plain(char: str) -> None:
    assert not plain_characters(f"current=9{char}1%")
    assert _character_problem(f"current=9{char}1%", "current=91%") is not None


def test_a_plain_excerpt_is_still_matched_in_normal_form() -> None:
    ref = "内存使用率过高: 91.2%, JVM堆内存: 3.8GB/4GB"
    assert match_excerpt("内存使用率过高：91.2％", ref).ok
    assert not match_excerpt("内存使用率过高: 19.2%", ref).ok


@pytest.mark.parametrize(("excerpt", "ref", "rejected"), [
    ("heap 4194304Kb", "heap 4194304kB", True),  # kilobits for kilobytes
    ("heap 4194304kB", "heap 4194304kB", False),
    ("HEAP 4194304KB", "heap 4194304kB", False),  # the whole quote recased
    ("Heap 4194304Kb", "heap 4194304kB", False),  # title case
    ("heap 4194304Kb", "heap 4194304kB, 4194304Kb", False),  # the ref holds both
    ("sent 4096b to 10.0.0.1", "sent 4096b to 10.0.0.1", False),
    ("heap 3.8GB", "JVM heap 3.8Gb/4GB", True),
])
def test_byte_units_keep_their_case(excerpt: str, ref: str, rejected: bool) -> None:
    assert bool(byte_unit_problem(excerpt, ref, ref)) is rejected
    assert match_excerpt(excerpt, ref).ok is not rejected


def test_a_ref_without_byte_units_has_no_unit_to_misread() -> None:
    assert byte_unit_problem("heap 4194304Kb", "heap size 4194304") == ""
    assert byte_unit_problem("heap 4194304Kb", "heap size 4194304kB") != ""
