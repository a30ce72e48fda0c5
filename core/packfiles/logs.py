"""Reader of a pack's logs: ``logs.jsonl`` (streamed line by line) or ``logs.yaml``, every entry
checked (``EntryChecker``: what the model cannot say), or the log store ``pack.yaml`` names. A
big log file is served by its cached store (``core.sources.logcache``), never held in memory."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from pathlib import Path
from typing import IO

from pydantic import TypeAdapter, ValidationError

from core.contracts import LogEntry
from core.errors import InputError, LogStoreError
from core.inputs.files import open_regular
from core.logfields import LEVEL_RANKS, canonical_level, parse_timestamp
from core.packfiles.formats import (
    LOGS_JSONL,
    LOGS_YAML,
    MAX_LOG_FILE_BYTES,
    MAX_LOG_LINE_BYTES,
    MAX_PROBLEMS_PER_FILE,
    PACK_FILE,
    PackLogs,
    PackMeta,
    PackProblem,
    dotted,
    field_problems,
    input_problem,
    present,
    read_yaml,
)

_LOGS = TypeAdapter(list[LogEntry])


@dataclass
class FoundLogs:
    """What the loader found of a pack's logs: a small file's entries, or the store answering
    for them (the one ``pack.yaml`` names, or a big file's cached store), and a summary."""

    entries: list[LogEntry] = dataclass_field(default_factory=list)
    file: Path | None = None
    store: Path | None = None
    cache: Path | None = None
    lines: int = 0
    services: list[str] = dataclass_field(default_factory=list)
    # Each service's latest timestamp (the pack's clocks when it sets no ``now``).
    newest_by_service: dict[str, datetime] = dataclass_field(default_factory=dict)


def _store_logs(path: Path, *, file: Path | None = None, cache: Path | None = None) -> FoundLogs:
    """A log store's summary (lines, services, latest time), read from its tables and indexes
    with no line loaded: the store ``pack.yaml`` names, or the ``cache`` of a log ``file``."""
    from core.sources.logstore import LogStore

    store = LogStore.open(path)
    try:
        return FoundLogs(file=file, store=None if cache else path, cache=cache, lines=store.line_count(),
                         services=store.services(), newest_by_service=store.newest_by_service())
    finally:
        store.close()


def read_store(root: Path, logs: PackLogs) -> tuple[FoundLogs, list[PackProblem]]:
    """The log store ``pack.yaml`` points at, checked (it is opened when the logs are asked)."""
    from core.sources.logfile import check_store  # the store's file module imports the tools

    log_files = [name for name in (LOGS_JSONL, LOGS_YAML) if (root / name).exists()]
    if log_files:
        return FoundLogs(), [PackProblem(PACK_FILE, f"logs.store is set and {log_files[0]} exists; keep one",
                                         field="logs.store")]
    path = (root / Path(logs.store).expanduser()).resolve()
    problem = check_store(path)
    if problem is not None:
        return FoundLogs(), [PackProblem(PACK_FILE, f"{problem}: {logs.store}", field="logs.store")]
    return _store_logs(path), []


def read_logs(root: Path, meta: PackMeta | None, build: bool) -> tuple[FoundLogs, list[PackProblem]]:
    """The pack's logs.jsonl or logs.yaml, every entry checked. A small file is read into
    memory; a big one is served by its cached store (``core.sources.logcache``): found by key,
    or built now from one streaming pass when ``build`` (loading), else only checked
    (validating), so that no million entries are ever held."""
    jsonl, yaml_file = root / LOGS_JSONL, root / LOGS_YAML
    has_jsonl, has_yaml = (present(jsonl), present(yaml_file))
    if has_jsonl and has_yaml:
        return FoundLogs(), [PackProblem(LOGS_JSONL, f"both {LOGS_JSONL} and {LOGS_YAML} exist; keep one")]
    if not has_jsonl and not has_yaml:
        return FoundLogs(), []  # a pack without logs
    path = jsonl if has_jsonl else yaml_file
    checker = _EntryChecker(path.name)
    from core.sources.logcache import SMALL_LOG_BYTES, CacheBuild, cached_store

    big = path.is_file() and not path.is_symlink() and path.stat().st_size > SMALL_LOG_BYTES
    if not big:  # small, or not a plain file: reading it says what is wrong
        entries = [entry for _, entry in _log_entries(root, path, checker)]
        services = list(dict.fromkeys(entry.service for entry in entries))
        return FoundLogs(entries=entries, file=path, lines=len(entries), services=services,
                         newest_by_service=checker.newest_by_service), checker.problems
    zone = meta.now.tzinfo if meta is not None and meta.now is not None else None
    cached = cached_store(path, zone) if meta is not None else None
    if cached is not None:
        return _store_logs(cached, file=path, cache=cached), []
    found = FoundLogs(file=path)
    seen: dict[str, None] = {}
    if not build or meta is None:
        for _, entry in _log_entries(root, path, checker):
            seen.setdefault(entry.service, None)
            found.lines += 1
        found.services, found.newest_by_service = list(seen), checker.newest_by_service
        return found, checker.problems
    try:
        with CacheBuild(path, zone, f"{meta.name or root.name}/{path.name}") as cache:
            for number, entry in _log_entries(root, path, checker):
                if not checker.problems:
                    cache.add(entry, number)
                    seen.setdefault(entry.service, None)
                    found.lines += 1
            if not checker.problems:
                found.cache = cache.commit()
    except LogStoreError as error:
        return found, [PackProblem(path.name, str(error))]
    found.services, found.newest_by_service = list(seen), checker.newest_by_service
    return found, checker.problems


def _log_entries(root: Path, path: Path, checker: _EntryChecker) -> Iterator[tuple[int, LogEntry]]:
    """(line number, entry) of each entry of a log file, checked by ``checker``, which
    collects the problems (reading stops after ``MAX_PROBLEMS_PER_FILE``)."""
    if path.name == LOGS_JSONL:
        yield from _jsonl_entries(root, path, checker)
        return
    data, problems = read_yaml(root, LOGS_YAML, list)
    if problems:
        checker.problems += problems
        return
    try:
        logs = _LOGS.validate_python(data)
    except ValidationError as error:
        checker.problems += field_problems(LOGS_YAML, error,
                                           lambda loc: (f"logs[{loc[0]}]", dotted(loc[1:])))
        return
    for index, entry in enumerate(logs):
        checker.check(entry, f"logs[{index}]")
        yield index + 1, entry
        if checker.full:
            return


def _jsonl_entries(root: Path, path: Path, checker: _EntryChecker) -> Iterator[tuple[int, LogEntry]]:
    """One ``LogEntry`` per non-blank line, streamed; problems name the line number."""
    problems = checker.problems
    try:
        handle = open_regular(path, source=LOGS_JSONL, max_bytes=MAX_LOG_FILE_BYTES, within=root)
    except InputError as error:
        problems.append(input_problem(LOGS_JSONL, error))
        return
    with handle:
        for number, raw in enumerate(iter(lambda: handle.readline(MAX_LOG_LINE_BYTES + 1), b""),
                                     start=1):
            if len(raw) > MAX_LOG_LINE_BYTES and not raw.endswith(b"\n"):
                _skip_line(handle)  # the rest of an over-long line is not another line
            entry = _jsonl_line(raw, number, checker)
            if entry is not None:
                yield number, entry
            if len(problems) >= MAX_PROBLEMS_PER_FILE:
                problems.append(PackProblem(LOGS_JSONL, "... stopped after this many problems"))
                return


def _skip_line(handle: IO[bytes]) -> None:
    while (chunk := handle.readline(MAX_LOG_LINE_BYTES)) and not chunk.endswith(b"\n"):
        pass


def _jsonl_line(raw: bytes, number: int, checker: _EntryChecker) -> LogEntry | None:
    """One line's entry (checked), or None: a blank line, or a bad one whose problems go to
    ``checker.problems``."""
    where = f"line {number}"
    if len(raw) > MAX_LOG_LINE_BYTES:
        checker.problems.append(
            PackProblem(LOGS_JSONL, f"line longer than {MAX_LOG_LINE_BYTES:,} bytes", where))
        return None
    if not raw.strip():
        return None
    # pydantic's own JSON parser (fast, on bytes) already refuses invalid UTF-8, lone
    # surrogates and deep nesting.
    try:
        entry = LogEntry.model_validate_json(raw)
    except ValidationError as error:
        checker.problems.extend(_jsonl_problems(error, number))
        return None
    checker.check(entry, where)
    return entry


class _EntryChecker:
    """What the model cannot say about a log entry: a timestamp that is ISO 8601 with a date
    and a time, a level that is known. Each level spelling is checked once. Keeps each
    service's latest timestamp (one without a zone read as UTC: the zone of a pack without ``now``)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[PackProblem] = []
        self.newest_by_service: dict[str, datetime] = {}
        self._levels: dict[str, bool] = {}

    @property
    def full(self) -> bool:
        return len(self.problems) >= MAX_PROBLEMS_PER_FILE

    def check(self, entry: LogEntry, where: str) -> None:
        moment = parse_timestamp(entry.timestamp)
        if moment is None:
            self.problems.append(PackProblem(
                self.file, f"not an ISO 8601 date and time (such as 2026-07-08T10:58:12+08:00): "
                           f"{entry.timestamp!r}", where, "timestamp"))
        else:
            latest = self.newest_by_service.get(entry.service)
            if latest is None or moment > latest:
                self.newest_by_service[entry.service] = moment
        known = self._levels.get(entry.level)
        if known is None:
            known = self._levels[entry.level] = canonical_level(entry.level) is not None
        if not known:
            self.problems.append(PackProblem(
                self.file, f"unknown level {entry.level!r} (known: {', '.join(LEVEL_RANKS)}, WARNING)",
                where, "level"))


def _jsonl_problems(error: ValidationError, number: int) -> list[PackProblem]:
    problems = []
    for item in error.errors():
        if item["type"] == "json_invalid":
            detail = str(item.get("ctx", {}).get("error", "")) or item["msg"]
            problems.append(PackProblem(LOGS_JSONL, f"invalid JSON: {detail}", f"line {number}"))
        elif item["type"] == "model_type":
            problems.append(PackProblem(LOGS_JSONL, "must be a JSON object", f"line {number}"))
        else:
            problems.append(PackProblem(LOGS_JSONL, item["msg"], f"line {number}",
                                        dotted(tuple(item["loc"]))))
    return problems
