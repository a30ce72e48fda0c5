"""Compiled regular expressions kept between runs of the CLI.

``re`` parses and compiles each pattern in Python, in every process: the ~450 patterns a cold
``ask`` compiles (the question reader's word lists, the verifier's cues, the lexicon's
alternations, PyYAML's and the standard library's own) are a fifth of its instructions. A
compiled pattern is a program for the C engine, and ``re`` ends every compilation by handing
that program to ``_sre.compile``; kept in a file, the program lets a later process build the
same pattern object without the parser.

``keep_in(folder)`` turns this on for the rest of the process: the CLI's console script does
(under the cache folder), so an import of ``core``, the console and the tests compile as ``re``
always does. It replaces ``re._compiler.compile``, the step ``re`` runs after its own checks
and its own cache of pattern objects, so every ``re.compile``, ``re.search(text)``... of the
process is served, whoever calls it; the objects built are the ones ``re`` would build.

The programs are private to the interpreter that made them: the file is named by its version
and the engine's ``MAGIC``, ``_sre`` checks every program it is given, and anything unexpected
(no file, a corrupt one, an interpreter whose ``re`` is built otherwise) gives ``re`` its own
step back for the rest of the process. docs/design.md (Startup) says what this saves.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's C engine: no stubs
import logging
import marshal
import os
import re
import sys
import threading
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# A process that compiled fewer new patterns than this leaves the file as it is: a question's
# own few patterns (a service name, a quoted term) are cheap, and rewriting the file for them
# in every run would cost more than it saves.
SAVE_AFTER_MISSES = 16
# Past this many programs the file keeps only what the process that rewrites it used.
MAX_PROGRAMS = 4096

_Key = tuple[str | bytes, int]
# (flags, code, groups, groupindex, indexgroup): the arguments of ``_sre.compile`` after the
# pattern, as ``re._compiler.compile`` passes them, the code as the bytes of its machine words:
# a file of lists of ints would make every int an object at load, for programs a command may
# never use.
_Program = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]

# Flags left to re's own step: DEBUG prints the program as it compiles; TEMPLATE (gone in 3.13).
_OWN_FLAGS = re.DEBUG | getattr(re, "TEMPLATE", 0)
# The C type of one word of a program: the unsigned one of ``_sre.CODESIZE`` bytes.
_CODE_TYPE = next((kind for kind in "IL" if array(kind).itemsize == getattr(_sre, "CODESIZE", 0)), "")


class _Cache:
    """The programs of one cache file, loaded on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.programs: dict[_Key, _Program] | None = None  # None: not loaded yet
        self.used: set[_Key] = set()
        self.misses = 0
        self.lock = threading.Lock()

    def load(self) -> dict[_Key, _Program]:
        if self.programs is None:
            self.programs = {}
            try:
                stored = marshal.loads(self.path.read_bytes())
            except FileNotFoundError:
                stored = None
            except (OSError, ValueError, EOFError, TypeError) as error:
                logger.debug("regex cache %s unreadable (%s): starting afresh", self.path, error)
                stored = None
            if isinstance(stored, dict) and stored.get("engine") == _engine():
                programs = stored.get("programs")
                self.programs = programs if isinstance(programs, dict) else {}
        return self.programs

    def program(self, pattern: str | bytes, flags: int) -> _Program:
        """The kept program of ``pattern``, else a new one (kept for the file)."""
        key = (pattern, flags)
        with self.lock:
            programs = self.load()
            program = programs.get(key)
            if program is None:
                program = _program(pattern, flags)
                if len(programs) < 2 * MAX_PROGRAMS:  # a long eval's questions: not all worth keeping
                    programs[key] = program
                    self.misses += 1
            self.used.add(key)
        return program

    def save(self) -> None:
        """Write the programs (atomically) when this process compiled enough new ones."""
        with self.lock:
            if self.programs is None or self.misses < SAVE_AFTER_MISSES:
                return
            programs = self.programs
            if len(programs) > MAX_PROGRAMS:
                programs = {key: programs[key] for key in self.used if key in programs}
            data = marshal.dumps({"engine": _engine(), "programs": programs})
        import tempfile  # only here: it imports random and hashlib

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".regex-")
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(data)
                os.replace(temporary, self.path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as error:  # a read-only or full cache folder: the next run compiles again
            logger.debug("regex cache %s not written: %s", self.path, error)


_cache: _Cache | None = None
_re_compile: Callable[[Any, int], re.Pattern[Any]] | None = None  # re's own step, while replaced


def _engine() -> tuple[int, int, int]:
    """What a program depends on: the interpreter's version and the C engine's format."""
    return (sys.hexversion, _sre.MAGIC, _sre.CODESIZE)


def cache_file(folder: Path) -> Path:
    """The file ``keep_in(folder)`` reads and writes, named for this interpreter."""
    version, magic, _ = _engine()
    return folder / f"regex-{sys.implementation.cache_tag}-{version:x}-{magic}.marshal"


def keep_in(folder: Path) -> None:
    """Serve this process's patterns from programs kept in ``folder`` (the first call wins;
    nothing is read until a pattern is compiled, nothing written before ``save``)."""
    global _cache, _re_compile
    from re import _compiler  # type: ignore[attr-defined]

    if _cache is not None or sys.implementation.name != "cpython" or not _CODE_TYPE:
        return
    _cache = _Cache(cache_file(folder))
    _re_compile = _compiler.compile
    _compiler.compile = _compile


def save() -> None:
    """Write the kept programs when this process compiled enough new ones (the CLI calls it
    when a command ends well: one refused as bad input leaves nothing behind)."""
    if _cache is not None:
        _cache.save()


def stop() -> None:
    """Give ``re`` its own step back (forgetting what this process compiled)."""
    global _cache, _re_compile
    from re import _compiler  # type: ignore[attr-defined]

    if _re_compile is not None:
        _compiler.compile = _re_compile
    _cache, _re_compile = None, None


def _compile(pattern: Any, flags: int = 0) -> re.Pattern[Any]:
    """``re._compiler.compile`` from a kept program (``re._compile`` has checked the pattern's
    type and flags and looked in its own cache before calling this)."""
    cache, original = _cache, _re_compile
    assert original is not None  # only installed with it
    if cache is None or not isinstance(pattern, (str, bytes)) or flags & _OWN_FLAGS:
        return original(pattern, flags)
    try:
        return _build(pattern, cache.program(pattern, flags))
    except re.error:
        raise  # the caller's pattern is wrong: as re says it
    except Exception as error:  # an interpreter whose re is built otherwise
        logger.debug("regex cache off (%s: %s)", type(error).__name__, error)
        stop()
        return original(pattern, flags)


def _program(pattern: str | bytes, flags: int) -> _Program:
    """What ``re._compiler.compile`` hands ``_sre.compile`` for ``pattern`` (its own steps)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = array(_CODE_TYPE, [int(op) for op in _compiler._code(parsed, flags)]).tobytes()
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup))


def _build(pattern: str | bytes, program: _Program) -> re.Pattern[Any]:
    flags, code, groups, groupindex, indexgroup = program
    words = array(_CODE_TYPE)
    words.frombytes(code)
    built: Any = _sre.compile(pattern, flags, words.tolist(), groups, groupindex, indexgroup)
    return built  # type: ignore[no-any-return]
