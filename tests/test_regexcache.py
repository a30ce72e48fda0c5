"""core.regexcache: patterns built from kept programs behave exactly as ``re.compile``'s, the
file is written only when worth it, and nothing unexpected in it is ever used."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from array import array
from pathlib import Path

import pytest

from core import regexcache
from core.charclasses import HAN

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
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache file in ``tmp_path``, in use for the test (as ``keep_in`` would set it)."""
    path = regexcache.cache_file(tmp_path)
    monkeypatch.setattr(regexcache, "_cache", regexcache._Cache(path))
    monkeypatch.setattr(regexcache, "SAVE_AFTER_MISSES", 1)
    return path


def _reload(monkeypatch: pytest.MonkeyPatch, path: Path) -> regexcache._Cache:
    """A later process: the same file, nothing loaded yet."""
    cache = regexcache._Cache(path)
    monkeypatch.setattr(regexcache, "_cache", cache)
    return cache


def _same_behaviour(built: re.Pattern[str], expected: re.Pattern[str]) -> None:
    assert (built.pattern, built.flags, built.groups, dict(built.groupindex)) == \
        (expected.pattern, expected.flags, expected.groups, dict(expected.groupindex))
    for text in TEXTS:
        assert [match.span() for match in built.finditer(text)] == [m.span() for m in expected.finditer(text)]
        assert [match.groupdict() for match in built.finditer(text)] == \
            [m.groupdict() for m in expected.finditer(text)]
        assert built.sub("<>", text) == expected.sub("<>", text)


def test_without_keep_in_it_is_re_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regexcache, "_cache", None)  # as in any process whose application did not ask
    pattern = r"(?P<x>abc)+"
    assert regexcache.compile(pattern) is re.compile(pattern)


def test_kept_programs_build_the_same_patterns(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = [regexcache.compile(pattern, flags) for pattern, flags in PATTERNS]
    assert regexcache._cache is not None
    regexcache._cache.save()
    assert kept.is_file()
    cache = _reload(monkeypatch, kept)
    second = [regexcache.compile(pattern, flags) for pattern, flags in PATTERNS]
    assert cache.misses == 0  # every program came from the file
    for (pattern, flags), built_first, built_second in zip(PATTERNS, first, second, strict=True):
        expected = re.compile(pattern, flags)
        _same_behaviour(built_first, expected)
        _same_behaviour(built_second, expected)


def test_a_bad_pattern_fails_as_re_does(kept: Path) -> None:
    with pytest.raises(re.error, match="missing \\)"):
        regexcache.compile(r"(unclosed")
    assert regexcache._cache is not None  # a bad pattern is the caller's error, not the cache's


def test_few_new_patterns_leave_the_file_alone(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regexcache, "SAVE_AFTER_MISSES", 3)
    regexcache.compile(r"one")
    regexcache.compile(r"two")
    assert regexcache._cache is not None
    regexcache._cache.save()
    assert not kept.exists()
    regexcache.compile(r"three")
    regexcache._cache.save()
    assert kept.is_file()


def test_an_oversized_file_keeps_what_was_used(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regexcache, "MAX_PROGRAMS", 3)
    for index in range(5):
        regexcache.compile(f"old{index}")
    assert regexcache._cache is not None
    regexcache._cache.save()
    _reload(monkeypatch, kept)
    regexcache.compile("old4")
    regexcache.compile("new")
    assert regexcache._cache is not None
    regexcache._cache.save()
    stored = marshal.loads(kept.read_bytes())["programs"]
    assert sorted(stored) == [("new", 0), ("old4", 0)]


@pytest.mark.parametrize("content", [b"", b"not marshal at all \x00\xff", marshal.dumps([1, 2, 3]),
                                     marshal.dumps({"engine": (0, 0, 0), "programs": {}})])
def test_an_unreadable_or_foreign_file_is_not_used(kept: Path, monkeypatch: pytest.MonkeyPatch,
                                                   content: bytes) -> None:
    kept.write_bytes(content)
    cache = _reload(monkeypatch, kept)
    _same_behaviour(regexcache.compile(PATTERNS[0][0]), re.compile(PATTERNS[0][0]))
    assert cache.misses == 1


def test_a_program_the_engine_refuses_turns_the_cache_off(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pattern = PATTERNS[1][0]
    flags, code, groups, groupindex, indexgroup = regexcache._program(pattern, 0)
    engine = regexcache._engine()
    kept.write_bytes(marshal.dumps({"engine": engine, "programs": {
        (pattern, 0): (flags, array(regexcache._CODE_TYPE, [9999]).tobytes() + code, groups, groupindex,
                       indexgroup)}}))
    _reload(monkeypatch, kept)
    _same_behaviour(regexcache.compile(pattern), re.compile(pattern))
    assert regexcache._cache is None


def test_an_unwritable_folder_is_not_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setattr(regexcache, "_cache", regexcache._Cache(regexcache.cache_file(blocker / "patterns")))
    monkeypatch.setattr(regexcache, "SAVE_AFTER_MISSES", 1)
    regexcache.compile(r"anything")
    assert regexcache._cache is not None
    regexcache._cache.save()  # logged at debug, not raised
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
    assert len(stored) > 100  # the question reader's, the verifier's and the lexicon's patterns
    written = kept.stat().st_mtime_ns
    assert _ask(tmp_path, question) == first
    assert kept.stat().st_mtime_ns == written  # nothing new worth writing
    for (pattern, flags) in stored:  # every kept program builds what re builds
        _same_behaviour(regexcache._build(pattern, stored[pattern, flags]), re.compile(pattern, flags))
