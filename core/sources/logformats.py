"""Log layouts: recognising a line's layout and reading its fields.

Each layout turns one physical line into a ``ParsedLine`` (timestamp parts, level, service,
source, host, message) or says it is not a line of that layout. Layouts:

- ``jsonl``: one JSON object per line; fields by common key names (``timestamp``/``time``/
  ``ts``/``@timestamp``, ``level``/``severity``, ``message``/``msg``, ``service``/``app``,
  ``logger``/``source``, ``host``); the pack format (``LogEntry``) is one of these. Without a
  level field, a level word the message starts with is its level (Docker's ``{"log": ...}``).
- ``logfmt``: ``key=value key2="quoted value"`` with the same key names.
- ``syslog``: RFC 5424 (``<165>1 2003-10-11T22:14:15.003Z host app 1234 ID47 - msg``) and
  RFC 3164 / the BSD files in /var/log (``[<34>]Oct 11 22:14:15 host su[77]: msg``); the level
  comes from the priority, the service from the app name / tag.
- ``log4j``: an ISO date and time, then the level, optional ``[context]`` and
  ``dotted.Logger:``, the message (Hadoop, ZooKeeper, Python's logging, most Java apps).
- ``hdfs``: ``081109 203615 148 INFO dfs.DataNode: msg`` (yyMMdd HHmmss pid level class).
- ``spark``: ``17/06/09 20:10:40 INFO executor.Backend: msg`` (yy/MM/dd).
- ``openstack``: oslo.log, ``2017-05-16 00:00:00.008 25746 INFO nova.compute.manager
  [req-...] msg``, optionally after the log file's name (``nova-api.log.1.2017-05-16_13:53:08``).
- ``klog``: Kubernetes components and glog, ``E0301 10:00:01.654321   1 controller.go:45] msg``
  (level letter I/W/E/F, month and day: no year, read as BSD syslog's), source ``file:line``.
- ``clf``: web servers' access logs, the Common and Combined Log Formats (nginx, Apache):
  ``10.0.0.2 - frank [01/Mar/2024:10:00:01 +0000] "POST /pay HTTP/1.1" 503 87 "-" "curl/8"``;
  the message is the line without its timestamp (and an empty ident and user); the level
  comes from the status (5xx ERROR, 4xx WARN, else INFO), so "errors" finds failed requests.
- ``text``: any other layout with a timestamp, learned from the file's shapes
  (``core.sources.logshapes``); ``plain``: lines without timestamps.
- ``regex``: a user's pattern with named groups ``timestamp`` and ``message`` (required),
  ``level``, ``service``, ``source`` (or ``logger``/``component``), ``host``.

Timestamps are read into their parts (``TimeParts``) and turned into instants by
``core.sources.logclock``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from core.inputs.patterns import regex_problem
from core.sources.logclock import TimeParts

MONTHS = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_LEVEL = (r"(?P<level>(?i:TRACE|DEBUG|INFO|NOTICE|WARNING|WARN|ERROR|ERR|FATAL|CRITICAL|CRIT"
          r"|SEVERE|ALERT|EMERGENCY|EMERG|FINEST|FINER|FINE|CONFIG|PANIC))(?![\w])")
_ISO_TIME = (r"(?P<Y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)[T ](?P<H>\d\d):(?P<M>\d\d)(?::(?P<S>\d\d)"
             r"(?:[.,](?P<f>\d{1,9}))?)?\s?(?P<z>Z|z|[+-]\d\d:?\d\d)?")
_CONTEXT = r"\[(?P<ctx>(?:[^\[\]]|\[[^\[\]]*\])*)\]"
_MONTH_NAMES = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"


class ParsedLine(NamedTuple):
    """The fields one line of a layout holds (None: the layout does not say)."""

    time: TimeParts | None
    message: str
    level: str | None = None
    service: str | None = None
    source: str | None = None
    host: str | None = None


def _iso_time(match: re.Match[str]) -> TimeParts:
    """The parts of ``_ISO_TIME`` in a match (the hot path of an import: no dictionaries)."""
    year, month, day, hour, minute, second, fraction, zone = match.group("Y", "m", "d", "H", "M", "S", "f", "z")
    return TimeParts(int(year), int(month), int(day), int(hour), int(minute), int(second or 0),
                     fraction or "", zone)


def _short_year_time(match: re.Match[str]) -> TimeParts:
    """The parts of a two-digit-year timestamp (``yy MM dd HH mm ss``) in a match."""
    year, month, day, hour, minute, second = match.group("y", "m", "d", "H", "M", "S")
    return TimeParts(2000 + int(year), int(month), int(day), int(hour), int(minute), int(second))


def _time_from(groups: dict[str, str | None]) -> TimeParts:
    year_text, short_year = groups.get("Y"), groups.get("y")
    year = int(year_text) if year_text else (2000 + int(short_year) if short_year else None)
    month_name = groups.get("b")
    month = MONTHS[month_name.lower()] if month_name else int(groups.get("m") or 1)
    return TimeParts(year=year, month=month, day=int(groups.get("d") or 1),
                     hour=int(groups.get("H") or 0), minute=int(groups.get("M") or 0),
                     second=int(groups.get("S") or 0), fraction=groups.get("f") or "",
                     zone=groups.get("z"))


# ---------------------------------------------------------------- timestamps as values

_VALUE_TIMES = [re.compile(rf"\s*{pattern}\s*") for pattern in (
    _ISO_TIME,
    r"(?P<y>\d\d)/(?P<m>\d\d)/(?P<d>\d\d) (?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)(?:[.,](?P<f>\d{1,9}))?",
    r"(?P<y>\d\d)(?P<m>\d\d)(?P<d>\d\d) (?P<H>\d\d)(?P<M>\d\d)(?P<S>\d\d)",
    rf"(?P<b>{_MONTH_NAMES}) +(?P<d>\d{{1,2}}) (?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)(?:\.(?P<f>\d{{1,9}}))?",
    rf"(?P<d>\d\d)/(?P<b>{_MONTH_NAMES})/(?P<Y>\d{{4}}):(?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)"
    r"(?: (?P<z>[+-]\d{4}))?",
)]
_EPOCH = re.compile(r"\s*(\d{9,19})(?:\.(\d+))?\s*")


def time_of_value(value: Any) -> TimeParts | None:
    """A timestamp given as a value (JSON, logfmt, a regex group): the ISO 8601 family, the
    loghub/syslog/access-log shapes above, or an epoch number (s, ms, µs or ns by size)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _epoch(float(value))
    if not isinstance(value, str):
        return None
    for pattern in _VALUE_TIMES:
        match = pattern.fullmatch(value)
        if match:
            return _time_from(match.groupdict())
    match = _EPOCH.fullmatch(value)
    if match:
        return _epoch(float(value))
    return None


def _epoch(number: float) -> TimeParts | None:
    for scale in (1, 1e3, 1e6, 1e9):  # the first scale that lands between 1973 and 2286
        seconds = number / scale
        if 1e8 <= seconds < 1e10:
            return TimeParts(epoch=seconds)
    return None


# ---------------------------------------------------------------- field names in records

_TIME_KEYS = ("timestamp", "@timestamp", "time", "ts", "datetime", "date", "t", "asctime", "eventTime")
_LEVEL_KEYS = ("level", "severity", "lvl", "loglevel", "log.level", "levelname", "level_name", "severity_text")
_MESSAGE_KEYS = ("message", "msg", "log", "text", "event", "body")
_SERVICE_KEYS = ("service", "service.name", "service_name", "app", "application", "app_name",
                 "program", "syslog_identifier", "_comm")
_SOURCE_KEYS = ("source", "logger", "logger_name", "name", "component", "module", "caller")
_HOST_KEYS = ("host", "hostname", "host.name", "_hostname", "node")


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = record.get(key)
        if value is None and "." in key:  # {"service": {"name": ...}}
            head, _, tail = key.partition(".")
            inner = record.get(head)
            value = inner.get(tail) if isinstance(inner, dict) else None
        if value not in (None, ""):
            return value
    return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# A level word a message starts with, when its record has no level field ("[WARN] ...").
_LEADING_LEVEL = re.compile(rf"[\[(<]?{_LEVEL}[\])>]?:?(?=\s+\S)")


# What a record's other fields say about its writer, not its event (Docker's stream, a logging
# library's thread and code location): never a line's words.
_WRITER_KEYS = ("stream", "@version", "pid", "tid", "thread", "thread_name", "threadName", "process",
                "processName", "lineno", "line", "file", "filename", "funcName", "func")
_KNOWN_KEYS = frozenset((*_TIME_KEYS, *_LEVEL_KEYS, *_MESSAGE_KEYS, *_SERVICE_KEYS, *_SOURCE_KEYS,
                         *_HOST_KEYS, *_WRITER_KEYS))
_PLAIN_VALUE = re.compile(r'[^\s"=]+')


def _other_fields(record: dict[str, Any]) -> str:
    """The record's other plain fields as logfmt (``order=1002 user="a b"``): what a structured
    line says beyond its message (an id, a status, a duration) is searched and shown with it.
    Nested objects and lists are left out (a container's whole metadata is no line's words)."""
    pairs = []
    for key, value in record.items():
        if key in _KNOWN_KEYS or value is None or isinstance(value, (dict, list)):
            continue
        text = value if isinstance(value, str) else json.dumps(value)
        if not _PLAIN_VALUE.fullmatch(text):
            text = json.dumps(text, ensure_ascii=False)
        pairs.append(f"{key}={text}")
    return " ".join(pairs)


def from_record(record: dict[str, Any]) -> ParsedLine | None:
    """A JSON/logfmt record's fields, its other plain fields after its message; None without a
    message or a readable timestamp."""
    message = _first(record, _MESSAGE_KEYS)
    stamp = _first(record, _TIME_KEYS)
    time = time_of_value(stamp) if stamp is not None else None
    if message is None or time is None:
        return None
    text = _text(message) or ""
    fields = _other_fields(record)
    if fields:
        text = f"{text.rstrip()} {fields}" if text.strip() else fields
    level = _text(_first(record, _LEVEL_KEYS))
    if level is None:  # a container's captured output (Docker's {"log": ...}): "ERROR boom"
        leading = _LEADING_LEVEL.match(text)
        level = leading["level"] if leading else None
    return ParsedLine(time=time, message=text, level=level,
                      service=_text(_first(record, _SERVICE_KEYS)),
                      source=_text(_first(record, _SOURCE_KEYS)), host=_text(_first(record, _HOST_KEYS)))


def parse_jsonl(line: str) -> ParsedLine | None:
    """A JSON-lines line (None: not an object with a message and a timestamp)."""
    if not line.startswith("{"):
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return from_record(record) if isinstance(record, dict) else None


# A key starts where a word does: without the lookbehind, a long run of word characters with no
# "=" is tried from each of its characters (a 64 KiB line took a minute and a half to detect).
_LOGFMT_PAIR = re.compile(r'(?<![\w.@-])([\w.@-]+)=("(?:[^"\\]|\\.)*"|\S*)')


def parse_logfmt(line: str) -> ParsedLine | None:
    """A logfmt line (None: fewer than two pairs, or no message or timestamp)."""
    pairs = _LOGFMT_PAIR.findall(line)
    if len(pairs) < 2:
        return None
    record: dict[str, Any] = {}
    for key, value in pairs:
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            try:
                value = json.loads(value)
            except ValueError:
                value = value[1:-1]
        record.setdefault(key, value)
    return from_record(record)


# ---------------------------------------------------------------- line layouts

_SYSLOG_5424 = re.compile(
    r"<(?P<pri>\d{1,3})>1 (?P<ts>\S+) (?P<host>\S+) (?P<app>\S+) (?P<procid>\S+) (?P<msgid>\S+) "
    r"(?P<sd>-|(?:\[(?:[^\]\\]|\\.)*\])+) ?(?P<msg>.*)")
_SYSLOG_3164 = re.compile(
    rf"(?:<(?P<pri>\d{{1,3}})>)?(?P<b>{_MONTH_NAMES}) +(?P<d>\d{{1,2}}) (?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)"
    r"(?:\.(?P<f>\d{1,6}))? (?P<host>\S+) +(?:-- )?(?P<tag>[^\s:\[]+(?:(?: [^\s:\[]+){1,2}(?=\[))?)"
    r"(?:\[(?P<pid>[^\]]*)\])?(?: \([^()\s]*\)| v?\d[\w.-]*)?: ?(?P<msg>.*)")
# After the tag, macOS writes "([pid])" or a version; a tag of words ("Microsoft Word[14463]:").
_SEVERITIES = ("EMERGENCY", "ALERT", "CRITICAL", "ERROR", "WARN", "NOTICE", "INFO", "DEBUG")


def parse_syslog(line: str) -> ParsedLine | None:
    """An RFC 5424 or RFC 3164 syslog line."""
    match = _SYSLOG_5424.fullmatch(line)
    if match:
        time = None if match["ts"] == "-" else time_of_value(match["ts"])
        if time is None:
            return None
        return ParsedLine(time=time, message=match["msg"], level=_SEVERITIES[int(match["pri"]) % 8],
                          service=_nil(match["app"]), host=_nil(match["host"]),
                          source=_nil(match["msgid"]))
    match = _SYSLOG_3164.fullmatch(line)
    if match:
        pri = match["pri"]
        return ParsedLine(time=_time_from(match.groupdict()), message=match["msg"],
                          level=_SEVERITIES[int(pri) % 8] if pri else None,
                          service=match["tag"], host=match["host"])
    return None


def _nil(value: str) -> str | None:
    return None if value == "-" else value


def _fields(match: re.Match[str], time: TimeParts, service: str | None = None,
            context: str | None = None) -> ParsedLine:
    logger = match.group("logger")
    if context is not None:
        source: str | None = f"{logger} [{context}]" if logger else f"[{context}]"
    else:
        source = logger
    return ParsedLine(time, match.group("msg"), match.group("level"), service, source)


_LOG4J = re.compile(
    rf"{_ISO_TIME}\s+(?:-\s+)?(?:(?P<logger2>[\w.$-]+)\s+-\s+)?\[?{_LEVEL}\]?:?\s*(?:-\s+)?"
    rf"(?:{_CONTEXT}\s*)?(?:-\s+)?(?:(?P<logger>[A-Za-z_$][\w$]*(?:\.[\w$]+)+):\s+)?(?P<msg>.*)")
_HDFS = re.compile(
    rf"(?P<y>\d\d)(?P<m>\d\d)(?P<d>\d\d) (?P<H>\d\d)(?P<M>\d\d)(?P<S>\d\d) (?P<pid>\d+) {_LEVEL} "
    r"(?P<logger>[^\s:]+): (?P<msg>.*)")
_SPARK = re.compile(
    rf"(?P<y>\d\d)/(?P<m>\d\d)/(?P<d>\d\d) (?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d) {_LEVEL} "
    r"(?P<logger>[^\s:]+): (?P<msg>.*)")
_OPENSTACK = re.compile(
    rf"(?:(?P<program>[\w-]+)(?:\.log)?(?:\.[\w:.-]+)? )?{_ISO_TIME} (?P<pid>\d+) {_LEVEL} "
    rf"(?P<logger>[\w.]+) {_CONTEXT} ?(?P<msg>.*)")


def parse_log4j(line: str) -> ParsedLine | None:
    """An ISO-timestamped line with a level (Hadoop, ZooKeeper, Python's logging ...)."""
    match = _LOG4J.fullmatch(line)
    if not match:
        return None
    # ``_fields(match, _iso_time(match), context=...)`` in one reading of the groups: the layout
    # of most Java services' logs, a million calls per million lines
    year, month, day, hour, minute, second, fraction, zone, level, logger, context, named, message = match.group(
        "Y", "m", "d", "H", "M", "S", "f", "z", "level", "logger", "ctx", "logger2", "msg")
    time = TimeParts(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), fraction or "", zone)
    if context is not None:
        source: str | None = f"{logger} [{context}]" if logger else f"[{context}]"
    else:
        source = logger
    if named and not logger:
        source = " ".join(part for part in (named, source) if part)
    return ParsedLine(time, message, level, None, source)


def parse_hdfs(line: str) -> ParsedLine | None:
    """``yyMMdd HHmmss pid LEVEL class: message``."""
    match = _HDFS.fullmatch(line)
    return _fields(match, _short_year_time(match)) if match else None


def parse_spark(line: str) -> ParsedLine | None:
    """``yy/MM/dd HH:mm:ss LEVEL class: message``."""
    match = _SPARK.fullmatch(line)
    return _fields(match, _short_year_time(match)) if match else None


def parse_openstack(line: str) -> ParsedLine | None:
    """oslo.log, optionally after the log file's name (the service)."""
    match = _OPENSTACK.fullmatch(line)
    if not match:
        return None
    return _fields(match, _iso_time(match), match.group("program"), match.group("ctx"))


_KLOG = re.compile(
    r"(?P<letter>[IWEF])(?P<m>\d\d)(?P<d>\d\d) (?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)(?:\.(?P<f>\d{1,9}))?"
    r" +\d+ (?P<logger>[^\s\]]+:\d+)\] ?(?P<msg>.*)")
_KLOG_LEVELS = {"I": "INFO", "W": "WARN", "E": "ERROR", "F": "FATAL"}
_CLF = re.compile(
    rf"(?P<client>\S+) \S+ (?P<user>\S+) \[(?P<d>\d\d)/(?P<b>{_MONTH_NAMES})/(?P<Y>\d{{4}}):(?P<H>\d\d):(?P<M>\d\d):"
    r"(?P<S>\d\d)(?:\.(?P<f>\d{1,9}))? (?P<z>[+-]\d{4})\] "
    r'(?P<rest>"(?:[^"\\]|\\.)*" (?P<status>\d{3}) (?:\d+|-)(?: .*)?)')


def parse_klog(line: str) -> ParsedLine | None:
    """``Lmmdd hh:mm:ss.uuuuuu threadid file:line] message`` (glog, Kubernetes)."""
    match = _KLOG.fullmatch(line)
    if not match:
        return None
    return ParsedLine(_time_from(match.groupdict()), match["msg"], _KLOG_LEVELS[match["letter"]],
                      source=match["logger"])


def parse_clf(line: str) -> ParsedLine | None:
    """An access log line (Common or Combined Log Format); its level from the status."""
    match = _CLF.fullmatch(line)
    if not match:
        return None
    status = match["status"]
    level = "ERROR" if status[0] == "5" else "WARN" if status[0] == "4" else "INFO"
    user = "" if match["user"] == "-" else f" {match['user']}"
    return ParsedLine(_time_from(match.groupdict()), f"{match['client']}{user} {match['rest']}", level)


LineParser = Callable[[str], "ParsedLine | None"]

# Auto-detection tries these; on a tie the earlier wins (more specific first).
LAYOUTS: dict[str, LineParser] = {
    "jsonl": parse_jsonl,
    "syslog": parse_syslog,
    "openstack": parse_openstack,
    "hdfs": parse_hdfs,
    "spark": parse_spark,
    "klog": parse_klog,
    "clf": parse_clf,
    "log4j": parse_log4j,
    "logfmt": parse_logfmt,
}
# "text": a layout learned from the file's shapes; "plain": lines without timestamps
# (core.sources.logshapes).
FORMATS: tuple[str, ...] = ("auto", *LAYOUTS, "text", "plain", "regex")  # = logs_cmd.FORMAT_NAMES (tested)

_SOURCE_GROUPS = ("source", "logger", "component")


def regex_parser(pattern: str) -> LineParser:
    """A parser from a user's regex; ``ValueError`` (one line) for a bad pattern or one without
    the ``timestamp`` and ``message`` groups."""
    try:
        compiled = re.compile(pattern)
    except re.error as error:
        raise ValueError(f"--pattern is not a valid regular expression: {error}") from None
    problem = regex_problem(pattern)  # re has no time limit: no catastrophic backtracking
    if problem:
        raise ValueError(f"--pattern is refused: {problem}")
    missing = [name for name in ("timestamp", "message") if name not in compiled.groupindex]
    if missing:
        raise ValueError(f"--pattern needs the named groups (?P<timestamp>...) and (?P<message>...); "
                         f"missing: {', '.join(missing)}")

    def parse(line: str) -> ParsedLine | None:
        match = compiled.fullmatch(line) or compiled.match(line)
        if not match:
            return None
        groups = match.groupdict()
        time = time_of_value(groups["timestamp"] or "")
        if time is None:
            return None
        source = next((groups[name] for name in _SOURCE_GROUPS if groups.get(name)), None)
        return ParsedLine(time=time, message=groups["message"] or "", level=groups.get("level"),
                          service=groups.get("service") or None, source=source,
                          host=groups.get("host") or None)

    return parse


# A line that continues the entry above it: indented, or the shapes of a stack trace.
_CONTINUATION = re.compile(
    r"[ \t]|at |Caused by:|Suppressed:|\.\.\. \d+ (?:more|common frames)|Traceback \(most recent"
    r"|goroutine \d+ \[|[\w$.]+(?:Exception|Error|Throwable|Failure)(?::|$)|[}\])]")


def is_continuation(line: str) -> bool:
    """Whether a line that is not an entry of the layout continues the entry above it."""
    return _CONTINUATION.match(line) is not None
