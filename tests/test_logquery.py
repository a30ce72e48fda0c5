"""What query_logs arguments mean (core.tools.logquery, core.logfields), shown on a small pack."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from core.contracts import LogEntry
from core.errors import ToolArgumentError
from core.language.lexicon import phrase_pattern
from core.logfields import canonical_level, level_rank, parse_timestamp, parse_zone, time_bound, zone_name
from core.packs import Pack
from core.tools import run_tool
from core.tools.args import QueryLogsArgs
from core.tools.logquery import compile_query, split_quoted

LINES = [
    ("2026-07-08T10:00:00+08:00", "INFO", "api", "GET /health status=200"),
    ("2026-07-08T10:01:00+08:00", "WARNING", "api", "slow response 2300ms on /orders"),
    ("2026-07-08T10:02:00+08:00", "ERROR", "api", "Connection refused by db-1:5432"),
    ("2026-07-08T10:03:00+08:00", "FATAL", "api", "Out of memory: process killed"),
    ("2026-07-08T10:04:00+08:00", "CRITICAL", "worker", "disk full on /data"),
    ("2026-07-08T10:05:00+08:00", "SEVERE", "worker", "connection reset, reconnecting"),
    ("2026-07-08T10:06:00+08:00", "DEBUG", "worker", "heartbeat ok"),
    ("2026-07-08T10:07:00+08:00", "INFO", "worker", "heartbeats disabled; connections: 12"),
    ("2026-07-08T10:08:00", "INFO", "worker", "disconnected from broker"),  # no zone: +08:00
]


@pytest.fixture
def pack(tmp_path: Path) -> Pack:
    entries = [LogEntry(timestamp=ts, level=level, service=service, message=message)
               for ts, level, service, message in LINES]
    return Pack(name="small", now=datetime.fromisoformat("2026-07-08T11:00:00+08:00"), root=tmp_path,
                logs=entries)


def found(pack: Pack, **arguments: Any) -> list[str]:
    return [entry["message"] for entry in run_tool(pack, "query_logs", arguments)["logs"]]


def test_levels_have_one_table() -> None:
    assert canonical_level("warning") == canonical_level("Warn") == "WARN"
    assert canonical_level("err") == "ERROR" and canonical_level("crit") == "CRITICAL"
    assert canonical_level("LOUD") is None and level_rank("LOUD") is None
    assert [level_rank(name) for name in ("DEBUG", "INFO", "WARN", "ERROR", "SEVERE", "FATAL", "CRITICAL")] == [
        1, 2, 3, 4, 4, 5, 5]


def test_level_is_a_minimum_and_fatal_ranks_with_error(pack: Pack) -> None:
    assert set(found(pack, level="ERROR")) == {
        "Connection refused by db-1:5432", "Out of memory: process killed", "disk full on /data",
        "connection reset, reconnecting"}
    assert set(found(pack, level="fatal")) == {"Out of memory: process killed", "disk full on /data"}
    assert len(found(pack, level="warning")) == 5
    with pytest.raises(ToolArgumentError, match="unknown level 'LOUD'"):
        run_tool(pack, "query_logs", {"level": "LOUD"})


def test_exclude_drops_levels_and_whole_words(pack: Pack) -> None:
    # a level name drops that rank (ERROR also drops SEVERE), not the word "error"
    assert found(pack, level="ERROR", exclude=["error"]) == ["disk full on /data", "Out of memory: process killed"]
    # whole words: "heartbeat" leaves "heartbeats disabled" in
    assert "heartbeats disabled; connections: 12" in found(pack, service="worker", exclude=["heartbeat"])
    assert "heartbeat ok" not in found(pack, service="worker", exclude=["heartbeat"])
    # (the line holding "connection" as a word ranks before the one holding it in "connections")
    assert found(pack, query="connection", exclude=["connection reset"]) == [
        "Connection refused by db-1:5432", "heartbeats disabled; connections: 12"]


def test_words_are_substrings_terms_are_whole_words(pack: Pack) -> None:
    assert len(found(pack, query="connect")) == 4  # connection, connections, disconnected
    assert found(pack, terms=["connection"]) == ["connection reset, reconnecting",
                                                 "Connection refused by db-1:5432"]
    assert found(pack, terms=["Connection  Refused"]) == ["Connection refused by db-1:5432"]
    assert found(pack, query='"refused by"') == ["Connection refused by db-1:5432"]
    assert found(pack, terms=["refused db"]) == []  # a phrase keeps its words together


def test_identifiers_are_whole_tokens(pack: Pack) -> None:
    assert found(pack, query="db-1:5432") == ["Connection refused by db-1:5432"]
    assert found(pack, query="543") == []
    assert found(pack, query="/orders") == ["slow response 2300ms on /orders"]


def test_match_any_and_all(pack: Pack) -> None:
    assert found(pack, query="broker reset") == []
    assert set(found(pack, query="broker reset", match="any")) == {"connection reset, reconnecting",
                                                                  "disconnected from broker"}
    # topics named together are one unit: a line about any of them ("out of memory" is oom)
    assert set(found(pack, query="oom disk")) == {"Out of memory: process killed", "disk full on /data"}
    assert set(found(pack, terms=["heartbeat", "broker"], match="any")) == {"heartbeat ok",
                                                                           "disconnected from broker"}


def test_time_window_is_inclusive_at_the_precision_given(pack: Pack) -> None:
    assert found(pack, since="2026-07-08T10:07", until="2026-07-08T10:08") == [
        "disconnected from broker", "heartbeats disabled; connections: 12"]
    assert found(pack, until="2026-07-08T02:00:00Z") == ["GET /health status=200"]
    assert len(found(pack, since="2026-07-08")) == 9
    with pytest.raises(ToolArgumentError, match="since: not an ISO 8601"):
        run_tool(pack, "query_logs", {"since": "yesterday"})


def test_time_bounds() -> None:
    zone = timezone(timedelta(hours=8))
    day = time_bound("2026-07-08", zone, upper=True) - time_bound("2026-07-08", zone, upper=False)
    assert day == 86_400_000_000
    minute = time_bound("2026-07-08T10:07", zone, upper=True) - time_bound("2026-07-08T10:07", zone, upper=False)
    assert minute == 60_000_000
    assert time_bound("2026-07-08T02:07:00Z", None, upper=False) == time_bound("2026-07-08T10:07:00", zone, upper=False)


def test_zones_and_timestamps() -> None:
    assert zone_name(parse_zone("Asia/Shanghai")) == "Asia/Shanghai"
    assert zone_name(parse_zone("+05:30")) == "+05:30" and zone_name(parse_zone("utc")) == "UTC"
    with pytest.raises(ValueError, match="unknown time zone"):
        parse_zone("Mars/Olympus")
    assert parse_timestamp("081109 203615") is None and parse_timestamp("2026-07-08") is None
    stamp = parse_timestamp("2026-07-08 10:00:00,5".replace(",", "."))
    assert stamp is not None and stamp.tzinfo is UTC


def test_quoted_phrases_and_compiled_units() -> None:
    rest, phrases = split_quoted('hikari "Connection  is not available" 「连接池」')
    assert phrases == ["connection is not available", "连接池"] and "hikari" in rest
    query = compile_query(QueryLogsArgs(query="HikariCP order-service timeout", exclude=["warn", "x y"]),
                          ["order-service"])
    kinds = [unit.kind for unit in query.units]
    assert kinds == ["topics", "identifier"]  # words are dropped when a topic is named
    assert query.exclude_ranks == (3,) and [unit.text for unit in query.excludes] == ["x y"]
    assert phrase_pattern("连接 pool") == r"连接[ \t]+pool(?![a-z0-9])"
