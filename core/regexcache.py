"""``compile``: ``re.compile`` whose compiled programs outlive the process.

``re`` parses and compiles each pattern in Python, in every process: the ~300 patterns a cold
``ask`` compiles (the question reader's word lists, the verifier's cues, the lexicon's
alternations) are a tenth of its instructions. A compiled pattern is a program for the C
engine (``_sre``), and ``re`` itself hands that program to ``_sre.compile``; kept in a file,
the program lets a later process build the same pattern object without the parser.

Only an application turns this on (``keep_in``: the CLI does, under the cache folder); until
then ``compile`` is ``re.compile``, so a library import, the console and the tests keep
nothing. The programs are private to the interpreter that made them: the file is named by its
version and the engine's ``MAGIC``, ``_sre`` checks every program it is given, and anything
unexpected (no file, a corrupt one, an interpreter whose ``re`` is built otherwise) turns the
cache off for the rest of the process: patterns are then compiled as ``re`` compiles them.
docs/design.md (Startup) says what this saves.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's C engine: no stubs
import atexit
import logging
import marshal
import os
import re
import sys
import threading
from array import array
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# A process that compiled fewer new patterns than this leaves the file as it is: a question's
# own few patterns (a service name, a quoted term) are cheap, and rewriting the file for them
# in every run would cost more than it saves.
SAVE_AFTER_MISSES = 16
# Past this many programs the file keeps only what the process that rewrites it used.
MAX_PROGRAMS = 4096

# (flags, code, groups, groupindex, indexgroup): the arguments of ``_sre.compile`` after the
# pattern, as ``re._compiler.compile`` passes them, the code as the bytes of its machine words:
# a file of lists of ints would make every int an object at load, for programs a command may
# never use.
_Program = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]


class _Cache:
    """The programs of one cache file, loaded on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.programs: dict[tuple[str, int], _Program] | None = None  # None: not loaded yet
        self.used: set[tuple[str, int]] = set()
        self.built: dict[tuple[str, int], re.Pattern[str]] = {}  # as re's own cache: one object a pattern
        self.misses = 0
        self.lock = threading.Lock()

    def load(self) -> dict[tuple[str, int], _Program]:
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


# The C type of one word of a program: the unsigned one of ``_sre.CODESIZE`` bytes.
_CODE_TYPE = next((kind for kind in "IL" if array(kind).itemsize == _sre.CODESIZE), "")


def _engine() -> tuple[int, int, int]:
    """What a program depends on: the interpreter's version and the C engine's format."""
    return (sys.hexversion, _sre.MAGIC, _sre.CODESIZE)


def cache_file(folder: Path) -> Path:
    """The file ``keep_in(folder)`` reads and writes, named for this interpreter."""
    version, magic, _ = _engine()
    return folder / f"regex-{sys.implementation.cache_tag}-{version:x}-{magic}.marshal"


def keep_in(folder: Path) -> None:
    """Keep compiled programs in ``folder`` from now on (the first call wins; nothing is read
    until a pattern is compiled, and the file is written when the process exits)."""
    global _cache
    if _cache is None and sys.implementation.name == "cpython" and _CODE_TYPE:
        _cache = _Cache(cache_file(folder))
        atexit.register(_cache.save)


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from a kept program when there is one."""
    cache = _cache
    flags = int(flags)
    if cache is None or not isinstance(pattern, str) or flags & (re.DEBUG | re.TEMPLATE):
        return re.compile(pattern, flags)
    key = (pattern, flags)
    built = cache.built.get(key)
    if built is not None:
        return built
    try:
        with cache.lock:
            programs = cache.load()
            program = programs.get(key)
            if program is None:
                program = _program(pattern, flags)
                if len(programs) < 2 * MAX_PROGRAMS:  # a long eval's questions: not all worth keeping
                    programs[key] = program
                    cache.misses += 1
            cache.used.add(key)
            if len(cache.built) >= MAX_PROGRAMS:
                cache.built.clear()
        built = cache.built[key] = _build(pattern, program)
        return built
    except re.error:
        raise
    except Exception as error:  # an interpreter whose re is built otherwise
        logger.debug("regex cache off (%s: %s)", type(error).__name__, error)
        _turn_off()
        return re.compile(pattern, flags)


def _program(pattern: str, flags: int) -> _Program:
    """What ``re._compiler.compile`` hands ``_sre.compile`` for ``pattern`` (its own steps)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = array(_CODE_TYPE, [int(op) for op in _compiler._code(parsed, flags)]).tobytes()
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup))


def _build(pattern: str, program: _Program) -> re.Pattern[str]:
    flags, code, groups, groupindex, indexgroup = program
    words = array(_CODE_TYPE)
    words.frombytes(code)
    built: Any = _sre.compile(pattern, flags, words.tolist(), groups, groupindex, indexgroup)
    return built  # type: ignore[no-any-return]


def _turn_off() -> None:
    global _cache
    _cache = None
