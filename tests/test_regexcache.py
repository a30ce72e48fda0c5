"""core.regexcache: patterns built from kept programs behave exactly as ``re``'s own, the file is
written only when worth it, and nothing unexpected in it is ever used."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from array import array
from collections.abc import Iterator
from pathlib import Path
from re import _compiler  # type: ignore[attr-defined]

import pytest

from core import regexcache
from core.language.chars import HAN

# re's own compiling step, as this module found it (nothing here replaces it at import).
PLAIN = _compiler.compile

# Patterns with the features the product's patterns use: named groups, lookarounds, inline and
# passed flags, Unicode classes, a big alternation, backreferences, possessive-free repeats.
PATTERNS: list[tuple[str, int]] = [
    (r"(?P<service>[a-z][a-z0-9-]*)-service\b", 0),
    (r"(?<![a-z0-9_\-])order-service(?![a-z0-9_])", 0),
    (r"\bfir(?:e|es|ed|ing)\b|\bactive\b|在触发|触发|正在告警", re.IGNORECASE),
    (rf"[{HAN}]+", 0),
    (r"(?i)timeout|超时|time(?:d)? out", 0),
    (r"(\w+)\s+\1", 0),
    (r"^\s*\[(?P<ts>[^\]]+)\]\s*\[(?P<level>[^\]]+)\]", re.MULTILINE | re.DOTALL),
    ("|".join(f"word{index}" for index in range(300)), 0),
    (r"\d+(?:\.\d+)?\s*(?:ms|s|%)", re.ASCII),
]
TEXTS = [
    "order-service 在触发 HighCPUUsage FIRING: timeout after 2000ms, 92.5 %",
    "[2026-07-08T11:14:20+08:00][ERROR] payment-service Timed Out\n[x][WARN] retry retry",
    "word12 word299 word3000 支付服务 超时 active 3 s",
    "",
]


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The cache file in ``tmp_path``, serving ``re`` for the test (as the CLI's ``keep_in``)."""
    monkeypatch.setattr(regexcache, "SAVE_AFTER_MISSES", 1)
    re.purge()  # re's own cache of pattern objects would answer before any program is looked up
    regexcache.keep_in(tmp_path)
    try:
        yield regexcache.cache_file(tmp_path)
    finally:
        regexcache.stop()
        re.purge()


def _reload(path: Path) -> regexcache._Cache:
    """A later process: the same file, nothing loaded yet, re's own cache empty."""
    regexcache.stop()
    re.purge()
    regexcache.keep_in(path.parent)
    assert regexcache._cache is not None
    return regexcache._cache


def _same_behaviour(built: re.Pattern[str], expected: re.Pattern[str]) -> None:
    assert (built.pattern, built.flags, built.groups, dict(built.groupindex)) == \
        (expected.pattern, expected.flags, expected.groups, dict(expected.groupindex))
    for text in TEXTS:
        assert [match.span() for match in built.finditer(text)] == [m.span() for m in expected.finditer(text)]
        assert [match.groupdict() for match in built.finditer(text)] == \
            [m.groupdict() for m in expected.finditer(text)]
        assert built.sub("<>", text) == expected.sub("<>", text)


def test_kept_programs_build_the_same_patterns(kept: Path) -> None:
    first = [re.compile(pattern, flags) for pattern, flags in PATTERNS]
    assert regexcache._cache is not None and regexcache._cache.misses == len(PATTERNS)
    regexcache._cache.save()
    assert kept.is_file()
    cache = _reload(kept)
    second = [re.compile(pattern, flags) for pattern, flags in PATTERNS]
    assert cache.misses == 0 and len(cache.used) == len(PATTERNS)  # every program from the file
    for (pattern, flags), built_first, built_second in zip(PATTERNS, first, second, strict=True):
        expected = PLAIN(pattern, flags)
        _same_behaviour(built_first, expected)
        _same_behaviour(built_second, expected)


def test_every_way_into_re_is_served(kept: Path) -> None:
    assert re.search(r"(?P<n>\d+) ms", "took 20 ms")["n"] == "20"  # type: ignore[index]
    assert re.sub(r"\s+", " ", "a \t b") == "a b"
    assert re.compile(rb"\r\n|\n").split(b"a\r\nb\nc") == [b"a", b"b", b"c"]
    assert regexcache._cache is not None
    assert {(r"(?P<n>\d+) ms", 0), (r"\s+", 0), (rb"\r\n|\n", 0)} <= regexcache._cache.used


def test_a_bad_pattern_fails_as_re_does(kept: Path) -> None:
    with pytest.raises(re.error, match="missing \\)"):
        re.compile(r"(unclosed")
    assert regexcache._cache is not None  # a bad pattern is the caller's error, not the cache's


def test_few_new_patterns_leave_the_file_alone(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regexcache, "SAVE_AFTER_MISSES", 3)
    re.compile(r"one")
    re.compile(r"two")
    assert regexcache._cache is not None
    regexcache._cache.save()
    assert not kept.exists()
    re.compile(r"three")
    regexcache._cache.save()
    assert kept.is_file()


def test_an_oversized_file_keeps_what_was_used(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regexcache, "MAX_PROGRAMS", 3)
    for index in range(5):
        re.compile(f"old{index}")
    assert regexcache._cache is not None
    regexcache._cache.save()
    _reload(kept)
    re.compile("old4")
    re.compile("new")
    assert regexcache._cache is not None
    regexcache._cache.save()
    stored = marshal.loads(kept.read_bytes())["programs"]
    assert sorted(stored) == [("new", 0), ("old4", 0)]


@pytest.mark.parametrize("content", [b"", b"not marshal at all \x00\xff", marshal.dumps([1, 2, 3]),
                                     marshal.dumps({"engine": (0, 0, 0), "programs": {}})])
def test_an_unreadable_or_foreign_file_is_not_used(kept: Path, content: bytes) -> None:
    kept.write_bytes(content)
    cache = _reload(kept)
    _same_behaviour(re.compile(PATTERNS[0][0]), PLAIN(PATTERNS[0][0], 0))
    assert cache.misses == 1


def test_a_program_the_engine_refuses_gives_re_its_step_back(kept: Path) -> None:
    from re import _compiler  # type: ignore[attr-defined]

    pattern = PATTERNS[1][0]
    flags, code, groups, groupindex, indexgroup = regexcache._program(pattern, 0)
    kept.write_bytes(marshal.dumps({"engine": regexcache._engine(), "programs": {
        (pattern, 0): (flags, array(regexcache._CODE_TYPE, [9999]).tobytes() + code, groups, groupindex,
                       indexgroup)}}))
    _reload(kept)
    _same_behaviour(re.compile(pattern), PLAIN(pattern, 0))
    assert regexcache._cache is None and _compiler.compile is PLAIN


def test_an_unwritable_folder_is_not_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setattr(regexcache, "SAVE_AFTER_MISSES", 1)
    re.purge()
    regexcache.keep_in(blocker / "patterns")
    try:
        re.compile(r"anything")
        assert regexcache._cache is not None
        regexcache._cache.save()  # logged at debug, not raised
    finally:
        regexcache.stop()
    assert not (blocker / "patterns").exists()


def _ask(cache: Path, question: str) -> list[str]:
    environment = {**os.environ, "SUPERBIZ_CACHE_DIR": str(cache)}
    result = subprocess.run([sys.executable, "-m", "core", "ask", question, "--no-store"], env=environment,
                            capture_output=True, text=True, timeout=120, check=True)
    # The session id and the timings differ from run to run; the answer must not.
    return [line for line in result.stdout.splitlines()
            if not re.search(r"\bs-\d{8}-\d{6}-[0-9a-f]{6}\b|\d+(?:\.\d+)? ?ms\b", line)]


def test_the_cli_keeps_its_patterns_and_answers_the_same(tmp_path: Path) -> None:
    question = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"
    first = _ask(tmp_path, question)
    [kept] = (tmp_path / "patterns").iterdir()
    stored = marshal.loads(kept.read_bytes())["programs"]
    assert len(stored) > 300  # the question reader's, the verifier's, the lexicon's, PyYAML's ...
    written = kept.stat().st_mtime_ns
    assert _ask(tmp_path, question) == first
    assert kept.stat().st_mtime_ns == written  # nothing new worth writing
    for (pattern, flags), program in stored.items():  # every kept program builds what re builds
        if isinstance(pattern, str):
            _same_behaviour(regexcache._build(pattern, program), PLAIN(pattern, flags))


def test_debug_patterns_are_left_to_re(kept: Path, capsys: pytest.CaptureFixture[str]) -> None:
    compiled = re.compile(r"ab+c", re.DEBUG)
    assert "LITERAL" in capsys.readouterr().out  # re's own step printed the program
    assert compiled.fullmatch("abbc")
    assert regexcache._cache is not None and (r"ab+c", re.DEBUG.value) not in regexcache._cache.used
