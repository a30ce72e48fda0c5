"""Real values in the wrong place: a count, a time range, a level, an identifier, a percentile, a
state or a direction that the evidence holds -- but for other lines, another key, another
service or the other way round -- does not pass; the same facts stated right, in other words or
the other language, do. Each case is a small invented session judged by ``core.verifier.judge``
(the refs are in the formats the recorder writes)."""

from __future__ import annotations

import pytest

from core.contracts import ClaimResult
from core.verifier.roles import read_claim
from tests.verifier.one_claim import judge_observation

GROUPS = [
    ("$.groups[0]", '40 lines like "Lease expired for <*>" [WARN][kafka-broker] '
                    "from 2019-03-02 08:10:11 to 2019-03-04 17:45:09"),
    ("$.groups[1]", '7 lines like "Replica fetcher failed for partition <*>" [ERROR][kafka-broker] '
                    "from 2019-03-03 01:00:00 to 2019-03-03 02:30:00"),
]
ALERT = [("$.alerts[0]", "DiskFillingUp firing, service=billing-db, current=88%, threshold=80%, duration=20m, "
                         "severity=warning")]
SERIES = [("$.logs[0]", "[2026-03-05T09:40:00+08:00][WARN][billing-db] disk usage: 84.0%"),
          ("$.logs[1]", "[2026-03-05T09:50:00+08:00][WARN][billing-db] disk usage: 86.5%"),
          ("$.logs[2]", "[2026-03-05T10:00:00+08:00][WARN][billing-db] disk usage: 88.0%")]
LATENCY = [("$.alerts[0]", "CheckoutLatency firing, service=cart-api, current=P99 2.4s, threshold=1.5s, duration=12m")]
POOL = [("$.logs[0]", "[2026-04-01T08:00:00+00:00][WARN][inventory] DB pool stats: active=20/20, idle=0, pending=17")]
TWO_SERVICES = [("$.logs[0]", "[2026-04-01T08:00:00+00:00][ERROR][inventory] "
                              "java.lang.StackOverflowError at Parser.parse"),
                ("$.logs[1]", "[2026-04-01T08:05:00+00:00][INFO][gateway] request served in 120ms")]
STAGE = [("$.logs[0]", "[2026-04-01T08:00:00+00:00][INFO][batch-job] stage finished, time: 41.5077")]

# Templates that hold quotes of their own, and lines whose messages hold a bare date.
REQUESTS = [
    ("$.groups[0]", '3 lines like "<*> "PUT <*>" code: <*>" [INFO][web-api] '
                    "from 2021-06-01T10:00:05 to 2021-06-01T10:20:00"),
    ("$.logs[0]", '[2021-06-01T10:00:05][INFO][web-api] 10.0.0.7 "PUT /v1/2019-01-01/items HTTP/1.1" code: 409'),
    ("$.groups[1]", '2 lines like "<*> "GET <*>" code: <*>" [INFO][web-api] '
                    "from 2021-06-01T09:59:00 to 2021-06-01T10:30:00"),
    ("$.logs[1]", '[2021-06-01T09:59:00][INFO][web-api] 10.0.0.8 "GET /v1/2019-01-01/items HTTP/1.1" code: 409'),
]

SUBNET = [("$.logs[0]", "[2008-11-09T21:40:43][WARN][hdfs] 10.251.43.21:50010:Got exception while serving "
                        "blk_1 to /10.251.43.21")]

EVIDENCE = {"subnet": (SUBNET, "hdfs"), "requests": (REQUESTS, "web-api"),
            "groups": (GROUPS, "kafka-broker"), "alert": (ALERT, "billing-db"), "series": (SERIES, "billing-db"),
            "latency": (LATENCY, "cart-api"), "pool": (POOL, "inventory"), "two": (TWO_SERVICES, "inventory"),
            "stage": (STAGE, "batch-job")}


def _judge(text: str, evidence: str, arguments: dict[str, object] | None = None) -> ClaimResult:
    refs, service = EVIDENCE[evidence]
    return judge_observation(text, service, refs, arguments)


# (evidence, claim): each states only what its evidence says, in the role it says it.
RIGHT = [
    ("groups", 'kafka-broker logged 40 WARN lines like "Lease expired for <*>".'),
    ("groups", "「Replica fetcher failed for partition <*>」在 kafka-broker 中出现了七次（ERROR）。"),
    ("groups", 'kafka-broker logged 40 WARN lines like "Lease expired for <*>", '
               "between 2019-03-02 08:10:11 and 2019-03-04 17:45:09."),
    ("groups", "「Replica fetcher failed for partition <*>」在 kafka-broker 中出现了 7 次（ERROR），"
               "时间从 2019-03-03 01:00:00 到 2019-03-03 02:30:00。"),
    ("alert", "billing-db 的 DiskFillingUp 告警正在触发，当前值 88%，阈值 80%。"),
    ("alert", "DiskFillingUp on billing-db has been firing for twenty minutes."),
    ("alert", "billing-db 的 DiskFillingUp 告警已持续二十分钟。"),
    ("alert", "billing-db disk usage is 88%, above its 80% threshold."),
    ("series", "billing-db disk usage rose from 84.0% to 88.0%."),
    ("series", "billing-db 磁盘使用率持续上升，目前为 88%。"),
    ("series", "billing-db disk usage keeps rising; it is now 88%."),
    ("series", "billing-db 的最新一条磁盘日志在 10点00分。"),
    ("series", "billing-db 磁盘使用率在 2026年3月5日 10:00 为 88%。"),
    ("latency", "cart-api P99 latency is 2.4s, above the 1.5s threshold."),
    ("pool", "inventory DB pool: 20 of 20 connections active, 0 idle, 17 pending."),
    ("pool", "inventory 连接池有 17 个等待中的请求（pending=17）。"),
    ("two", "inventory logged java.lang.StackOverflowError at 08:00."),
    ("two", "inventory 在 08:00 记录了一条错误日志：java.lang.StackOverflowError。"),
    ("stage", "batch-job 阶段完成，耗时 41.5077 秒。"),
    ("groups", 'In kafka-broker, 40 WARN-level entries match "Lease expired for <*>"; '
               "first seen 2019-03-02 08:10:11, last seen 2019-03-04 17:45:09."),
    ("alert", "On billing-db, DiskFillingUp fires at 88% (limit 80%) and has done so for 20 minutes."),
    ("latency", "cart-api's CheckoutLatency triggered at 2.4s against a 1.5s threshold."),
    ("groups", "「Replica fetcher failed for partition <*>」共计 7 次，均为错误日志（kafka-broker）。"),
    ("alert", "billing-db 的 DiskFillingUp 告警目前仍在触发。"),
    ("requests", '与「/v1/2019-01-01/items」相关的记录：3 条 INFO 日志形如「<*> "PUT <*>" code: <*>」。'),
    ("requests", 'web-api logged 3 INFO lines between 2021-06-01T10:00:05 and 2021-06-01T10:20:00 like '
                 '"<*> "PUT <*>" code: <*>"; 2 INFO lines between 2021-06-01T09:59:00 and 2021-06-01T10:30:00 '
                 'like "<*> "GET <*>" code: <*>".'),
    # a quoted search term before the lines, their time range in brackets before their template
    ("requests", 'web-api 的日志中有与「items」相关的记录：3 条 INFO 日志（2021-06-01T10:00:05 与 '
                 '2021-06-01T10:20:00 之间）形如「<*> "PUT <*>" code: <*>」。'),
    ("requests", 'web-api logged lines with "items": 2 INFO lines (between 2021-06-01T09:59:00 and '
                 '2021-06-01T10:30:00) like "<*> "GET <*>" code: <*>".'),
]

# (evidence, claim, rule): every value, word and name is in the evidence -- in another role.
WRONG = [
    # a count given for another template's lines
    ("groups", 'kafka-broker logged 7 WARN lines like "Lease expired for <*>".', "verifier.wrong_role"),
    ("groups", "「Replica fetcher failed for partition <*>」在 kafka-broker 中出现了 40 次（ERROR）。",
     "verifier.wrong_role"),
    # a level the quoted lines do not have, in words of either language
    ("groups", 'kafka-broker logged 40 ERROR lines like "Lease expired for <*>".', "verifier.wrong_role"),
    ("two", "inventory 在 08:00 记录了一条警告日志：java.lang.StackOverflowError。", "verifier.wrong_role"),
    # a time range reversed, or another group's range for these lines
    ("groups", 'kafka-broker logged 40 WARN lines like "Lease expired for <*>", '
               "between 2019-03-04 17:45:09 and 2019-03-02 08:10:11.", "verifier.wrong_role"),
    ("groups", "「Replica fetcher failed for partition <*>」在 kafka-broker 中出现了 7 次（ERROR），"
               "时间从 2019-03-02 08:10:11 到 2019-03-04 17:45:09。", None),
    ("groups", 'kafka-broker logged 40 WARN lines like "Lease expired for <*>", '
               "from 2019-03-03 01:00:00 until 2019-03-03 02:30:00.", None),
    ("groups", "「Lease expired for <*>」共计 40 次，均为信息日志（kafka-broker）。", "verifier.wrong_role"),
    ("requests", 'web-api logged 3 INFO lines between 2021-06-01T10:20:00 and 2021-06-01T10:00:05 like '
                 '"<*> "PUT <*>" code: <*>".', "verifier.wrong_role"),
    ("requests", 'web-api 的日志中有与「items」相关的记录：3 条 INFO 日志（2021-06-01T09:59:00 与 '
                 '2021-06-01T10:30:00 之间）形如「<*> "PUT <*>" code: <*>」。', None),
    # a level joined to 'level', first / last seen times of another template
    ("groups", 'In kafka-broker, 40 ERROR-level entries match "Lease expired for <*>".', "verifier.wrong_role"),
    ("groups", 'In kafka-broker, 40 WARN-level entries match "Lease expired for <*>"; '
               "first seen 2019-03-03 01:00:00, last seen 2019-03-03 02:30:00.", None),
    # the alert's threshold given as the value it fires at, a limit as the value
    ("alert", "On billing-db, DiskFillingUp fires at 80% (limit 88%) and has done so for 20 minutes.",
     "verifier.wrong_role"),
    ("latency", "cart-api's CheckoutLatency triggered at 1.5s against a 2.4s threshold.", "verifier.wrong_role"),
    # a duration in words that is not the evidence's
    ("alert", "DiskFillingUp on billing-db has been firing for forty minutes.", "verifier.unsupported_fact"),
    ("alert", "billing-db 的 DiskFillingUp 告警已持续三十分钟。", "verifier.unsupported_fact"),
    # a state the alert is not in, said in Chinese: the opposite of its firing line
    ("alert", "billing-db 的 DiskFillingUp 告警已恢复，当前值 88%。", "verifier.contradicts_evidence"),
    ("alert", "billing-db 的 DiskFillingUp 告警已解除。", "verifier.contradicts_evidence"),
    # the comparison with the threshold reversed
    ("alert", "billing-db disk usage is 88%, below its 80% threshold.", "verifier.wrong_role"),
    ("alert", "billing-db 磁盘使用率 88%，低于阈值 80%。", "verifier.wrong_role"),
    # a direction the numbers contradict
    ("series", "billing-db disk usage fell from 84.0% to 88.0%.", "verifier.wrong_role"),
    ("series", "billing-db 磁盘使用率持续下降，目前为 88%。", "verifier.wrong_role"),
    # an older line given as the latest (Chinese clock), a date the sample is not from
    ("series", "billing-db 的最新一条磁盘日志在 9点50分。", "verifier.wrong_role"),
    ("series", "billing-db 磁盘使用率在 2026年3月4日 10:00 为 88%。", "verifier.wrong_role"),
    # an old sample as the current value
    ("series", "billing-db 磁盘使用率当前为 86.5%。", "verifier.wrong_role"),
    # a P99 as another percentile
    ("latency", "cart-api median latency is 2.4s.", "verifier.wrong_role"),
    ("latency", "cart-api 的 P90 延迟为 2.4s。", "verifier.wrong_role"),
    # a value another key of its line names
    ("pool", "inventory DB pool has 20 idle connections.", "verifier.wrong_role"),
    ("pool", "inventory 连接池有 20 个空闲连接。", "verifier.wrong_role"),
    # one service's exception said of another
    ("two", "gateway logged java.lang.StackOverflowError at 08:00.", "verifier.wrong_role"),
    # a unitless 'time:' is seconds, not minutes
    ("stage", "batch-job stage finished after 41.5077 minutes.", "verifier.unsupported_fact"),
]


@pytest.mark.parametrize(("evidence", "text"), RIGHT)
def test_a_fact_stated_in_its_role_passes(evidence: str, text: str) -> None:
    result = _judge(text, evidence)
    assert result.entailed, result.reasons


@pytest.mark.parametrize(("evidence", "text", "rule"), WRONG)
def test_a_real_value_in_the_wrong_role_does_not_pass(evidence: str, text: str, rule: str | None) -> None:
    result = _judge(text, evidence)
    assert not result.entailed, text
    assert result.rule in ({rule} if rule else {"verifier.wrong_role", "verifier.unsupported_fact"}), result.reasons


@pytest.mark.parametrize(("text", "first", "latest"), [
    ("lines between 2019-03-02 08:10 and 2019-03-04 17:45", "2019-03-02 08:10", "2019-03-04 17:45"),
    ("时间从 2019-03-02 08:10 到 2019-03-04 17:45", "2019-03-02 08:10", "2019-03-04 17:45"),
    ("在 08:10 与 17:45 之间", "08:10", "17:45"),
])
def test_a_time_range_is_its_first_and_latest_time(text: str, first: str, latest: str) -> None:
    times = [f for f in read_claim(text, known_subjects=[], default_subjects=[]).facts if f.role == "time"]
    assert [(f.qualifier, f.time.shown() if f.time else "") for f in times] == [("first", first),
                                                                                 ("latest", latest)]


def test_two_times_that_are_no_range_keep_no_order() -> None:
    reading = read_claim("一条在 08:10，另一条在 17:45", known_subjects=[], default_subjects=[])
    assert [f.qualifier for f in reading.facts if f.role == "time"] == [None, None]


@pytest.mark.parametrize(("text", "expected"), [
    ("disk usage over the past hour", [("period", "1h")]),
    ("during the last hour, 3 restarts", [("period", "1h"), ("count", "3 restarts")]),
    ("the alert has lasted twenty-five minutes", [("duration", "25 minutes")]),
    ("告警已持续二十五分钟", [("duration", "25 分钟")]),
    ("当前值百分之八十八", [("current", "88%")]),
    ("usage over 80%", [("threshold", "80%")]),
    ("the alert fires at 80%", [("threshold", "80%")]),
    ("usage 91% (limit 85%)", [("value", "91%"), ("threshold", "85%")]),
    ("container memory limit 4GB", [("total", "4gb")]),
])
def test_values_in_words_and_periods_take_their_roles(text: str, expected: list[tuple[str, str]]) -> None:
    reading = read_claim(text, known_subjects=[], default_subjects=[])
    assert [(f.role, f.quantity.shown() if f.quantity else "") for f in reading.facts] == expected


def test_a_chinese_clock_time_is_a_time() -> None:
    reading = read_claim("最新一条在十一点零五分", known_subjects=[], default_subjects=[])
    assert [(f.role, f.qualifier, f.time.shown() if f.time else "") for f in reading.facts] == [
        ("time", "latest", "11:05")]


@pytest.mark.parametrize("text, searched, entailed", [
    ('hdfs logged lines with "10.251": "10.251.43.21:50010:Got exception while serving blk_1 to /10.251.43.21".',
     {"terms": ["10.251"]}, True),
    ('hdfs 的日志中有与「10.251」相关的记录：「10.251.43.21:50010:Got exception while serving blk_1 to '
     '/10.251.43.21」。', {"terms": ["10.251"]}, True),
    # the same quote not searched for, or stated as a value rather than as what was searched
    ('hdfs logged lines with "10.251": "10.251.43.21:50010:Got exception while serving blk_1 to /10.251.43.21".',
     {}, False),
    ('hdfs load is "10.251": "10.251.43.21:50010:Got exception while serving blk_1 to /10.251.43.21".',
     {"terms": ["10.251"]}, False),
])
def test_a_quoted_search_term_is_what_was_searched_not_a_value(
        text: str, searched: dict[str, object], entailed: bool) -> None:
    """A subnet searched as ``10.251`` reads as a number; named as the search's term it is the
    call's argument, and only then."""
    assert _judge(text, "subnet", searched).entailed is entailed
