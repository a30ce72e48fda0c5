"""Scenario packs: the world the tools see, loaded from a pack folder and validated.

A pack is named by path or by name; a name is looked up in ``SUPERBIZ_PACKS_DIR``'s folders,
then among the packs that ship with superbiz (``mockdata/`` of the checkout, installed as
``superbiz_mockdata``): ``pack_dirs``.

A pack folder holds::

    pack.yaml        name, description, now (ISO timestamp: the pack's fixed clock),
                     optional example_questions, optional ``logs: {store: PATH}``
    alerts.yaml      a list of alerts (``core.contracts.Alert``)
    series.yaml      a mapping name -> metric series (``core.contracts.MetricSeries``)
    logs.jsonl       one log entry (``core.contracts.LogEntry``) per line; or logs.yaml, a list;
                     or neither, when pack.yaml points at a log store (``superbiz logs import``,
                     the path relative to the pack folder)

A log file up to 1 MiB is read at load (``Pack.logs``); a bigger one is read once, line by
line, into a log store cached in the user's cache folder (``core.sources.logcache``), and
later loads find that store without reading a line. Either way the logs are searched by the
log store (``core.sources.pack.PackLogs``).
    runbooks/        Markdown files (any depth); may be empty
    rules/           optional: Prometheus alerting rule files (``.yml``/``.yaml``, rule files or
                     PrometheusRule resources), searched by ``lookup_knowledge`` like runbooks

A log entry's timestamp must be ISO 8601 with a date and a time (a timestamp without a zone is
in the zone of ``now``) and its level a known one (``core.logfields``: TRACE, DEBUG, INFO, WARN,
WARNING, ERROR, FATAL, CRITICAL, SEVERE ...).

Every problem is reported as one line naming the file, the entry (``alerts[2]``, ``line 17``)
and the field, never as a traceback: ``validate_pack`` lists them all, ``load_pack`` raises the
first as ``PackError``. Loaded packs are cached by folder and file modification times.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter, ValidationError

from core.contracts import Alert, LogEntry, MetricSeries
from core.errors import InputError, LogStoreError, PackError
from core.inputs.files import MiB, open_regular, read_text, resolve_within
from core.inputs.text import check_text
from core.inputs.yamldoc import parse_yaml
from core.logfields import LEVEL_RANKS, canonical_level, parse_timestamp
from core.settings import get_settings
from core.sources.rulefiles import RuleFileError, RuleGroup, read_rules, rule_text

PACK_FILE, ALERTS_FILE, SERIES_FILE = "pack.yaml", "alerts.yaml", "series.yaml"
LOGS_JSONL, LOGS_YAML, RUNBOOKS_DIR = "logs.jsonl", "logs.yaml", "runbooks"
RULES_DIR = "rules"


# One lock for every pack's derived data (re-entrant: one index may be built from another).
# Not a per-pack lock, so that a Pack stays picklable.
_DERIVED_LOCK = threading.RLock()
_T = TypeVar("_T")


class RunbookSection(BaseModel):
    """One section of a runbook: its heading and the text under it."""

    title: str
    content: str


class Runbook(BaseModel):
    """A runbook: what to look for. Never evidence of the current state."""

    title: str
    source: str  # path relative to the pack, e.g. runbooks/high-cpu.md
    sections: list[RunbookSection] = Field(default_factory=list)


class Pack(BaseModel):
    """A loaded scenario pack. Treat it as read-only: loaded packs are shared through a cache."""

    name: str
    description: str = ""
    now: datetime
    root: Path
    alerts: list[Alert] = Field(default_factory=list)
    series: dict[str, MetricSeries] = Field(default_factory=dict)
    # A small log file's entries, read and checked at load (empty when a store serves the logs).
    logs: list[LogEntry] = Field(default_factory=list)
    runbooks: list[Runbook] = Field(default_factory=list)
    # Alerting rules (rules/): one "runbook" per rule group, one section per rule.
    rules: list[Runbook] = Field(default_factory=list)
    example_questions: list[str] = Field(default_factory=list)
    log_file: Path | None = None  # logs.jsonl or logs.yaml
    # A log store holding the pack's logs (``logs: {store: PATH}``), instead of a log file.
    log_store: Path | None = None
    # The cached store of a big log file (``core.sources.logcache``), built once from it.
    log_cache: Path | None = None
    log_lines: int = 0  # log entries, in whichever form they are held
    log_services: list[str] = Field(default_factory=list)  # services with log lines, first seen first

    # Derived data the tools build once per loaded pack (search indexes); see core.tools.
    _derived: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def services(self) -> list[str]:
        """Every service seen in alerts, series and logs, by first appearance."""
        return self.derived("services", self._collect_services)

    def _collect_services(self) -> list[str]:
        seen: dict[str, None] = {}
        for alert in self.alerts:
            seen.setdefault(alert.service, None)
        for series in self.series.values():
            seen.setdefault(series.service, None)
        for entry in self.logs:
            seen.setdefault(entry.service, None)
        for service in self.log_services:
            seen.setdefault(service, None)
        return list(seen)

    def __getstate__(self) -> dict[Any, Any]:
        """Pickled without its derived data (an open log store cannot be pickled; it is
        rebuilt on first use)."""
        state: dict[Any, Any] = super().__getstate__()
        state["__pydantic_private__"] = {**(state.get("__pydantic_private__") or {}), "_derived": {}}
        return state

    def derived(self, key: str, build: Callable[[], _T]) -> _T:
        """Return the value cached under ``key``, building it once with ``build()`` (thread-safe).

        Each key has one builder, so the cached value is of the type that builder returns."""
        if key not in self._derived:
            with _DERIVED_LOCK:
                if key not in self._derived:
                    self._derived[key] = build()
        value: _T = self._derived[key]
        return value


class PackLogs(BaseModel):
    """``logs:`` in ``pack.yaml``: where the pack's logs are, when not in logs.jsonl/logs.yaml."""

    model_config = ConfigDict(extra="forbid")

    store: str = Field(..., min_length=1, description="A log store file, relative to the pack folder.")


class PackMeta(BaseModel):
    """The content of ``pack.yaml``."""

    name: str
    description: str = ""
    now: datetime
    example_questions: list[str] = Field(default_factory=list)
    logs: PackLogs | None = None


@dataclass(frozen=True)
class PackProblem:
    """One thing wrong with a pack, located as precisely as the file allows."""

    file: str
    message: str
    entry: str | None = None
    field: str | None = None

    def to_error(self) -> PackError:
        """The problem as the exception ``load_pack`` raises."""
        return PackError(self.message, file=self.file, entry=self.entry, field=self.field)

    def __str__(self) -> str:
        return str(self.to_error())


# ---------------------------------------------------------------- locating packs


def pack_dirs(packs_dir: Path | None = None) -> list[Path]:
    """The folders a pack name is looked up in, first match wins: ``packs_dir`` alone when
    given, else ``SUPERBIZ_PACKS_DIR``'s folders and then the built-in packs."""
    return [Path(packs_dir)] if packs_dir is not None else get_settings().pack_dirs()


def resolve_pack(name_or_path: str, packs_dir: Path | None = None) -> Path:
    """The folder of a pack: a name in the pack folders (then in the current folder), or a path."""
    text = str(name_or_path).strip()
    if not text:
        raise PackError("no pack named (give a pack name or a folder path)")
    folders = pack_dirs(packs_dir)
    looks_like_path = "/" in text or "\\" in text or text.startswith(".") or text.startswith("~")
    candidates = ([Path(text).expanduser()] if looks_like_path
                  else [*(folder / text for folder in folders), Path(text)])
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    known = ", ".join(name for name, _ in list_packs(packs_dir)) or "none"
    searched = ", ".join(str(folder) for folder in folders)
    raise PackError(f"pack not found: {text!r} (packs: {known}; searched {searched})")


def list_packs(packs_dir: Path | None = None) -> list[tuple[str, str]]:
    """(name, description) of every pack in the pack folders, sorted by name; a pack in an
    earlier folder hides one of the same name in a later folder.

    A folder whose ``pack.yaml`` cannot be read is listed with the problem as its description.
    """
    found: dict[str, str] = {}
    for base in pack_dirs(packs_dir):
        try:
            folders = sorted(p for p in base.iterdir() if p.is_dir() and _present(p / PACK_FILE))
        except OSError:  # no such folder, or one that cannot be read: no packs from it
            continue
        for folder in folders:
            if folder.name not in found:
                meta, problems = _read_meta(folder)
                found[folder.name] = meta.description if meta else f"(invalid: {problems[0]})"
    return sorted(found.items())


# ---------------------------------------------------------------- file formats

_MAX_PROBLEMS_PER_FILE = 20  # a million-line file with one systematic mistake is one message


# Size limits of pack files (a pack is data a person wrote or generated; these are far above
# any real pack and far below what would exhaust memory).
MAX_YAML_BYTES = 64 * MiB
MAX_LOG_FILE_BYTES = 1024 * MiB
MAX_LOG_LINE_BYTES = 1 * MiB
MAX_RUNBOOK_BYTES = 4 * MiB
MAX_RUNBOOKS = 5000


def _input_problem(file: str, error: InputError) -> PackProblem:
    """A refused file as a pack problem: the file, the line when known, the reason."""
    where = f"line {error.line}" if error.line is not None else None
    return PackProblem(file, error.problem, where)


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _split_markdown(text: str, fallback_title: str) -> tuple[str, list[tuple[str, str]]]:
    """(title, [(section title, content)]) of a Markdown runbook.

    The title is the first level-1 heading, else the front matter's ``title``, else
    ``fallback_title``. Sections split at level-2 headings; deeper headings stay in their
    section's content; text before the first section becomes a section named after the title.
    Headings inside fenced code blocks are text. Front matter that is not acceptable YAML
    raises ``InputError``.
    """
    front_title = None
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            front = parse_yaml(text[3:end], source="front matter")  # InputError: reported
            if isinstance(front, dict) and front.get("title"):
                front_title = str(front["title"])
            body = text.find("\n", end + 1)
            text = text[body + 1:] if body != -1 else ""
    title: str | None = None
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading and len(heading.group(1)) == 1 and title is None:
            title = heading.group(2)
        elif heading and len(heading.group(1)) == 2:
            sections.append((heading.group(2), []))
        else:
            sections[-1][1].append(line)
    title = title or front_title or fallback_title
    result = []
    for section_title, lines in sections:
        content = "\n".join(lines).strip()
        if content:
            result.append((section_title or title, content))
    return title, result


# ---------------------------------------------------------------- reading files


def _field_problems(file: str, error: ValidationError, entry_of: Any) -> list[PackProblem]:
    """One problem per pydantic error: ``entry_of(loc)`` splits a location into (entry, field)."""
    problems = []
    items = error.errors()
    for item in items[:_MAX_PROBLEMS_PER_FILE]:
        entry, field = entry_of(tuple(item["loc"]))
        problems.append(PackProblem(file, item["msg"], entry, field))
    if len(items) > _MAX_PROBLEMS_PER_FILE:
        problems.append(PackProblem(file, f"... and {len(items) - _MAX_PROBLEMS_PER_FILE} more"))
    return problems


def _dotted(loc: tuple[Any, ...]) -> str | None:
    return ".".join(str(part) for part in loc) or None


def _read_meta(root: Path) -> tuple[PackMeta | None, list[PackProblem]]:
    data, problems = _yaml(root, PACK_FILE, dict)
    if problems:
        return None, problems
    try:
        return PackMeta.model_validate(data or {}), []
    except ValidationError as error:
        return None, _field_problems(PACK_FILE, error, lambda loc: (None, _dotted(loc)))


def _yaml(root: Path, name: str, expected: type) -> tuple[Any, list[PackProblem]]:
    """Parse a YAML file of the pack; an empty file is an empty ``expected``."""
    path = root / name
    if not path.exists() and not path.is_symlink():
        return None, [PackProblem(name, "required file is missing")]
    try:
        data = parse_yaml(read_text(path, source=name, max_bytes=MAX_YAML_BYTES, within=root),
                          source=name)
    except InputError as error:
        return None, [_input_problem(name, error)]
    if data is None:
        return expected(), []
    if not isinstance(data, expected):
        kind = "a list" if expected is list else "a mapping"
        return None, [PackProblem(name, f"must be {kind}, found {type(data).__name__}")]
    return data, []


_ALERTS = TypeAdapter(list[Alert])
_SERIES = TypeAdapter(dict[str, MetricSeries])
_LOGS = TypeAdapter(list[LogEntry])


def _read_alerts(root: Path) -> tuple[list[Alert], list[PackProblem]]:
    data, problems = _yaml(root, ALERTS_FILE, list)
    if problems:
        return [], problems
    try:
        return _ALERTS.validate_python(data), []
    except ValidationError as error:
        return [], _field_problems(ALERTS_FILE, error,
                                   lambda loc: (f"alerts[{loc[0]}]", _dotted(loc[1:])))


def _read_series(root: Path) -> tuple[dict[str, MetricSeries], list[PackProblem]]:
    data, problems = _yaml(root, SERIES_FILE, dict)
    if problems:
        return {}, problems
    try:
        return _SERIES.validate_python(data), []
    except ValidationError as error:
        return {}, _field_problems(SERIES_FILE, error,
                                   lambda loc: (f"series[{loc[0]!r}]", _dotted(loc[1:])))


@dataclass
class _FoundLogs:
    """What the loader found of a pack's logs: a small file's entries, or the store answering
    for them (the one ``pack.yaml`` names, or a big file's cached store), and a summary."""

    entries: list[LogEntry] = dataclass_field(default_factory=list)
    file: Path | None = None
    store: Path | None = None
    cache: Path | None = None
    lines: int = 0
    services: list[str] = dataclass_field(default_factory=list)


def _store_summary(path: Path) -> tuple[int, list[str]]:
    """(lines, services) of a log store: read from its tables, no line loaded."""
    from core.sources.logstore import LogStore

    store = LogStore.open(path)
    try:
        return store.line_count(), store.services()
    finally:
        store.close()


def _read_store(root: Path, logs: PackLogs) -> tuple[_FoundLogs, list[PackProblem]]:
    """The log store ``pack.yaml`` points at, checked (it is opened when the logs are asked)."""
    from core.sources.logstore import check_store  # the store's module imports the tools

    present = [name for name in (LOGS_JSONL, LOGS_YAML) if (root / name).exists()]
    if present:
        return _FoundLogs(), [PackProblem(PACK_FILE, f"logs.store is set and {present[0]} exists; keep one",
                                          field="logs.store")]
    path = (root / Path(logs.store).expanduser()).resolve()
    problem = check_store(path)
    if problem is not None:
        return _FoundLogs(), [PackProblem(PACK_FILE, f"{problem}: {logs.store}", field="logs.store")]
    lines, services = _store_summary(path)
    return _FoundLogs(store=path, lines=lines, services=services), []


def _read_logs(root: Path, meta: PackMeta | None, build: bool) -> tuple[_FoundLogs, list[PackProblem]]:
    """The pack's logs.jsonl or logs.yaml, every entry checked. A small file is read into
    memory; a big one is served by its cached store (``core.sources.logcache``): found by key,
    or built now from one streaming pass when ``build`` (loading), else only checked
    (validating), so that no million entries are ever held."""
    jsonl, yaml_file = root / LOGS_JSONL, root / LOGS_YAML
    has_jsonl, has_yaml = (_present(jsonl), _present(yaml_file))
    if has_jsonl and has_yaml:
        return _FoundLogs(), [PackProblem(LOGS_JSONL, f"both {LOGS_JSONL} and {LOGS_YAML} exist; keep one")]
    if not has_jsonl and not has_yaml:
        return _FoundLogs(), [PackProblem(LOGS_JSONL, f"required file is missing (or {LOGS_YAML})")]
    path = jsonl if has_jsonl else yaml_file
    checker = _EntryChecker(path.name)
    from core.sources.logcache import SMALL_LOG_BYTES, CacheBuild, cached_store

    big = path.is_file() and not path.is_symlink() and path.stat().st_size > SMALL_LOG_BYTES
    if not big:  # small, or not a plain file: reading it says what is wrong
        entries = [entry for _, entry in _log_entries(root, path, checker)]
        services = list(dict.fromkeys(entry.service for entry in entries))
        return _FoundLogs(entries=entries, file=path, lines=len(entries), services=services), checker.problems
    zone = meta.now.tzinfo if meta is not None else None
    cached = cached_store(path, zone) if meta is not None else None
    if cached is not None:
        lines, services = _store_summary(cached)
        return _FoundLogs(file=path, cache=cached, lines=lines, services=services), []
    found = _FoundLogs(file=path)
    seen: dict[str, None] = {}
    if not build or meta is None:
        for _, entry in _log_entries(root, path, checker):
            seen.setdefault(entry.service, None)
            found.lines += 1
        found.services = list(seen)
        return found, checker.problems
    try:
        with CacheBuild(path, zone, f"{meta.name}/{path.name}") as cache:
            for number, entry in _log_entries(root, path, checker):
                if not checker.problems:
                    cache.add(entry, number)
                    seen.setdefault(entry.service, None)
                    found.lines += 1
            if not checker.problems:
                found.cache = cache.commit()
    except LogStoreError as error:
        return found, [PackProblem(path.name, str(error))]
    found.services = list(seen)
    return found, checker.problems


def _log_entries(root: Path, path: Path, checker: _EntryChecker) -> Iterator[tuple[int, LogEntry]]:
    """(line number, entry) of each entry of a log file, checked by ``checker``, which
    collects the problems (reading stops after ``_MAX_PROBLEMS_PER_FILE``)."""
    if path.name == LOGS_JSONL:
        yield from _jsonl_entries(root, path, checker)
        return
    data, problems = _yaml(root, LOGS_YAML, list)
    if problems:
        checker.problems += problems
        return
    try:
        logs = _LOGS.validate_python(data)
    except ValidationError as error:
        checker.problems += _field_problems(LOGS_YAML, error,
                                            lambda loc: (f"logs[{loc[0]}]", _dotted(loc[1:])))
        return
    for index, entry in enumerate(logs):
        checker.check(entry, f"logs[{index}]")
        yield index + 1, entry
        if checker.full:
            return


def _present(path: Path) -> bool:
    """Whether the pack has an entry of that name (a link or a special file counts: reading
    it then says what is wrong, instead of calling it missing)."""
    return path.exists() or path.is_symlink()


def _jsonl_entries(root: Path, path: Path, checker: _EntryChecker) -> Iterator[tuple[int, LogEntry]]:
    """One ``LogEntry`` per non-blank line, streamed; problems name the line number."""
    problems = checker.problems
    try:
        handle = open_regular(path, source=LOGS_JSONL, max_bytes=MAX_LOG_FILE_BYTES, within=root)
    except InputError as error:
        problems.append(_input_problem(LOGS_JSONL, error))
        return
    with handle:
        for number, raw in enumerate(iter(lambda: handle.readline(MAX_LOG_LINE_BYTES + 1), b""),
                                     start=1):
            if len(raw) > MAX_LOG_LINE_BYTES and not raw.endswith(b"\n"):
                _skip_line(handle)  # the rest of an over-long line is not another line
            entry = _jsonl_line(raw, number, checker)
            if entry is not None:
                yield number, entry
            if len(problems) >= _MAX_PROBLEMS_PER_FILE:
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
    and a time, a level that is known. Each level spelling is checked once."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[PackProblem] = []
        self._levels: dict[str, bool] = {}

    @property
    def full(self) -> bool:
        return len(self.problems) >= _MAX_PROBLEMS_PER_FILE

    def check(self, entry: LogEntry, where: str) -> None:
        if parse_timestamp(entry.timestamp) is None:
            self.problems.append(PackProblem(
                self.file, f"not an ISO 8601 date and time (such as 2026-07-08T10:58:12+08:00): "
                           f"{entry.timestamp!r}", where, "timestamp"))
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
                                        _dotted(tuple(item["loc"]))))
    return problems


def _runbook_files(folder: Path) -> Iterator[Path]:
    """Every ``*.md`` under ``folder``, sorted, without following links to folders (a linked
    folder could lead outside the pack or round in a loop)."""
    for current, folders, files in os.walk(folder, followlinks=False):
        folders.sort()
        for name in sorted(files + [d for d in folders if d.endswith(".md")]):
            if name.endswith(".md"):
                yield Path(current) / name


def read_markdown_runbooks(folder: Path, relative_to: Path) -> tuple[list[Runbook], list[PackProblem]]:
    """The Markdown runbooks under ``folder`` (any depth), each named by its path relative to
    ``relative_to`` and read only from inside it: a link out of it, a special file, an oversized
    or non-UTF-8 file is a problem, not a runbook."""
    runbooks, problems = [], []
    for count, path in enumerate(_runbook_files(folder)):
        source = path.relative_to(relative_to).as_posix() if path.is_relative_to(relative_to) else str(path)
        if count >= MAX_RUNBOOKS:
            problems.append(PackProblem(RUNBOOKS_DIR + "/", f"more than {MAX_RUNBOOKS} runbooks"))
            break
        try:
            text = read_text(path, source=source, max_bytes=MAX_RUNBOOK_BYTES, within=relative_to)
            check_text(text, source=source)
        except InputError as error:
            problems.append(_input_problem(source, error))
            continue
        try:
            title, sections = _split_markdown(text, fallback_title=path.stem)
        except InputError as error:
            problems.append(PackProblem(source, f"front matter: {error.problem}"))
            continue
        runbooks.append(Runbook(
            title=title, source=source,
            sections=[RunbookSection(title=t, content=c) for t, c in sections]))
    return runbooks, problems


def _read_runbooks(root: Path) -> tuple[list[Runbook], list[PackProblem]]:
    folder = root / RUNBOOKS_DIR
    if not _present(folder):
        return [], [PackProblem(RUNBOOKS_DIR + "/", "required folder is missing (it may be empty)")]
    try:
        real_folder = resolve_within(folder, root, source=RUNBOOKS_DIR + "/")
    except InputError as error:
        return [], [_input_problem(RUNBOOKS_DIR + "/", error)]
    if not real_folder.is_dir():
        return [], [PackProblem(RUNBOOKS_DIR + "/", "must be a folder")]
    return read_markdown_runbooks(real_folder, root)


def rule_runbooks(groups: list[RuleGroup]) -> list[Runbook]:
    """Alerting rule groups as runbooks: titled by group, a section per rule (its name and
    ``rule_text``), so ``lookup_knowledge`` ranks and cites them like any runbook section."""
    return [Runbook(title=group.name, source=group.source,
                    sections=[RunbookSection(title=rule.name, content=rule_text(rule))
                              for rule in group.rules])
            for group in groups]


def _read_rules(root: Path) -> tuple[list[Runbook], list[PackProblem]]:
    folder = root / RULES_DIR
    if not folder.is_dir():
        return [], []  # optional
    try:
        return rule_runbooks(read_rules([folder], relative_to=root, within=root)), []
    except RuleFileError as error:
        return [], [PackProblem(RULES_DIR + "/", str(error))]


# ---------------------------------------------------------------- validate and load


def _read_pack(root: Path, build: bool = True) -> tuple[Pack | None, list[PackProblem]]:
    """The pack and its problems. ``build=False`` (validating) checks a big log file without
    building its cached store: the pack returned then holds a summary of its logs only."""
    meta, problems = _read_meta(root)
    alerts, more = _read_alerts(root)
    problems += more
    series, more = _read_series(root)
    problems += more
    if meta is not None and meta.logs is not None:
        logs, more = _read_store(root, meta.logs)
    else:
        logs, more = _read_logs(root, meta, build)
    problems += more
    runbooks, more = _read_runbooks(root)
    problems += more
    rules, more = _read_rules(root)
    problems += more
    if problems or meta is None:
        return None, problems
    pack = Pack(name=meta.name, description=meta.description, now=meta.now, root=root,
                alerts=alerts, series=series, logs=logs.entries, runbooks=runbooks, rules=rules,
                example_questions=meta.example_questions, log_file=logs.file, log_store=logs.store,
                log_cache=logs.cache, log_lines=logs.lines, log_services=logs.services)
    return pack, []


def validate_pack(path: str | Path, packs_dir: Path | None = None) -> list[PackProblem]:
    """Every problem of a pack (empty when it is valid). A pack that cannot be found raises."""
    return inspect_pack(path, packs_dir)[1]


def inspect_pack(path: str | Path, packs_dir: Path | None = None) -> tuple[Pack | None, list[PackProblem]]:
    """Validate a pack without building anything: (the pack, or None, and every problem).
    A big log file without a cached store is checked line by line and only summarised
    (``log_lines``, ``log_services``); such a pack is for reading, not for asking."""
    return _read_pack(resolve_pack(str(path), packs_dir), build=False)


_CACHE: dict[Path, tuple[tuple[Any, ...], Pack]] = {}
_CACHE_LOCK = threading.Lock()


def _signature(root: Path) -> tuple[Any, ...]:
    """What a cached pack depends on: every file's path, size and modification time."""
    files = [root / name for name in (PACK_FILE, ALERTS_FILE, SERIES_FILE, LOGS_JSONL, LOGS_YAML)]
    files += _store_files(root)
    for folder in (root / RUNBOOKS_DIR, root / RULES_DIR):
        if folder.is_dir():
            files += [folder, *sorted(folder.rglob("*"))]
    signature: list[tuple[str, int | None, int | None]] = []
    for path in files:
        try:
            stat = path.stat()
            signature.append((str(path), stat.st_size, stat.st_mtime_ns))
        except OSError:
            signature.append((str(path), None, None))
    return tuple(signature)


def _store_files(root: Path) -> list[Path]:
    """The log store pack.yaml names, if any (a re-import must reload the pack)."""
    try:  # the one bounded reader: pack.yaml may be a FIFO or a link to /dev/zero
        data = parse_yaml(read_text(root / PACK_FILE, source=PACK_FILE, max_bytes=MAX_YAML_BYTES,
                                    within=root), source=PACK_FILE)
    except InputError:
        return []
    logs = data.get("logs") if isinstance(data, dict) else None
    store = logs.get("store") if isinstance(logs, dict) else None
    return [root / str(store)] if isinstance(store, str) and store else []


def load_pack(name_or_path: str, packs_dir: Path | None = None) -> Pack:
    """Load (or return the cached) pack; raise ``PackError`` naming the first problem found."""
    root = resolve_pack(name_or_path, packs_dir)
    signature = _signature(root)
    with _CACHE_LOCK:
        cached = _CACHE.get(root)
    if cached and cached[0] == signature:
        return cached[1]
    pack, problems = _read_pack(root)
    if problems or pack is None:
        raise problems[0].to_error()
    with _CACHE_LOCK:
        _CACHE[root] = (signature, pack)
    return pack
