"""The entities a log store's lines name: hosts, components, users, pods, namespaces, jobs.

A question naming one the data has asks about it ("did host web-01 log errors?", "what did root
do?"): the world's ``Vocabulary.entities`` lists them, with how many lines name each, so the
question reader takes them as subjects (``core.language.names.entity_names``) and not as
services the data lacks.

Hosts come from the ``host`` field, components from the ``source`` field (its first word: a
program, a logger; the last part of a dotted class name, ``MRAppMaster``) and from bracketed
names (``[SessionTracker]``); users, pods, namespaces and jobs from cheap patterns of messages
(``user=alice``, ``for invalid user admin from``, ``pod=api-1``, ``namespace: team-3``).
They are counted as lines are written (``EntityTally``, fed by ``LogWriter``) into the store's
``entities`` table, so opening a store reads a small table (the largest ``PER_KIND`` of each
kind) and never scans its lines. A store written before the table existed is counted once, on
its first open (``store_entities``: one pass over its lines), and saved when the file can be
written.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Iterable

ENTITIES_TABLE = ("CREATE TABLE IF NOT EXISTS entities (kind TEXT NOT NULL, name TEXT NOT NULL, "
                  "lines INTEGER NOT NULL, PRIMARY KEY (kind, name)) WITHOUT ROWID")
# The meta key saying the table counts every line (a store written before it existed lacks it).
COUNTED = "entities"
PER_KIND = 200  # the most-named entities of each kind a vocabulary lists
# Distinct names counted per kind while writing: past it, a new name is not counted (a message
# field of ids, not names, must not grow the tally with the lines).
TRACKED_PER_KIND = 5000

_NAME = r"[A-Za-z_][\w.\-@]{0,62}"
# Each pattern's group is the name, tried only on a message holding its key word (lower case:
# a substring test in C, where most lines stop); ``(?i)`` where the key may be capitalised.
_MESSAGE_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("user", "user", re.compile(rf"(?i)\buser(?:name)?\s*[=:]\s*[\"']?({_NAME})")),
    ("user", "uid", re.compile(rf"(?i)\buid\s*[=:]\s*[\"']?({_NAME})")),
    ("user", "login", re.compile(rf"(?i)\blogin\s*[=:]\s*[\"']?({_NAME})")),
    ("user", "user", re.compile(rf"\b(?:for|by)\s+(?:invalid\s+|illegal\s+)?user\s+({_NAME})")),
    ("user", " from ", re.compile(rf"\b(?:for|user)\s+({_NAME})\s+from\s")),
    ("pod", "pod", re.compile(r"(?i)\bpod\s*[=:]\s*[\"']?(?:([a-z0-9][a-z0-9\-]*)/)?([a-z0-9][a-z0-9.\-]{1,62})")),
    ("namespace", "namespace", re.compile(r"(?i)\bnamespace\s*[=:]\s*[\"']?([a-z0-9][a-z0-9\-]{0,62})")),
    ("job", "job", re.compile(rf"(?i)\bjob(?:_name)?\s*[=:]\s*[\"']?({_NAME})")),
)
# A bracketed name of letters ([SessionTracker], [main]); brackets of ids ([req-3f2a], [1234]) hold digits.
_BRACKETED = re.compile(r"\[([A-Za-z][A-Za-z_.\-]{2,40})\]")
_FIRST_WORD = re.compile(r"[A-Za-z][\w.$\-]{1,120}")
# A class at a source line, as log4j's %C@%L writes it (ZooKeeper's ``...:QuorumCnxManager@190]``).
_AT_LINE = re.compile(r"(?<![\w$])([A-Za-z][\w$]{2,60})@\d+")
_KEYWORD_ONLY = {"true", "false", "null", "none", "unknown"}  # values, not names
_SOURCES_CACHED = 10_000  # distinct source fields whose components are remembered while writing


def message_entities(message: str, lowered: str | None = None) -> list[tuple[str, str]]:
    """(kind, name) of the users, pods, namespaces, jobs and bracketed components a message names;
    ``lowered``: ``message.lower()`` when the caller has it."""
    found: list[tuple[str, str]] = []
    if lowered is None:
        lowered = message.lower()
    for kind, key, pattern in _MESSAGE_PATTERNS:
        if key not in lowered:
            continue
        for match in pattern.finditer(message):
            if kind == "pod" and match.group(1):
                found.append(("namespace", match.group(1)))
            name = match.group(match.lastindex or 1).rstrip(".-")
            if name and name.casefold() not in _KEYWORD_ONLY:
                found.append((kind, name))
    if "[" in message:
        found += [("component", match.group(1)) for match in _BRACKETED.finditer(message)]
    return found


def source_components(source: str) -> list[str]:
    """The components a line's ``source`` field names: its first word (a program, a logger,
    without a ``[pid]`` or a colon), the last part of a dotted class name, bracketed names, a
    class at a line number (``QuorumCnxManager@190``)."""
    found: list[str] = []
    first = _FIRST_WORD.match(source.strip())
    if first:
        word = first.group().rstrip(".:-")
        found.append(word)
        last = word.rsplit(".", 1)[-1]
        if last != word and len(last) >= 3 and any(c.isupper() for c in last):
            found.append(last)  # org.apache.hadoop.mapreduce.v2.app.MRAppMaster: people say MRAppMaster
    found += [match.group(1) for match in _BRACKETED.finditer(source)]
    found += [match.group(1) for match in _AT_LINE.finditer(source)]
    # An inner class is its outer class's too (QuorumCnxManager$Listener: QuorumCnxManager).
    return found + [name.split("$", 1)[0] for name in found if "$" in name]


class EntityTally:
    """Counts the lines naming each entity while lines are written; ``write`` adds the counts
    to the store's ``entities`` table (appending to a store adds to what it had)."""

    def __init__(self) -> None:
        self._counts: Counter[tuple[str, str]] = Counter()
        self._names: Counter[str] = Counter()  # distinct names tracked per kind
        self._sources: dict[str, list[tuple[str, str]]] = {}  # a source field's components

    def add(self, message: str, source: str | None, host: str | None, lowered: str | None = None) -> None:
        """Count one line's entities (each once per line); ``lowered``: ``message.lower()``
        when the caller has it."""
        named = message_entities(message, lowered)
        if host:
            named.append(("host", host.strip()))
        if source:
            components = self._sources.get(source)
            if components is None:
                components = [("component", name) for name in source_components(source)]
                if len(self._sources) < _SOURCES_CACHED:
                    self._sources[source] = components
            named += components
        if not named:
            return
        counts = self._counts
        for key in set(named) if len(named) > 1 else named:
            if not key[1]:
                continue
            if key in counts:
                counts[key] += 1
            elif self._names[key[0]] < TRACKED_PER_KIND:
                self._names[key[0]] += 1
                counts[key] = 1

    def largest(self, per_kind: int) -> list[tuple[str, str, int]]:
        """(kind, name, lines) of the ``per_kind`` most-named of each kind, as ``store_entities``."""
        ranked = sorted(self._counts.items(), key=lambda item: (item[0][0], -item[1], item[0][1]))
        kept: Counter[str] = Counter()
        rows = []
        for (kind, name), count in ranked:
            kept[kind] += 1
            if kept[kind] <= per_kind:
                rows.append((kind, name, count))
        return rows

    def write(self, connection: sqlite3.Connection) -> None:
        """Add the counts to the table (created if missing) and forget them."""
        connection.execute(ENTITIES_TABLE)
        connection.executemany(
            "INSERT INTO entities (kind, name, lines) VALUES (?, ?, ?) "
            "ON CONFLICT (kind, name) DO UPDATE SET lines = lines + excluded.lines",
            [(kind, name, count) for (kind, name), count in sorted(self._counts.items())])
        self._counts.clear()


def count_entities(rows: Iterable[tuple[str, str | None, str | None]]) -> EntityTally:
    """A tally of (message, source, host) rows."""
    tally = EntityTally()
    for message, source, host in rows:
        tally.add(message, source, host)
    return tally


def store_entities(connection: sqlite3.Connection, per_kind: int = PER_KIND) -> list[tuple[str, str, int]]:
    """(kind, name, lines) of the ``per_kind`` most-named entities of each kind, most lines
    first. A store written before the table existed is counted now (one pass over its lines)
    and the counts saved, marked counted; a read-only one is counted again at each open."""
    counted = connection.execute("SELECT value FROM meta WHERE key = ?", (COUNTED,)).fetchone()
    if counted is None:
        tally = count_entities(connection.execute("SELECT message, source, host FROM entries"))
        try:
            with connection:
                connection.execute("DROP TABLE IF EXISTS entities")
                tally.write(connection)
                connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (COUNTED,))
        except sqlite3.OperationalError:  # read-only: the counts stay in memory
            return tally.largest(per_kind)
    rows = connection.execute(
        "SELECT kind, name, lines FROM (SELECT kind, name, lines, row_number() OVER "
        "(PARTITION BY kind ORDER BY lines DESC, name) AS place FROM entities) "
        "WHERE place <= ? ORDER BY kind, lines DESC, name", (per_kind,)).fetchall()
    return [(str(kind), str(name), int(lines)) for kind, name, lines in rows]
