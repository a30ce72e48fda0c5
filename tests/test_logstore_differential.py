"""The log store returns exactly the lines ``core.tools.logquery`` defines, for every query.

The reference is the definition itself, line by line (``CompiledQuery.accepts`` on each
entry's search text, level rank, service, time and topics); the store (in memory from a
pack's entries, and a file imported with ``--format auto``) must find the same lines through
its indexes, FTS5 and SQL, over the demo pack, the five loghub samples and a mixed
Chinese/English pack, with hand-written queries and queries drawn from the data itself (words,
identifiers, phrases, Chinese substrings of one to four characters, levels, exclusions, time
windows).
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from core.contracts import LogEntry
from core.language.lexicon import tag_lines
from core.logfields import epoch_us, level_rank, parse_timestamp
from core.packs import Pack
from core.sources.logimport import import_files
from core.sources.logstore import LogStore
from core.tools.args import QueryLogsArgs
from core.tools.logquery import META_MARK, compile_query, search_text

LOGHUB = ("HDFS", "Hadoop", "OpenStack", "Spark", "Zookeeper")
HAND_WRITTEN: list[dict[str, Any]] = [
    {"query": q} for q in (
        "HikariCP", "连接池", "内存", "/api/v1/users", "500", "timeout", "redis", "error", "order-service",
        "订单", "慢请求", "GC", "payment-service timeout", "数据库 连接", '"connection is not available"',
        "kubernetes OOMKilled", "abc", "qu", "Connection broken", "ERROR IN CONTACTING RM", "blk",
        "NoRouteToHostException", "Exception", "exception", "session", "10.10.34.11", "port", "nova",
        "received block", "terminating", "instance", "GET", "status: 200", "mapreduce", "超时", "池",
        "cpu使用率", "使用率过高", "\"timed out\"", "FATAL", "disk", "network 网络", "")]
HAND_WRITTEN += [
    {"terms": ["request timed out"]}, {"terms": ["Redis"]}, {"terms": ["ERROR IN CONTACTING RM"]},
    {"terms": ["connection"], "exclude": ["refused"]}, {"terms": ["池"]}, {"terms": ["连接"]},
    {"query": "timeout error", "match": "any"}, {"query": "HikariCP redis", "match": "any"},
    {"terms": ["broken", "Exception"], "match": "any"}, {"level": "WARN"}, {"level": "fatal"},
    {"level": "error", "exclude": ["WARN", "redis"]}, {"level": "info", "exclude": ["info"]},
    {"topic": "memory"}, {"topic": "connection_pool", "query": "order-service"},
    {"exclude": ["DEBUG", "INFO"]}, {"exclude": ["session", "block"]},
    {"since": "2026-07-08T11:00:00", "until": "2026-07-08T11:10"},
    {"since": "2015-10-18T18:05", "until": "2015-10-18T18:06"}, {"until": "2015-07-29"},
    {"since": "2017-05-16T00:00:05Z"}, {"service": "order-service", "query": "内存"},
]

CHINESE_LINES = [
    ("ERROR", "order-service", "连接数据库超时 timeout=30s, 重试 3 次"),
    ("WARN", "order-service", "cpu使用率过高: 91%"),
    ("INFO", "payment-service", "支付回调成功 orderId=A1B2C3"),
    ("ERROR", "payment-service", "Redis连接池耗尽 (pool exhausted)"),
    ("INFO", "user-service", "用户登录 user=张三 ip=10.0.0.8"),
    ("WARN", "user-service", "慢请求: GET /api/v1/users/profile 响应时间 2300ms"),
    ("FATAL", "gateway-service", "网关崩溃重启 exit code 137"),
    ("CRITICAL", "gateway-service", "上游连接被拒绝 connection refused"),
    ("INFO", "gateway-service", "健康检查通过"),
    ("DEBUG", "search-service", "索引刷新 refresh took 12ms"),
]


def _pack(name: str, entries: list[LogEntry], now: str, root: Path) -> Pack:
    return Pack(name=name, now=datetime.fromisoformat(now), root=root, logs=entries)


def _chinese_pack(root: Path) -> Pack:
    entries = [LogEntry(timestamp=f"2026-03-01T10:{minute:02d}:00+08:00", level=level, service=service,
                        message=message, source="app")
               for minute, (level, service, message) in enumerate(CHINESE_LINES * 3)]
    return _pack("chinese", entries, "2026-03-01T12:00:00+08:00", root)


def _loghub_pack(corpora: Path, tmp: Path) -> Pack:
    """The five samples imported with --format auto, as a pack of their entries."""
    store_path = tmp / "loghub.db"
    import_files([corpora / "loghub" / name / f"{name}_2k.log" for name in LOGHUB], store_path)
    store = LogStore.open(store_path)
    with store.connection() as connection:
        rows = connection.execute("SELECT ts, level, service, message, source, host FROM entries "
                                  "ORDER BY id").fetchall()
    store.close()
    entries = [LogEntry(timestamp=r[0], level=r[1], service=r[2], message=r[3], source=r[4], host=r[5])
               for r in rows]
    return _pack("loghub", entries, "2017-07-01T00:00:00+00:00", tmp)


def _drawn(pack: Pack, seed: int, count: int) -> list[dict[str, Any]]:
    """Queries made of the data's own words, identifiers, phrases and Chinese pieces."""
    rng = random.Random(seed)
    queries: list[dict[str, Any]] = []
    for _ in range(count):
        entry = pack.logs[rng.randrange(len(pack.logs))]
        words = entry.message.split()
        chinese = re.findall(r"[\u4e00-\u9fff]+", entry.message)
        kind = rng.randrange(6)
        if kind == 0 and words:
            queries.append({"query": rng.choice(words)})
        elif kind == 1 and len(words) >= 2:
            start = rng.randrange(len(words) - 1)
            queries.append({"terms": [" ".join(words[start:start + 2])]})
        elif kind == 2 and chinese:
            run = rng.choice(chinese)
            start = rng.randrange(len(run))
            piece = run[start:start + rng.randint(1, 4)]
            queries.append({"terms": [piece]} if len(piece) == 1 else {"query": piece})
        elif kind == 3 and words:
            queries.append({"query": rng.choice(words), "level": rng.choice(["INFO", "WARN", "ERROR"]),
                            "exclude": [rng.choice(words)]})
        elif kind == 4 and len(words) >= 2:
            queries.append({"query": " ".join(rng.sample(words, 2)), "match": "any"})
        elif words:
            queries.append({"query": rng.choice(words)[:rng.randint(2, 6)], "service": entry.service})
    return queries


Line = tuple[str, int | None, str, int | None, frozenset[str]]  # what ``accepts`` reads


def _lines(pack: Pack) -> list[Line]:
    """Each entry as the definition reads it (in file order: the store's ids 1, 2, ...)."""
    zone = pack.now.tzinfo or UTC
    texts = [search_text(e.message, e.level, e.service, e.source, e.host) for e in pack.logs]
    topics: list[set[str]] = [set() for _ in texts]
    for topic, found in tag_lines([text[:text.rfind(META_MARK)] for text in texts]).items():
        for index in found:
            topics[index].add(topic)
    lines = []
    for entry, text, mentioned in zip(pack.logs, texts, topics, strict=True):
        moment = parse_timestamp(entry.timestamp, zone)
        lines.append((text, level_rank(entry.level), entry.service.strip().lower(),
                      epoch_us(moment) if moment is not None else None, frozenset(mentioned)))
    return lines


def reference_ids(pack: Pack, lines: list[Line], args: QueryLogsArgs) -> list[int]:
    """Ids of the lines matching ``args``, by the definition, one line at a time."""
    query = compile_query(args, pack.services, pack.now.tzinfo or UTC)
    return [number for number, line in enumerate(lines, start=1) if query.accepts(*line)]


def _same_lines(pack: Pack, store: LogStore, queries: list[dict[str, Any]]) -> None:
    lines = _lines(pack)
    services = pack.services
    checked = 0
    for arguments in queries:
        args = QueryLogsArgs(**arguments)
        expected = reference_ids(pack, lines, args)
        assert store.matching_ids(args, services) == expected, arguments
        result, _ = store.query_logs(args, services)
        assert result.total == len(expected), arguments
        assert sum(group.count for group in result.groups) <= result.total
        checked += bool(expected)
    assert checked >= len(queries) // 3  # most queries find something: the test is not vacuous


def test_demo_pack(demo_pack: Pack) -> None:
    store = LogStore.from_entries(demo_pack.logs, demo_pack.now.tzinfo or UTC)
    _same_lines(demo_pack, store, HAND_WRITTEN + _drawn(demo_pack, 1, 150))


def test_chinese_and_english_mixed(tmp_path: Path) -> None:
    pack = _chinese_pack(tmp_path)
    assert pack.now.tzinfo is not None
    store = LogStore.from_entries(pack.logs, pack.now.tzinfo)
    words = ("连接", "数据库", "超时", "使用率", "cpu", "耗尽", "张三", "崩溃", "重启", "拒绝", "a1b2c3", "orderid",
             "profile", "12ms")
    chinese: list[dict[str, Any]] = [{"query": word} for word in words]
    chinese += [{"terms": [t]} for t in ("连", "池", "超", "timeout=30s", "cpu", "使用率过高: 91%", "张")]
    _same_lines(pack, store, HAND_WRITTEN + chinese + _drawn(pack, 2, 150))


SPACING_LINES = [
    "upstream connection refused by 10.0.0.8",          # the phrase as written
    "upstream connection  refused by 10.0.0.8",         # two spaces: the GLOB misses, the regex finds
    "upstream connection\trefused by 10.0.0.8",         # a tab
    "upstream connection-refused by 10.0.0.8",          # FTS5 proposes it; not the phrase
    "upstream connection.refused by 10.0.0.8",
    "xconnection refused",                              # not a whole word
    "Connection Refused: job a*b?[c] failed",           # GLOB's own characters in the text
    "job a*b?[c]x failed", "job [a*b?[c] failed", "连接 超时 connection refused 拒绝",
    "连接  超时 twice spaced", "see /api/v1/*users* and /api/v1/users",
]


def test_phrases_whose_spacing_or_characters_defeat_the_glob(tmp_path: Path) -> None:
    entries = [LogEntry(timestamp=f"2026-03-01T10:{minute:02d}:00+08:00", level="ERROR", service="edge",
                        message=message) for minute, message in enumerate(SPACING_LINES)]
    pack = _pack("spacing", entries, "2026-03-01T12:00:00+08:00", tmp_path)
    store = LogStore.from_entries(pack.logs, UTC)
    queries: list[dict[str, Any]] = [
        {"terms": ["connection refused"]}, {"terms": ["connection  refused"]}, {"terms": ["refused by"]},
        {"query": '"connection refused" 10.0.0.8'}, {"terms": ["a*b?[c]"]}, {"query": "a*b?[c]"},
        {"terms": ["连接 超时"]}, {"query": "/api/v1/*users*"}, {"query": "/api/v1/users"},
        {"exclude": ["connection refused"]}, {"terms": ["job"], "exclude": ["a*b?[c]"]},
        {"terms": ["connection refused", "twice spaced"], "match": "any"},
    ]
    _same_lines(pack, store, queries)


def test_loghub_samples(corpora_dir: Path, tmp_path: Path) -> None:
    pack = _loghub_pack(corpora_dir, tmp_path)
    assert len(pack.logs) == 10_000
    store = LogStore.from_entries(pack.logs, pack.now.tzinfo or UTC)
    _same_lines(pack, store, HAND_WRITTEN + _drawn(pack, 3, 300))
    # the imported file store answers like the in-memory one
    imported = LogStore.open(tmp_path / "loghub.db")
    _same_lines(pack, imported, HAND_WRITTEN[:40] + _drawn(pack, 4, 60))


ACCESS_LOG = "".join(
    f'10.0.0.{n % 7} - {"frank" if n % 5 == 0 else "-"} [01/Mar/2024:10:{n:02d}:00 +0000] '
    f'"{"POST" if n % 3 else "GET"} /api/{n % 4} HTTP/{"2.0" if n % 6 == 0 else "1.1"}" '
    f'{(200, 502, 503, 404, 200, 500)[n % 6]} {(502, 87, 0, 1234)[n % 4]} "-" "curl/8"\n' for n in range(40))


def test_web_access_logs_imported_and_in_memory(tmp_path: Path) -> None:
    """A Common Log Format line whose status is 5xx is an HTTP error, and its status a term, in
    the imported store and the in-memory one alike (not its response size of 502 bytes)."""
    log = tmp_path / "nginx.log"
    log.write_text(ACCESS_LOG, encoding="utf-8")
    import_files([log], tmp_path / "web.db")
    imported = LogStore.open(tmp_path / "web.db")
    with imported.connection() as connection:
        rows = connection.execute("SELECT ts, level, service, message FROM entries ORDER BY id").fetchall()
    entries = [LogEntry(timestamp=r[0], level=r[1], service=r[2], message=r[3]) for r in rows]
    pack = _pack("web", entries, "2024-03-01T12:00:00+00:00", tmp_path)
    queries: list[dict[str, Any]] = [
        {"topic": "http_error"}, {"topic": "http_error", "terms": ["502"]}, {"terms": ["502"]},
        {"query": "http error"}, {"query": "5xx"}, {"level": "ERROR"}, {"topic": "http_error", "level": "WARN"},
        {"topic": "http_error", "exclude": ["POST"]}, {"query": "GET 503", "match": "all"}]
    http_errors = {i for i, line in enumerate(_lines(pack), start=1) if "http_error" in line[4]}
    assert len(http_errors) == 20  # 502, 503 and 500 of every six lines
    in_memory = LogStore.from_entries(pack.logs, UTC)
    _same_lines(pack, in_memory, queries)
    _same_lines(pack, imported, queries)
    assert set(in_memory.matching_ids(QueryLogsArgs(topic="http_error"), pack.services)) == http_errors
    imported.close()


@pytest.mark.parametrize("arguments", [{"level": "LOUD"}, {"since": "yesterday"}, {"until": "2026-13-01"}])
def test_the_store_refuses_bad_arguments_as_the_definition_does(demo_pack: Pack, arguments: dict[str, Any]) -> None:
    from core.errors import ToolArgumentError

    store = LogStore.from_entries(demo_pack.logs)
    args = QueryLogsArgs(**arguments)
    with pytest.raises(ToolArgumentError) as by_definition:
        compile_query(args, demo_pack.services, demo_pack.now.tzinfo)
    with pytest.raises(ToolArgumentError) as in_store:
        store.query_logs(args)
    assert str(by_definition.value) == str(in_store.value)
