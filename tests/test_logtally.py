"""A word query's groups counted from the store's tallies (``core.sources.logtally``) are the
groups counted line by line: the same counts, first and last timestamps, lines shown -- over
words held whole by some groups and inside longer terms in part of others, several words at
once, filters of whole groups, Chinese lines (never tallied: their groups are recounted line by
line), run sets past the limit, appends out of time order, and a store written before tallies
existed.

The reference is the store's own answer from one select of every match, ranked and grouped in
Python (``FEW_MATCHES`` above the number of matches), which reads no tally.
"""

from __future__ import annotations

import random
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.sources.logstore as logstore
from core.contracts import LogEntry
from core.sources.logimport import import_files
from core.sources.logstore import LogStore
from core.sources.logtally import countable
from core.tools.args import QueryLogsArgs

SOURCES = ("org.apache.hadoop.mapreduce.v2.app.rm.RMContainerAllocator",
           "org.apache.hadoop.mapreduce.v2.app.launcher.ContainerLauncherImpl",
           "org.apache.hadoop.ipc.Client", "org.apache.hadoop.mapred.TaskAttemptListenerImpl")
LEVELS = ("INFO", "INFO", "INFO", "WARN", "ERROR", "FATAL")


def _message(rng: random.Random, i: int) -> str:
    app = 1445144423722 + i % 3
    return rng.choice([
        f"Assigned container container_{app}_0{i % 7}_{i:06d} to attempt_{app}_m_{i:06d}",
        f"Progress of TaskAttempt attempt_{app}_m_{i:06d} is : 0.{i % 10}",
        f"Processing the event EventType: CONTAINER_REMOTE_LAUNCH for container container_{app}_{i}",
        f"Retrying connect to server: host{i % 5}.example/10.0.0.{i % 9}:8030. Already tried {i % 10} time(s)",
        # one template whose variable part holds container words only sometimes, and several of them
        f"assigned by {rng.choice(['org.a.ContainerAllocator', 'org.a.ContainerLauncher', 'org.a.Other'])}",
        "ERROR IN CONTACTING RM.",
        f"instance {uuid.UUID(int=rng.getrandbits(128))} spawned in {i % 17}.{i % 7} seconds",
    ])


def _log(path: Path, rng: random.Random, count: int, day: int, chinese: bool = False) -> Path:
    lines = []
    for i in range(count):
        stamp = f"2015-10-{day:02d} {i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d},{i % 1000:03d}"
        message = _message(rng, i)
        if chinese and i % 9 == 0:
            message = f"容器 container_{i} 启动失败" if i % 2 else f"Assigned container 容器_{i} to attempt_{i}"
        lines.append(f"{stamp} {rng.choice(LEVELS)} [main] {rng.choice(SOURCES)}: {message}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


QUERIES: list[dict[str, Any]] = [
    {"query": "container"}, {"query": "containerallocator"}, {"query": "launcher"}, {"query": "attempt"},
    {"query": "assigned"}, {"query": "retrying"}, {"query": "example"}, {"query": "contacting"},
    {"query": "assigned container"}, {"query": "container attempt"}, {"query": "progress container"},
    {"query": "container", "service": "rm"}, {"query": "container", "level": "WARN"},
    {"query": "container", "exclude": ["INFO"]}, {"query": "attempt", "service": "am", "level": "ERROR"},
    {"query": "container", "limit": 3}, {"query": "container", "match": "any"}, {"query": "容器"},
    {"query": "assigned", "exclude": ["FATAL", "ERROR"]},
    {"query": "instance spawned"}, {"query": "cc"}, {"query": "de"},  # hex letters: inside uuids
]


def _answers(store: LogStore, monkeypatch: pytest.MonkeyPatch, few: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    monkeypatch.setattr(logstore, "FEW_MATCHES", few)
    answers = []
    for arguments in QUERIES:
        result, request = store.query_logs(QueryLogsArgs(**arguments))
        answers.append((result.model_dump(), request["search"]))
    return answers


def _same_as_line_by_line(store: LogStore, monkeypatch: pytest.MonkeyPatch
                          ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Compare both ways for every query; the tallied answers and their requests."""
    reference = _answers(store, monkeypatch, 10**9)
    tallied = _answers(store, monkeypatch, 0)
    for arguments, (expected, _), (answer, _) in zip(QUERIES, reference, tallied, strict=True):
        assert answer == expected, arguments
    assert sum(bool(expected["total"]) for expected, _ in reference) >= len(QUERIES) - 2
    return tallied


def test_an_imported_store_counts_words_from_its_tallies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    path = tmp_path / "s.db"
    import_files([_log(tmp_path / "rm.log", rng, 1500, 18), _log(tmp_path / "am.log", rng, 1500, 19)], path)
    store = LogStore.open(path)
    answers = _same_as_line_by_line(store, monkeypatch)
    by_query = {QUERIES[i]["query"]: search for i, (_, search) in enumerate(answers) if len(QUERIES[i]) == 1}
    # every line ASCII: every query of words counted from the tallies, none line by line
    tallied = [search for answer, search in answers if "tally_sql" in search and answer["total"]]
    assert len(tallied) >= 12 and not any("recount" in search for search in tallied)
    assert by_query["container"]["tally_params"][:2] == ["container", "containerallocator"]
    # a word of hex letters only may lie inside an id's letters, which run sets leave out
    assert "tally_sql" not in by_query["cc"] and "tally_sql" in by_query["instance spawned"]
    with store.connection() as connection:
        sets = connection.execute("SELECT count(*) FROM run_sets WHERE runs LIKE '%spawned%'").fetchone()[0]
        lines = connection.execute("SELECT count(*) FROM entries WHERE message LIKE '%spawned%'").fetchone()[0]
    assert lines > 300 and sets <= len(set(LEVELS)) * len(SOURCES) * 2  # per level, logger, service: not per uuid
    # time, topics and exclusions of words are about single lines: no tallies
    _, request = store.query_logs(QueryLogsArgs(query="container", since="2015-10-19"))
    assert "tally_sql" not in request["search"]


def test_appends_out_of_time_order_add_to_the_tallies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(6)
    path = tmp_path / "s.db"
    import_files([_log(tmp_path / "rm.log", rng, 1200, 20)], path)
    import_files([_log(tmp_path / "am.log", rng, 800, 18), _log(tmp_path / "rm-2015-10-17.log", rng, 900, 17)],
                 path)
    store = LogStore.open(path)
    _same_as_line_by_line(store, monkeypatch)
    with store.connection() as connection:
        spans = connection.execute("SELECT group_id, lines, first_us, last_us FROM group_spans ORDER BY 1").fetchall()
        assert spans == connection.execute("SELECT group_id, count(*), min(ts_us), max(ts_us) FROM lines "
                                           "GROUP BY group_id ORDER BY 1").fetchall()


def test_groups_with_chinese_lines_are_counted_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    path = tmp_path / "s.db"
    import_files([_log(tmp_path / "rm.log", rng, 2000, 18, chinese=True)], path)
    store = LogStore.open(path)
    _, chinese = _same_as_line_by_line(store, monkeypatch)[QUERIES.index({"query": "容器"})]
    assert "recount" in chinese and '"容器"' in chinese["recount"]["groups_params"][0]
    with store.connection() as connection:
        untallied = connection.execute("SELECT sum(untallied) FROM group_spans").fetchone()[0]
        non_ascii = connection.execute("SELECT count(*) FROM entries WHERE folded IS NOT NULL").fetchone()[0]
    assert untallied == non_ascii > 0


def test_run_sets_past_the_limit_are_untallied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tallies must not grow with the lines: past ``MAX_RUN_SETS`` distinct sets of letter
    runs, a line of a new set is untallied, and its group is counted line by line."""
    import core.sources.logtally as logtally

    monkeypatch.setattr(logtally, "MAX_RUN_SETS", 4)
    rng = random.Random(10)
    path = tmp_path / "s.db"
    import_files([_log(tmp_path / "rm.log", rng, 1500, 18)], path)
    store = LogStore.open(path)
    answers = _same_as_line_by_line(store, monkeypatch)
    assert any("recount" in search for _, search in answers)
    with store.connection() as connection:
        assert connection.execute("SELECT count(*) FROM run_sets").fetchone()[0] == 4
        assert connection.execute("SELECT sum(untallied) FROM group_spans").fetchone()[0] > 0


def test_a_pack_store_in_memory_counts_from_tallies(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(8)
    entries = [LogEntry(timestamp=f"2026-07-08T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
                        level=rng.choice(LEVELS), service=rng.choice(["rm", "am", "RM "]), source=rng.choice(SOURCES),
                        message=_message(rng, i)) for i in range(2500)]
    _same_as_line_by_line(LogStore.from_entries(entries), monkeypatch)


def test_a_store_of_schema_3_counts_line_by_line_until_imported_again(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    path = tmp_path / "s.db"
    import_files([_log(tmp_path / "rm.log", rng, 1500, 18)], path)
    connection = sqlite3.connect(path)
    with connection:
        for statement in ("DROP TABLE group_spans", "DROP TABLE run_sets", "DROP TABLE run_terms",
                          "DROP TABLE group_runs",
                          "UPDATE meta SET value = '3' WHERE key = 'schema'"):
            connection.execute(statement)
    connection.close()
    store = LogStore.open(path)
    answers = _same_as_line_by_line(store, monkeypatch)
    tallied = [search for answer, search in answers if "tally_sql" in search and answer["total"]]
    assert len(tallied) >= 10 and all("recount" in search for search in tallied)
    store.close()
    import_files([_log(tmp_path / "am.log", rng, 700, 19)], path)  # an append tallies its own lines
    store = LogStore.open(path)
    _same_as_line_by_line(store, monkeypatch)
    with store.connection() as connection:
        assert connection.execute("SELECT sum(untallied) FROM group_spans").fetchone()[0] == 1500
    # more untallied groups than a statement should name: every group counted line by line
    monkeypatch.setattr(logstore, "MAX_RECOUNT_GROUPS", 1)
    answers = _same_as_line_by_line(store, monkeypatch)
    assert not any("recount" in search for _, search in answers)


_ASCII_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60)


@settings(max_examples=60, deadline=None)
@given(message=_ASCII_TEXT, source=_ASCII_TEXT)
def test_an_ascii_lines_tallied_terms_are_its_fts5_terms_without_a_digit(message: str, source: str) -> None:
    """The tallies read an ASCII line's letter runs in Python; FTS5's unicode61 tokenises it in
    SQLite: the terms a word is looked up by must be the same (but for runs of hex letters
    only, which run sets leave out)."""
    store = LogStore.from_entries([LogEntry(timestamp="2026-07-08T10:00:00Z", level="INFO", service="api",
                                            source=source, message=message or "-")])
    with store.connection() as connection:
        tallied = {row[0] for row in connection.execute("SELECT term FROM run_terms")}
        indexed = {row[0] for row in connection.execute("SELECT term FROM vocab") if countable(row[0])}
    assert tallied == indexed
