"""``superbiz logs add|import|stats|query``: bring your own log files into a log store and search it.

``add`` imports into a pack of its own, askable at once (``core.cli.logsadd_cmd``).
``import`` reads files of any common layout (or a regex) into a SQLite+FTS5 store, all or
nothing; ``stats`` says what a store holds; ``query`` runs ``query_logs`` on it. A pack points
at a store with ``logs: {store: PATH}`` in its pack.yaml. See docs/logstore.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cli.common import print_json

if TYPE_CHECKING:
    from core.sources.logimport import ImportReport

_PROGRESS_AFTER_S = 1.0  # quiet for quick imports; a line every so often for long ones
# ``--format``'s choices: core.sources.logformats.FORMATS, named here because building the
# parser (every command does) must not compile the layouts' regexes (tests/test_logformats.py).
FORMAT_NAMES = ("auto", "jsonl", "syslog", "openstack", "hdfs", "spark", "klog", "clf", "log4j", "logfmt",
                "text", "plain", "regex")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``logs`` and its subcommands."""
    logs = subparsers.add_parser("logs", help="import log files into a log store and search it",
                                 description="A log store is a SQLite file with a full-text index: "
                                             "add log files of any common layout to a pack of their "
                                             "own (logs add), or import them into a store a pack "
                                             "points at (logs: {store: PATH}).")
    commands = logs.add_subparsers(dest="logs_command", metavar="SUBCOMMAND", required=True)
    from core.cli.logsadd_cmd import register_add

    register_add(commands)

    importing = commands.add_parser(
        "import", help="import log files into a store (created if missing, appended otherwise)",
        description="Recognises JSON lines, logfmt, syslog (RFC 3164/5424), log4j-style, HDFS, Spark, "
                    "OpenStack, Kubernetes (klog) and web access logs (Common/Combined Log Format) by "
                    "itself, and learns any other layout from where its timestamp, level and tag are "
                    "(--format text); --no-timestamps reads lines without timestamps; --format regex "
                    "--pattern RE reads anything else. A file that gives no entry, or more than "
                    "--max-unparsed unparsed lines, is refused. "
                    "All or nothing: an error leaves the store as it was.")
    importing.add_argument("files", nargs="+", metavar="FILE", help="log files (plain or .gz)")
    target = importing.add_mutually_exclusive_group(required=True)
    target.add_argument("--store", metavar="PATH", help="the store file")
    target.add_argument("--to", metavar="URL", dest="to_clickhouse",
                        help="a ClickHouse server's otel_logs table instead: clickhouse://host:8123/DATABASE"
                             "[/TABLE] (default otel/otel_logs; http(s):// too; docs/clickhouse.md)")
    target.add_argument("--to-chdb", metavar="DIR", help="an embedded ClickHouse (chdb) folder's otel.otel_logs")
    import_options(importing)
    importing.set_defaults(handler=_import)

    stats = commands.add_parser("stats", help="what a store holds",
                                description="Lines, services, levels, time range, templates, files.")
    stats.add_argument("--store", required=True, metavar="PATH", help="the store file")
    stats.add_argument("--json", action="store_true", help="print JSON only")
    stats.set_defaults(handler=_stats)

    query = commands.add_parser("query", help="run query_logs on a store",
                                description="The query_logs tool on a store: ranked lines and groups.")
    query.add_argument("query", nargs="?", default=None, metavar="TEXT",
                       help='free text: topics, identifiers, words, "quoted phrases"')
    query.add_argument("--store", required=True, metavar="PATH", help="the store file")
    query.add_argument("--service", help="service, exact, case-insensitive")
    query.add_argument("--level", help="minimum level (ERROR covers FATAL/CRITICAL)")
    query.add_argument("--term", action="append", default=[], dest="terms", metavar="PHRASE",
                       help="an exact phrase (repeatable)")
    query.add_argument("--exclude", action="append", default=[], metavar="WORD|LEVEL",
                       help="leave out lines holding this phrase, or of this level (repeatable)")
    query.add_argument("--match", choices=("all", "any"), default="all")
    query.add_argument("--topic", help="a lexicon topic")
    query.add_argument("--since", help="earliest time, ISO 8601")
    query.add_argument("--until", help="latest time, ISO 8601 (inclusive)")
    query.add_argument("--limit", type=int, default=20, help="lines to show (1-200)")
    query.add_argument("--json", action="store_true", help="print JSON only: {result, request}")
    query.set_defaults(handler=_query)


def import_options(parser: argparse.ArgumentParser) -> None:
    """The options of an import (``logs import`` and ``logs add``), read by ``run_import``."""
    parser.add_argument("--format", default="auto", choices=FORMAT_NAMES, dest="layout",
                        help="the files' layout (default: recognised from the first lines)")
    parser.add_argument("--pattern", metavar="RE",
                        help="regex with named groups timestamp and message (required), level, "
                             "service, source, host; implies --format regex")
    parser.add_argument("--service", metavar="NAME",
                        help="service of every line (default: the layout's, else the file name)")
    parser.add_argument("--timezone", metavar="TZ",
                        help="zone of timestamps written without one: an IANA name or +08:00 "
                             "(default: UTC for a new store, else the store's)")
    parser.add_argument("--year", type=int, metavar="YYYY",
                        help="year of timestamps written without one (default: the file's "
                             "modification time's; the report says which)")
    parser.add_argument("--no-timestamps", action="store_true",
                        help="the lines have no timestamps: each is an entry, stamped with the "
                             "file's modification time, in file order")
    parser.add_argument("--strict", action="store_true", help="refuse a file with any unparsed line")
    parser.add_argument("--max-unparsed", type=float, default=5.0, metavar="PERCENT",
                        help="refuse a file with more unparsed lines than this share of its "
                             "lines (default 5; a file of 2 unparsed lines or fewer is kept)")
    parser.add_argument("--json", action="store_true", help="print JSON only")


class _Progress:
    """The progress lines on stderr: each file's lines read, and the rate of the whole import so
    far (every file's lines over the time since it began: a file's own lines over the whole
    time read far lower than the import's true rate from the second file on)."""

    def __init__(self) -> None:
        self._started = time.perf_counter()
        self._read: dict[str, int] = {}  # file -> its lines read

    def __call__(self, path: str, lines: int, entries: int) -> None:
        self._read[path] = lines
        elapsed = time.perf_counter() - self._started
        if elapsed >= _PROGRESS_AFTER_S:
            rate = sum(self._read.values()) / elapsed
            print(f"superbiz: importing {path}: {lines:,} lines read, {entries:,} entries "
                  f"({rate:,.0f} lines/s)", file=sys.stderr, flush=True)


def import_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``import_files`` the options of ``import_options`` give
    (the progress lines on stderr among them)."""
    from core.errors import LogImportError

    if not 0 <= args.max_unparsed <= 100:
        raise LogImportError(f"--max-unparsed {args.max_unparsed}: a percentage, 0 to 100")
    layout = "regex" if args.pattern is not None else args.layout
    return {"layout": layout, "pattern": args.pattern, "service": args.service,
            "timezone_name": args.timezone, "year": args.year, "no_timestamps": args.no_timestamps,
            "strict": args.strict, "max_unparsed": args.max_unparsed / 100,
            "progress": _Progress()}


def _import(args: argparse.Namespace) -> int:
    from core.sources.logimport import import_files

    if args.store is None:
        return _import_clickhouse(args)
    report = import_files([Path(name) for name in args.files], Path(args.store), **import_settings(args))
    return print_import(report, as_json=args.json)


def _import_clickhouse(args: argparse.Namespace) -> int:
    """``--to`` / ``--to-chdb``: the files read as for a store, written as otel_logs rows."""
    from core.errors import LogImportError, SuperbizError
    from core.redact import public_url
    from core.sources.clickhouse import ChdbClient, Client, ConnectClient
    from core.sources.clickhouse.writer import import_into
    from core.sources.config import env_clickhouse

    if args.to_chdb is not None:
        where, database, table = args.to_chdb, "otel", "otel_logs"
    else:
        config = env_clickhouse(args.to_clickhouse)
        assert config.url is not None
        where, database, table = public_url(config.url), config.database, config.table
    client: Client | None = None
    try:
        client = ChdbClient(where) if args.to_chdb is not None else ConnectClient(config.url or "", database, 30.0)
        report, written = import_into([Path(name) for name in args.files], client, database, table,
                                      **import_settings(args))
    except SuperbizError:
        raise
    except Exception as error:  # the server's or the network's, in one line
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
        raise LogImportError(f"{where}/{database}.{table}: {reason}") from None
    finally:
        if client is not None:
            client.close()
    report.store = f"{where}/{database}.{table}"  # the table, not the temporary store read through
    return print_import(report, as_json=args.json, more={"rows_written": written})


def print_import(report: ImportReport, *, as_json: bool, more: dict[str, Any] | None = None) -> int:
    """Print an import's report (``more``: keys the JSON document starts with); exit code 0."""
    files = [{"path": f.path, "layout": f.layout, "physical_lines": f.physical_lines, "entries": f.entries,
              "continuation_lines": f.continuation_lines, "unparsed": f.unparsed,
              "unparsed_lines": [{"line": number, "text": text} for number, text in f.unparsed_lines],
              "truncated_entries": f.truncated_entries, "invalid_utf8_replaced": f.replaced_characters,
              "notes": f.notes, "skipped": f.skipped}
             for f in report.files]
    if as_json:
        print_json({**(more or {}), "store": report.store, "created": report.created,
                    "timezone": report.timezone, "entries": report.entries,
                    "seconds": round(report.seconds, 3), "files": files})
        return 0
    verb = "created" if report.created else "appended to" if report.entries else "unchanged"
    print(f"{report.store}: {verb}, {report.entries:,} entries in {report.seconds:.1f} s "
          f"(timestamps in {report.timezone})")
    for f in report.files:
        if f.skipped:
            print(f"  {f.path}: skipped, {'; '.join(f.notes)}")
            continue
        extra = f", {f.continuation_lines:,} continuation lines attached" if f.continuation_lines else ""
        print(f"  {f.path}: {f.layout}, {f.physical_lines:,} lines, {f.entries:,} entries{extra}, "
              f"{f.unparsed:,} unparsed")
        for number, text in f.unparsed_lines:
            print(f"    unparsed line {number}: {text}")
        if f.unparsed > len(f.unparsed_lines):
            print(f"    ... and {f.unparsed - len(f.unparsed_lines):,} more unparsed lines")
        if f.truncated_entries:
            print(f"    {f.truncated_entries:,} entries cut at 1 MiB of continuation lines")
        if f.replaced_characters:
            print("    invalid UTF-8 bytes were replaced by U+FFFD")
        for note in f.notes:
            print(f"    {note}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    from core.sources.logstore import LogStore

    store = LogStore.open(args.store)
    try:
        stats = store.stats()
    finally:
        store.close()
    if args.json:
        print_json(stats)
        return 0
    levels: dict[str, int] = stats["levels"]
    services: dict[str, int] = stats["services"]
    print(f"{stats['store']}: {stats['lines']:,} lines, {len(stats['services'])} services, "
          f"{stats['templates']:,} templates, timestamps in {stats['timezone']}")
    print(f"  time range: {stats['first_timestamp']} .. {stats['last_timestamp']}")
    written: dict[str, dict[str, int]] = stats.get("written_levels", {})

    def as_written(name: str) -> str:
        spellings = written.get(name)
        return f" (written {', '.join(spellings)})" if spellings else ""
    print("  levels:   " + ", ".join(f"{name or '(none)'} {count:,}{as_written(name)}"
                                     for name, count in levels.items()))
    print("  services: " + ", ".join(f"{name} {count:,}" for name, count in services.items()))
    for item in stats["files"]:
        print(f"  file {item['path']}: {item['layout']}, {item['entries']:,} entries, "
              f"{item['unparsed']:,} unparsed, imported {item['imported_at']}")
    return 0


def _query(args: argparse.Namespace) -> int:
    from core.sources.logstore import LogStore
    from core.tools import QueryLogsArgs, validate_arguments

    arguments: dict[str, Any] = {"query": args.query, "service": args.service, "level": args.level,
                                 "terms": args.terms, "exclude": args.exclude, "match": args.match,
                                 "topic": args.topic, "since": args.since, "until": args.until,
                                 "limit": args.limit}
    validated = validate_arguments("query_logs", {k: v for k, v in arguments.items() if v not in (None, [])})
    assert isinstance(validated, QueryLogsArgs)
    store = LogStore.open(args.store)
    try:
        result, request = store.query_logs(validated)
    finally:
        store.close()
    if args.json:
        print_json({"result": result, "request": request})
        return 0
    print(result.message)
    for index, group in enumerate(result.groups):
        print(f"  group {index}: {group.count:,} x [{group.level}] {group.service}: {group.template} "
              f"({group.first_timestamp} .. {group.last_timestamp})")
    for index, entry in enumerate(result.logs):
        print(f"  [{index}] {entry.timestamp} {entry.level} {entry.service}: {entry.message}")
    return 0
