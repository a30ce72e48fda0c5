"""The limits of ``core.inputs`` at their edges: what is refused, and that what is fine still is."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.errors import InputError
from core.inputs.documents import INT_LIMIT, MAX_DEPTH, parse_json
from core.inputs.files import read_bytes, read_text
from core.inputs.patterns import regex_problem
from core.inputs.text import MAX_QUESTION_CHARS, check_question, repair_text, text_problem
from core.inputs.yamldoc import MAX_ALIAS_CHARS, MAX_ALIAS_NODES, parse_yaml
from core.outputs import check_output_target, write_atomically


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_nesting_up_to_the_limit_is_fine_one_more_is_refused() -> None:
    assert parse_json(_nested(MAX_DEPTH), source="d") is not None
    with pytest.raises(InputError, match=f"nested deeper than {MAX_DEPTH}"):
        parse_json(_nested(MAX_DEPTH + 2), source="d")
    assert parse_yaml(_nested(MAX_DEPTH - 1), source="y") is not None
    with pytest.raises(InputError, match="nested deeper"):
        parse_yaml(_nested(MAX_DEPTH + 2), source="y")


def test_integers_up_to_64_bits_are_fine() -> None:
    assert parse_json(f"[{INT_LIMIT}, {-INT_LIMIT}, 1e308]", source="n") == [INT_LIMIT, -INT_LIMIT,
                                                                             1e308]
    with pytest.raises(InputError, match=r"\$\[0\]: integer out of range"):
        parse_json(f"[{INT_LIMIT + 1}]", source="n")
    with pytest.raises(InputError, match="not usable JSON: Exceeds the limit"):
        parse_json("9" * 5000, source="n")


def test_text_that_is_not_unicode_is_named_where_it_is() -> None:
    with pytest.raises(InputError, match=r"doc: \$\.a\[1\]: text holds a lone surrogate U\+D800"):
        parse_json('{"a": ["ok", "x\\ud800"]}', source="doc")
    assert parse_json('{"a": "paired \\ud83d\\ude00 and NUL \\u0000"}', source="doc") == {
        "a": "paired \U0001F600 and NUL \x00"}  # a surrogate pair is one character; NUL is text
    assert text_problem("\udcff") is not None and text_problem("ok \x00") is None
    assert repair_text("a\ud800b") == "a\ufffdb"


def test_yaml_aliases_are_fine_until_they_amplify() -> None:
    normal = "base: &base {service: a, level: WARN}\nitems: [*base, *base, *base]\n"
    assert parse_yaml(normal, source="y")["items"][2] == {"service": "a", "level": "WARN"}
    amplifying = "a: &a [" + ", ".join(["x"] * 100) + "]\n" + "".join(
        f"{name}: &{name} [{', '.join(['*' + prev] * 100)}]\n" for prev, name in zip("ab", "bc",
                                                                                    strict=True))
    with pytest.raises(InputError, match=f"aliases may add at most {MAX_ALIAS_NODES:,}"):
        parse_yaml(amplifying, source="y")
    with pytest.raises(InputError, match="cycle"):
        parse_yaml("&a [*a]", source="y")


def test_yaml_aliases_of_long_text_are_refused_in_milliseconds() -> None:
    """Few nodes, much text: a 1 MB string referred to 10,000 times (10 GB of text) took
    minutes to check before anything read it."""
    text = ("a: &a '" + "x" * 1_000_000 + "'\nb: &b [" + ", ".join(["*a"] * 100) + "]\n"
            "c: [" + ", ".join(["*b"] * 100) + "]\n")
    started = time.process_time()
    with pytest.raises(InputError, match=f"aliases may add at most {MAX_ALIAS_CHARS:,}"):
        parse_yaml(text, source="y")
    assert time.process_time() - started < 2.0
    # The same text used a few times is fine: the limit is on what aliases add.
    fine = "a: &a '" + "x" * 1_000_000 + "'\nb: [*a, *a, *a]\n"
    assert len(parse_yaml(fine, source="y")["b"][2]) == 1_000_000


def test_yaml_keeps_timestamps_as_text_and_refuses_duplicate_keys() -> None:
    assert parse_yaml("now: 2026-07-08T11:20:00+08:00\n", source="y") == {
        "now": "2026-07-08T11:20:00+08:00"}
    with pytest.raises(InputError, match=r"line 2.*duplicate key 'a'"):
        parse_yaml("a: 1\na: 2\n", source="y")
    with pytest.raises(InputError, match="invalid YAML"):
        parse_yaml("- !!python/object/apply:os.system [true]\n", source="y")


def test_questions() -> None:
    assert check_question("  only confirm CPU  ") == "only confirm CPU"
    assert check_question("x" * MAX_QUESTION_CHARS)
    for bad, message in (("   ", "is empty"), ("x" * (MAX_QUESTION_CHARS + 1), "characters long"),
                         ("q \ud800", "lone surrogate")):
        with pytest.raises(InputError, match=message):
            check_question(bad)


def test_files_are_regular_and_bounded(tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_bytes(b"12345")
    assert read_bytes(small, max_bytes=5) == b"12345"
    with pytest.raises(InputError, match="too large"):
        read_bytes(small, max_bytes=4)
    os.mkfifo(tmp_path / "fifo")
    for path, message in ((tmp_path / "fifo", "a FIFO"), (tmp_path, "a directory"),
                          (Path("/dev/zero"), "a character device")):
        with pytest.raises(InputError, match=message):
            read_bytes(path, max_bytes=100)
    (tmp_path / "bad.txt").write_bytes(b"ok\n\xc3(")
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xc3 at offset 3\)"):
        read_text(tmp_path / "bad.txt", max_bytes=100)


def test_within_a_folder_links_may_not_leave_it(tmp_path: Path) -> None:
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "real.md").write_text("inside", encoding="utf-8")
    (folder / "inside.md").symlink_to("real.md")
    (folder / "outside.md").symlink_to(tmp_path / "secret.txt")
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    assert read_text(folder / "inside.md", max_bytes=100, within=folder) == "inside"
    with pytest.raises(InputError, match="links outside its folder"):
        read_text(folder / "outside.md", max_bytes=100, within=folder)


@pytest.mark.parametrize(("pattern", "refused"), [
    (r"(?P<timestamp>\S+ \S+) (?P<level>\w+) (?P<message>.*)", False),
    (r"[a-z]+(?:-[a-z]+)*", False), (r"(\d+\.)+\d+", False), (r"(a++)+", False),
    (r"(?>a+)+", False), (r"(a|b)+", False), (r"(?:GET|POST|PUT)+", False),
    (r"(?:\d+|[a-z]+)*", False), (r"(?>\w|\w)*x", False),
    (r"(a+)+", True), (r"(\w+\s?)*", True), (r"(?:(?:a*)*)*", True), (r"(x|(y+)+)z", True),
    (r"(\w|\w)*x", True), (r"(?:a|ab)*c", False), (r"((?:\s|\s)+)$", True),
    (r"(?:x(?:ab|ab))+", True),
])
def test_regexes_that_backtrack_catastrophically_are_refused(pattern: str, refused: bool) -> None:
    assert (regex_problem(pattern) is not None) == refused


def test_outputs_go_to_new_or_regular_files_only(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_atomically(target, [b'{"a": ', b"1}"])
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": 1}
    write_atomically(target, [b"[]"])  # a regular file is replaced whole
    assert target.read_text(encoding="utf-8") == "[]"
    (tmp_path / "link.json").symlink_to(target)
    with pytest.raises(InputError, match="it is a symlink"):
        check_output_target(tmp_path / "link.json")
    nested = tmp_path / "reports" / "ci" / "junit.xml"
    write_atomically(nested, [b"<x/>"], make_folders=True)
    assert nested.read_bytes() == b"<x/>"
    with pytest.raises(InputError, match="does not exist"):
        check_output_target(tmp_path / "nope" / "out.json")

    class Interrupted(Exception):
        pass

    def chunks() -> Iterator[bytes]:
        yield b"partial"
        raise Interrupted

    with pytest.raises(Interrupted):
        write_atomically(target, chunks())
    assert target.read_text(encoding="utf-8") == "[]"  # the old file, whole
    assert not [path for path in tmp_path.iterdir() if path.name.endswith(".partial")]
