"""``superbiz logs import``: log files of any common layout into a log store, all or nothing.

For each file: refuse what is not a readable text log (missing, a folder, binary, a line
longer than ``MAX_LINE_BYTES``: ``core.sources.logread``), recognise its layout from its first
lines (``core.sources.logformats``, else a layout learned from their shapes,
``core.sources.logshapes``; or take ``--format`` / ``--pattern``); skip it when the store holds
it already, or read only what was appended since (``core.sources.logmarks``); then read it line
by line:

- a line of the layout starts an entry; its timestamp is normalised (``logclock``), its level
  canonicalised, its service is ``--service``, else the layout's (syslog app, OpenStack log
  name, a JSON ``service``), else the file's name;
- a line that is not one but continues the entry above (indented, a stack trace) is attached
  to that entry's message;
- once an entry was read, a line that is an entry of *another* known layout stops the import
  (mixed layouts: import the parts separately or give ``--format``);
- anything else is counted as unparsed and reported with its line number; it is not stored
  (an entry without a time cannot be placed in time). A file with no entry, or more unparsed
  lines than ``MAX_UNPARSED_SHARE`` of its lines, is refused.

A new store is written to a temporary file renamed into place at the end; an existing store
takes the new lines in one transaction. Either way an error leaves the store as it was.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from core.errors import LogImportError, LogStoreError
from core.logfields import parse_zone, zone_name
from core.sources.logclock import Clock, TimeParts
from core.sources.logfile import (
    add_import_columns,
    check_store,
    connect,
    finish_indexes,
    for_bulk_write,
    upgrade_schema,
)
from core.sources.logformats import FORMATS, LAYOUTS, LineParser, ParsedLine, is_continuation, regex_parser
from core.sources.logmarks import known, record
from core.sources.logread import MAX_LINE_BYTES as MAX_LINE_BYTES  # the limit, where tests and docs look
from core.sources.logread import check_text, is_compressed, open_log, physical_lines
from core.sources.logshapes import has_level, learn, plain_parser
from core.sources.logwriter import LineRecord, LogWriter, create_schema, normalised_level

MAX_SERVICE_CHARS = 200  # --service: longer is not a service name
MAX_ENTRY_CHARS = 1 << 20  # an entry's continuation lines beyond this are cut (and counted)
DETECT_LINES = 200  # lines read to recognise a layout
SHOWN_UNPARSED = 10  # unparsed lines listed in the report, per file
# More unparsed lines than this share of a file's non-blank lines: the layout was not understood,
# the import is refused (``--max-unparsed`` changes it; ``--strict`` refuses any).
MAX_UNPARSED_SHARE = 0.05
FEW_UNPARSED = 2  # ... unless they are this few (a short file with a stray line is no wrong layout)
ProgressFn = Callable[[str, int, int], None]  # (file, its physical lines read, entries) every ~50k lines
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # terminal colours (docker, systemd) are not text


@dataclass
class FileReport:
    """What one file gave: its layout, lines read, entries stored, lines attached to an entry
    above, unparsed lines (count and the first few: line number, text), entries cut short."""

    path: str
    layout: str
    physical_lines: int = 0
    entries: int = 0
    continuation_lines: int = 0
    unparsed: int = 0
    unparsed_lines: list[tuple[int, str]] = field(default_factory=list)
    truncated_entries: int = 0
    replaced_characters: bool = False
    notes: list[str] = field(default_factory=list)  # how times were read, what the store knew of it
    skipped: bool = False  # already in the store (``core.sources.logmarks``)


@dataclass
class ImportReport:
    """The outcome of an import: the store, whether it was created, its zone, the files."""

    store: str
    created: bool
    timezone: str
    files: list[FileReport]
    seconds: float = 0.0

    @property
    def entries(self) -> int:
        return sum(report.entries for report in self.files)


# ---------------------------------------------------------------- reading a file

def _lines(path: Path, report: FileReport, span: tuple[int, int, int | None] = (0, 0, None),
           ) -> Iterator[tuple[int, str]]:
    """(line number, text without its line end), bounded in length, invalid UTF-8 replaced;
    ``span``: (bytes and lines to skip: what an earlier import read, bytes to read at most)."""
    offset, skipped_lines, limit = span
    with open_log(path) as handle:
        if offset:
            handle.seek(offset)
        limit = None if limit is None else limit - offset
        for number, raw in enumerate(physical_lines(handle, path, limit), start=skipped_lines + 1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("utf-8", errors="replace")
                report.replaced_characters = True
            if number == 1:
                text = text.removeprefix("\ufeff")  # a byte order mark is not text
            if "\x1b" in text:
                text = _ANSI.sub("", text)
            yield number, text


@dataclass(frozen=True)
class Plan:
    """How a file is read: its layout's name (stored), its parser, what the report calls it."""

    layout: str
    parser: LineParser
    label: str


def _sample(path: Path) -> list[tuple[int, str]]:
    sample: list[tuple[int, str]] = []
    for number, line in _lines(path, FileReport(str(path), "")):
        if line.strip():
            sample.append((number, line))
        if len(sample) >= DETECT_LINES:
            break
    if not sample:
        raise LogImportError(f"{path}: empty (no log lines)")
    return sample


def detect(path: Path) -> Plan:
    """The layout most of the file's first lines have: a known one, else one learned from their
    shapes (``logshapes``), else lines without timestamps when most start with a level;
    ``LogImportError`` when none fits or when two known layouts share them (mixed layouts)."""
    sample = _sample(path)
    matched = {name: [number for number, line in sample if parse(line)] for name, parse in LAYOUTS.items()}
    best = max(LAYOUTS, key=lambda name: len(matched[name]))  # the first of the best on a tie
    shape = learn([line for _, line in sample])
    if shape is not None:
        shaped = sum(1 for _, line in sample if shape.parse(line) is not None)
        if shaped > len(matched[best]):
            return Plan("text", shape.parse, shape.describe())
    if not matched[best]:
        if sum(1 for _, line in sample if has_level(line)) >= len(sample) / 2:
            return _plain(path, detected=True)
        first = sample[0][1][:80]
        raise LogImportError(f"{path}: layout not recognised (line {sample[0][0]}: {first!r}); "
                             "give --format, or --format regex --pattern with named groups, or "
                             "--no-timestamps for lines without timestamps")
    taken = set(matched[best])
    for name, numbers in matched.items():
        other = [number for number in numbers if number not in taken]
        if name != best and other:
            raise LogImportError(f"{path}: mixed layouts: line {matched[best][0]} is {best}, line "
                                 f"{other[0]} is {name}; import them separately or give --format")
    return Plan(best, LAYOUTS[best], best)


def detect_layout(path: Path) -> str:
    """The name of the layout ``detect`` finds."""
    return detect(path).layout


def _plain(path: Path, detected: bool) -> Plan:
    written = _file_written(path)
    how = "found no timestamps" if detected else "--no-timestamps"
    return Plan("plain", plain_parser(TimeParts(epoch=written.timestamp())),
                f"plain ({how}: every line stamped {written.isoformat(timespec='seconds')}, "
                "the file's modification time, in file order)")


# A date (and time) a rotated file's name ends with: app-2024-03-01, messages-20240301,
# app_2024-03-01T10-00. Numbers that are not dates stay (worker-2 may be another worker).
_DATED = re.compile(r"(.+?)[-_.](?:19|20)\d\d-?[01]\d-?[0-3]\d(?:[-_.T:]?\d+)*")


def service_of_file(path: Path) -> str:
    """A service name from a file name: ``nova-api.log.1`` -> ``nova-api``, ``app.log.gz`` ->
    ``app``, ``Hadoop_2k.log`` -> ``Hadoop_2k``; a date the name ends with is dropped, so a
    service's daily files are one service (``app-2024-03-01.log``, ``messages-20240301`` ->
    ``app``, ``messages``)."""
    name = path.name
    if name.endswith(".gz"):
        name = name[:-3]
    stem, dot_log, _ = name.partition(".log")
    if not (dot_log and stem):
        stem = Path(name).stem or name
    dated = _DATED.fullmatch(stem)
    return dated.group(1) if dated else stem


# ---------------------------------------------------------------- one file into a writer


@dataclass(slots=True)  # one per entry of an import
class _Entry:
    parsed: ParsedLine
    line_no: int
    continuations: list[str] = field(default_factory=list)
    size: int = 0
    truncated: bool = False


class _FileImport:
    def __init__(self, path: Path, layout: str, parser: LineParser, writer: LogWriter, clock: Clock,
                 service: str | None, report: FileReport, progress: ProgressFn | None) -> None:
        self.path, self.layout, self.parser = path, layout, parser
        self.writer, self.clock, self.report, self.progress = writer, clock, report, progress
        self.service = service or service_of_file(path)
        self.service_given = service is not None
        self.span: tuple[int, int, int | None] = (0, 0, None)
        self.read_entry = False  # before any, another layout's line means a wrong --format: refused
        self.levels: dict[str | None, tuple[str, str | None]] = {}  # as written -> (canonical, kept)

    def run(self) -> None:
        report, parse = self.report, self.parser
        pending: _Entry | None = None
        report.physical_lines = self.span[1]
        for number, line in _lines(self.path, report, self.span):
            report.physical_lines = number
            if number % 50_000 == 0 and self.progress is not None:  # lines read now (an append skips some)
                self.progress(str(self.path), number - self.span[1], self.writer.entries)
            if not line.strip():
                continue
            parsed = parse(line)
            if parsed is not None:
                self.read_entry = True
                if pending is not None:
                    self._store(pending)
                pending = _Entry(parsed, number, size=len(parsed.message))
            elif pending is not None and is_continuation(line):
                report.continuation_lines += 1
                if pending.size + len(line) + 1 > MAX_ENTRY_CHARS:
                    pending.truncated = True
                else:
                    pending.continuations.append(line)
                    pending.size += len(line) + 1
            else:
                self._unparsed(number, line)
        if pending is not None:
            self._store(pending)

    def _unparsed(self, number: int, line: str, reason: str = "") -> None:
        for name, other in LAYOUTS.items():
            if self.read_entry and name != self.layout and self.layout not in _LEARNED and other(line):
                raise LogImportError(f"{self.path}: mixed layouts: line {number} is {name}, the file is "
                                     f"{self.layout}; import them separately or give --format")
        self.report.unparsed += 1
        if len(self.report.unparsed_lines) < SHOWN_UNPARSED:
            shown = line if len(line) <= 120 else line[:117] + "..."
            self.report.unparsed_lines.append((number, f"{reason}{shown}"))

    def _store(self, entry: _Entry) -> None:
        parsed = entry.parsed
        assert parsed.time is not None
        try:
            instant, text = self.clock.stamp(parsed.time)
        except (ValueError, OverflowError) as error:
            self._unparsed(entry.line_no, parsed.message, f"(bad timestamp: {error}) ")
            return
        message = parsed.message.rstrip()  # trailing blanks are noise, not part of the message
        if entry.continuations:
            message = message + "\n" + "\n".join(line.rstrip() for line in entry.continuations)
        if entry.truncated:
            self.report.truncated_entries += 1
        service = self.service if self.service_given else (parsed.service or self.service)
        levels = self.levels.get(parsed.level)
        if levels is None:
            level = normalised_level(parsed.level)
            written = parsed.level.strip() if parsed.level else None
            levels = self.levels[parsed.level] = (level, written if written and written.upper() != level else None)
        self.writer.add(LineRecord(instant, text, levels[0], service, message, parsed.source, parsed.host,
                                   entry.line_no, levels[1]))
        self.report.entries += 1


# ---------------------------------------------------------------- the import


def _plan(path: Path, layout: str, pattern: str | None) -> Plan:
    if pattern is not None or layout == "regex":
        if pattern is None:
            raise LogImportError("--format regex needs --pattern")
        try:
            return Plan("regex", regex_parser(pattern), "regex")
        except ValueError as error:
            raise LogImportError(str(error)) from None
    if layout == "auto":
        return detect(path)
    if layout == "plain":
        return _plain(path, detected=False)
    if layout == "text":
        shape = learn([line for _, line in _sample(path)])
        if shape is None:
            raise LogImportError(f"{path}: --format text: no timestamp shape in most of the first lines")
        return Plan("text", shape.parse, shape.describe())
    if layout not in LAYOUTS:
        raise LogImportError(f"unknown --format {layout!r} (known: {', '.join(FORMATS)})")
    return Plan(layout, LAYOUTS[layout], layout)


_LEARNED = ("regex", "text", "plain")  # no line of another layout is "mixed" in these


def _check_parsed(path: Path, report: FileReport, max_unparsed: float, appended: bool = False) -> None:
    """Refuse a file whose layout was not understood: no entry, or too many unparsed lines;
    with its first unparsed lines and the ``--format`` most of them read as."""
    read = report.entries + report.continuation_lines + report.unparsed
    if appended and not read:  # grown by blank lines only
        return
    if report.entries and (report.unparsed <= max_unparsed * read
                           or (max_unparsed > 0 and report.unparsed <= FEW_UNPARSED)):
        return
    shown = "; ".join(f"line {number}: {text[:100]!r}" for number, text in report.unparsed_lines[:3])
    fits = Counter(name for _, text in report.unparsed_lines for name, parse in LAYOUTS.items()
                   if parse(text) is not None)
    hint = (f"these lines read as --format {fits.most_common(1)[0][0]}" if fits else
            "give --format (" + ", ".join(name for name in FORMATS if name != "auto") + "), or "
            "--pattern '(?P<timestamp>...) (?P<message>.*)', or --no-timestamps")
    if not report.entries:
        what = "no entry"
    else:
        what = (f"{report.unparsed:,} of {read:,} lines unparsed (more than {max_unparsed:.0%}"
                + ("; --strict" if max_unparsed == 0 else "; --max-unparsed changes it") + ")")
    raise LogImportError(f"{path}: read as {report.layout}: {what}; nothing was imported. "
                         f"{shown + '. ' if shown else ''}{hint}")


def _file_written(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return datetime.now(UTC)


def _check_service(service: str) -> None:
    """``--service`` names every line's service: a name, not empty, short, on one line."""
    if not service.strip():
        raise LogImportError("--service is empty (give a service name, or leave it out to use "
                             "the layout's or the file's name)")
    if len(service) > MAX_SERVICE_CHARS:
        raise LogImportError(f"--service is {len(service):,} characters long (at most "
                             f"{MAX_SERVICE_CHARS})")
    if any(ord(char) < 32 or ord(char) == 127 for char in service):
        raise LogImportError("--service holds a control character (a line break, a tab...)")


def import_files(paths: list[Path], store: Path, *, layout: str = "auto", pattern: str | None = None,
                 service: str | None = None, timezone_name: str | None = None,
                 progress: ProgressFn | None = None, year: int | None = None, no_timestamps: bool = False,
                 strict: bool = False, max_unparsed: float = MAX_UNPARSED_SHARE) -> ImportReport:
    """Import ``paths`` into the store at ``store`` (created when missing). All or nothing:
    any ``LogImportError`` / ``LogStoreError`` leaves the store as it was: a file that gives no
    entry, or more than ``max_unparsed`` (a share of its non-blank lines; 0 with ``strict``)
    unparsed lines, is refused. ``year``: the year of timestamps written without one (default:
    the file's modification time's); ``no_timestamps``: every line is an entry, stamped with
    the file's modification time."""
    started = time.perf_counter()
    if not paths:
        raise LogImportError("no files to import")
    if service is not None:
        _check_service(service)
    seen: dict[Path, Path] = {}
    for path in paths:  # the same lines twice would be stored twice
        try:
            key = path.resolve()
        except (OSError, RuntimeError):
            continue  # a loop: refused by name when it is read
        if key in seen:
            raise LogImportError(f"{path}: given twice (as {seen[key]}); each file is imported once")
        seen[key] = path
    if year is not None and not 1 <= year <= 9999:
        raise LogImportError(f"--year {year}: not a year")
    if no_timestamps:
        if pattern is not None or layout not in ("auto", "plain"):
            raise LogImportError("--no-timestamps reads every line as an entry: it takes no --format or --pattern")
        layout = "plain"
    plans = []
    for path in paths:
        check_text(path)
        plans.append((path, _plan(path, layout, pattern)))
    try:  # Path.exists raises when a folder above is not searchable by this user
        store.stat()
        creating = False
    except FileNotFoundError:
        creating = True
    except OSError as error:
        raise LogStoreError(f"{store}: cannot use the log store: {error.strerror or error}") from None
    if not creating:
        problem = check_store(store)
        if problem is not None:
            raise LogStoreError(f"{store}: {problem}")
    try:
        source_zone = parse_zone(timezone_name) if timezone_name else None
    except ValueError as error:
        raise LogImportError(f"--timezone: {error}") from None
    target = store.with_name(f".{store.name}.{os.getpid()}.tmp") if creating else store
    if creating and not store.parent.is_dir():
        raise LogStoreError(f"{store}: folder {store.parent} does not exist")
    connection = _open_target(target, creating)
    reports: list[FileReport] = []
    try:
        if creating:
            store_zone = source_zone or UTC
            create_schema(connection, store_zone)
        else:
            store_zone = parse_zone(upgrade_schema(connection).get("timezone", "UTC"))
        connection.execute("BEGIN IMMEDIATE")
        add_import_columns(connection)
        for path, plan in plans:
            report = FileReport(str(path), plan.label)
            reports.append(report)
            compressed = is_compressed(path)
            store_knows, mark = known(connection, path, compressed)
            if store_knows.note:
                report.notes.append(store_knows.note)
            if store_knows.action == "skip":
                report.skipped = True
                continue
            zone = source_zone or store_zone
            clock = Clock(zone, store_zone, _file_written(path), year=year)
            with LogWriter(connection, path=str(path.resolve()), layout=plan.label, zone=zone) as writer:
                reading = _FileImport(path, plan.layout, plan.parser, writer, clock, service, report, progress)
                reading.span = (store_knows.offset, store_knows.lines, None if compressed else mark.size)
                reading.run()
                _check_parsed(path, report, 0.0 if strict else max_unparsed,
                              appended=store_knows.action == "append")
                writer.finish(report.physical_lines, report.unparsed)
            record(connection, writer.file_id, mark)
            if clock.dateless:
                report.notes.append(f"{clock.dateless:,} timestamps without a date: the file's modification "
                                    f"date, {_file_written(path).date().isoformat()}")
            if clock.yearless:
                report.notes.append(f"{clock.yearless:,} timestamps without a year: year {clock.year_note}")
        finish_indexes(connection)
        connection.execute("COMMIT")
    except BaseException as error:
        with contextlib.suppress(sqlite3.Error):
            connection.rollback()
        connection.close()
        if creating:
            _remove(target)
        if isinstance(error, sqlite3.Error):
            raise LogStoreError(f"{store}: cannot write the log store: {error}") from None
        raise
    connection.close()
    if creating:
        os.replace(target, store)
    return ImportReport(str(store), creating, zone_name(store_zone), reports,
                        seconds=time.perf_counter() - started)


def _open_target(target: Path, creating: bool) -> sqlite3.Connection:
    try:
        if creating:
            _remove(target)
        connection = connect(target)
        connection.isolation_level = None  # transactions are explicit
        if creating:  # a temporary file: nothing to protect until it is renamed
            connection.execute("PRAGMA journal_mode = OFF")
            connection.execute("PRAGMA synchronous = OFF")
        for_bulk_write(connection)
        return connection
    except sqlite3.Error as error:
        raise LogStoreError(f"{target}: cannot write the log store: {error}") from None


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
