"""Scenario packs: the world the tools see, loaded from a pack folder and validated.

A pack is named by path or by name; a name is looked up in ``SUPERBIZ_PACKS_DIR``'s folders,
then among the packs that ship with superbiz (``mockdata/`` of the checkout, installed as
``superbiz_mockdata``), then in the user packs folder ``superbiz logs add`` makes packs in
(``core.userpacks``): ``pack_dirs``. The folders are read on every lookup, never cached, so a
pack added while the console runs is found.

A pack folder holds::

    pack.yaml        name (default: the folder's), description, now (ISO timestamp: the pack's
                     fixed clock; default: the newest moment of its data, ``service_clocks``),
                     example_questions, ``logs: {store: PATH}``; every key optional
    alerts.yaml      a list of alerts (``core.contracts.Alert``)
    series.yaml      a mapping name -> metric series (``core.contracts.MetricSeries``)
    logs.jsonl       one log entry (``core.contracts.LogEntry``) per line; or logs.yaml, a list;
                     or neither, when pack.yaml points at a log store (``superbiz logs import``,
                     the path relative to the pack folder)

A log file up to 1 MiB is read at load (``Pack.logs``); a bigger one is read once, line by
line, into a log store cached in the user's cache folder (``core.sources.logcache``), and
later loads find that store without reading a line. Either way the logs are searched by the
log store (``core.sources.pack.PackLogs``).
    runbooks/        Markdown files (any depth)
    rules/           optional: Prometheus alerting rule files (``.yml``/``.yaml``, rule files or
                     PrometheusRule resources), searched by ``lookup_knowledge`` like runbooks

Every file and folder but ``pack.yaml`` is optional (a pack of imported logs is ``pack.yaml``
saying ``logs: {store: PATH}``); a pack holding none of them is refused.

A log entry's timestamp must be ISO 8601 with a date and a time (a timestamp without a zone is
in the zone of ``now``) and its level a known one (``core.logfields``: TRACE, DEBUG, INFO, WARN,
WARNING, ERROR, FATAL, CRITICAL, SEVERE ...).

Every problem is reported as one line naming the file, the entry (``alerts[2]``, ``line 17``)
and the field, never as a traceback: ``validate_pack`` lists them all, ``load_pack`` raises the
first as ``PackError``. Loaded packs are cached by folder and file modification times.

This module is the public surface: the ``Pack`` model, locating, validating and loading. Each
file is read by a private module of ``core.packfiles`` (``formats``: file names, limits, the
models of ``pack.yaml``, runbooks and problems; ``yamlfiles``; ``logs``; ``runbooks``), whose
public names are re-exported here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, PrivateAttr

from core.contracts import Alert, LogEntry, MetricSeries, empty_list
from core.errors import InputError, PackError
from core.inputs.files import read_text
from core.inputs.yamldoc import parse_yaml
from core.logfields import parse_timestamp
from core.packfiles.formats import (
    ALERTS_FILE,
    LOGS_JSONL,
    LOGS_YAML,
    MAX_YAML_BYTES,
    PACK_FILE,
    RULES_DIR,
    RUNBOOKS_DIR,
    SERIES_FILE,
    PackLogs,
    PackMeta,
    PackProblem,
    Runbook,
    RunbookSection,
    present,
)
from core.packfiles.logs import read_logs, read_store
from core.packfiles.runbooks import read_markdown_runbooks, read_rules_dir, read_runbooks_dir, rule_runbooks
from core.packfiles.yamlfiles import read_alerts, read_meta, read_series
from core.settings import get_settings

__all__ = [
    "Pack",
    "PackLogs",
    "PackMeta",
    "PackProblem",
    "Runbook",
    "RunbookSection",
    "inspect_pack",
    "list_packs",
    "load_pack",
    "pack_dirs",
    "read_markdown_runbooks",
    "resolve_pack",
    "rule_runbooks",
    "validate_pack",
]

# One lock for every pack's derived data (re-entrant: one index may be built from another).
# Not a per-pack lock, so that a Pack stays picklable.
_DERIVED_LOCK = threading.RLock()
_T = TypeVar("_T")


class Pack(BaseModel):
    """A loaded scenario pack. Treat it as read-only: loaded packs are shared through a cache."""

    name: str
    description: str = ""
    now: datetime
    root: Path
    alerts: list[Alert] = Field(default_factory=empty_list)
    series: dict[str, MetricSeries] = Field(default_factory=dict)
    # A small log file's entries, read and checked at load (empty when a store serves the logs).
    logs: list[LogEntry] = Field(default_factory=empty_list)
    runbooks: list[Runbook] = Field(default_factory=empty_list)
    # Alerting rules (rules/): one "runbook" per rule group, one section per rule.
    rules: list[Runbook] = Field(default_factory=empty_list)
    example_questions: list[str] = Field(default_factory=empty_list)
    log_file: Path | None = None  # logs.jsonl or logs.yaml
    # A log store holding the pack's logs (``logs: {store: PATH}``), instead of a log file.
    log_store: Path | None = None
    # The cached store of a big log file (``core.sources.logcache``), built once from it.
    log_cache: Path | None = None
    log_lines: int = 0  # log entries, in whichever form they are held
    log_services: list[str] = Field(default_factory=empty_list)  # services with log lines, first seen first
    # A recording's end for each service (a pack without ``now``: ``service_clocks``); empty
    # when ``now`` is set, a clock every service shares.
    clocks: dict[str, datetime] = Field(default_factory=dict)

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
            folders = sorted(p for p in base.iterdir() if p.is_dir() and present(p / PACK_FILE))
        except OSError:  # no such folder, or one that cannot be read: no packs from it
            continue
        for folder in folders:
            if folder.name not in found:
                meta, problems = read_meta(folder)
                found[folder.name] = meta.description if meta else f"(invalid: {problems[0]})"
    return sorted(found.items())


# ---------------------------------------------------------------- validate and load


def _read_pack(root: Path, build: bool = True) -> tuple[Pack | None, list[PackProblem]]:
    """The pack and its problems. ``build=False`` (validating) checks a big log file without
    building its cached store: the pack returned then holds a summary of its logs only."""
    meta, problems = read_meta(root)
    alerts, more = read_alerts(root)
    problems += more
    series, more = read_series(root)
    problems += more
    if meta is not None and meta.logs is not None:
        logs, more = read_store(root, meta.logs)
    else:
        logs, more = read_logs(root, meta, build)
    problems += more
    runbooks, more = read_runbooks_dir(root)
    problems += more
    rules, more = read_rules_dir(root)
    problems += more
    if meta is not None and not problems and not _holds_data(root, meta):
        problems.append(PackProblem(PACK_FILE, _NO_DATA))
    if problems or meta is None:
        return None, problems
    # A recording's clock is where its data ends: each service's, and the pack's the latest.
    clocks = {} if meta.now else service_clocks(alerts, series, logs.newest_by_service)
    now = meta.now or max(clocks.values(), default=None) or datetime.now(UTC)
    pack = Pack(name=meta.name or root.name, description=meta.description, now=now, root=root, clocks=clocks,
                alerts=alerts, series=series, logs=logs.entries, runbooks=runbooks, rules=rules,
                example_questions=meta.example_questions, log_file=logs.file, log_store=logs.store,
                log_cache=logs.cache, log_lines=logs.lines, log_services=logs.services)
    return pack, []


_NO_DATA = (f"the pack holds no data: add {ALERTS_FILE}, {SERIES_FILE}, {LOGS_JSONL} (or logs: "
            f"{{store: PATH}} here), {RUNBOOKS_DIR}/ or {RULES_DIR}/ beside it")


def _holds_data(root: Path, meta: PackMeta) -> bool:
    """Whether the pack has any of its data files or folders (each is optional, not all)."""
    names = (ALERTS_FILE, SERIES_FILE, LOGS_JSONL, LOGS_YAML, RUNBOOKS_DIR, RULES_DIR)
    return meta.logs is not None or any(present(root / name) for name in names)


def service_clocks(alerts: list[Alert], series: dict[str, MetricSeries],
                   newest_logs: dict[str, datetime]) -> dict[str, datetime]:
    """Each service's newest moment (an alert's start, a sample, a log line; a time without a
    zone is UTC) in a pack that sets no ``now``: a pack is recordings, which may end on
    different days (loghub's Hadoop in 2015, Spark in 2017), so "the last hour" about one
    service is the last hour of its own data, and the pack's clock is the latest of them."""
    clocks = dict(newest_logs)
    moments = [(alert.service, parse_timestamp(alert.started_at)) for alert in alerts if alert.started_at]
    moments += [(one.service, parse_timestamp(point.ts)) for one in series.values() for point in one.points]
    for service, moment in moments:
        if moment is not None and (service not in clocks or moment > clocks[service]):
            clocks[service] = moment
    return clocks


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
