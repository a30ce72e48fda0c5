"""The time window a question names: read against the world's clock, carried by every log
search of the rules engine, and the lines outside it never answer."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.agents.rules.planner import RulesPlanner
from core.cli import main
from core.language.time import time_window
from core.logfields import time_bound
from core.pipeline import ask
from core.sources.base import World
from core.sources.pack import load_world
from tests.hand_sources import imported_payments_pack

NOW = datetime(2024, 3, 1, 10, 6, 0, tzinfo=timezone(timedelta(hours=8)))


@pytest.mark.parametrize("question, since, until", [
    # a span back from now
    ("What errors did payments log in the last hour?", "2024-03-01T09:06:00+08:00", None),
    ("payments 最近一小时有哪些错误日志？", "2024-03-01T09:06:00+08:00", None),
    ("过去30分钟 order-service 有什么异常", "2024-03-01T09:36:00+08:00", None),
    ("近两天的错误", "2024-02-28T10:06:00+08:00", None),
    ("半小时内的日志", "2024-03-01T09:36:00+08:00", None),
    ("最近十分钟有没有超时", "2024-03-01T09:56:00+08:00", None),
    ("last 24h errors", "2024-02-29T10:06:00+08:00", None),
    ("errors over the past half hour", "2024-03-01T09:36:00+08:00", None),
    ("any timeouts in the last few minutes?", "2024-03-01T10:03:00+08:00", None),
    # days
    ("today's errors", "2024-03-01T00:00:00+08:00", None),
    ("昨天的错误", "2024-02-29T00:00:00+08:00", "2024-02-29T23:59:59+08:00"),
    ("errors since yesterday", "2024-02-29T00:00:00+08:00", None),
    ("on 2015-10-18 what failed?", "2015-10-18", "2015-10-18"),
    ("before 2015-10-18", None, "2015-10-17"),
    # clock times on now's day (the day before when later than now)
    ("since 09:30 any errors?", "2024-03-01T09:30+08:00", None),
    ("09:30 以来的警告", "2024-03-01T09:30+08:00", None),
    ("errors after 11:00", "2024-02-29T11:00+08:00", None),
    ("before 09:30", None, "2024-03-01T09:29:59+08:00"),
    ("between 09:00 and 09:30", "2024-03-01T09:00+08:00", "2024-03-01T09:30+08:00"),
    ("what happened at 09:12", "2024-03-01T09:12+08:00", "2024-03-01T09:12+08:00"),
    # as logs write them: no zone written, none added (the source's zone)
    ("2015-10-18 18:01 到 18:05 之间", "2015-10-18 18:01", "2015-10-18T18:05"),
    ("at 2015-10-18 18:01:47 what did the NodeManager log?", "2015-10-18 18:01:47", "2015-10-18 18:01:47"),
    # across midnight: the second time is on the next day
    ("between 23:59 and 00:01 any errors?", "2024-02-29T23:59+08:00", "2024-03-01T00:01+08:00"),
    ("2015-10-18 23:58 到 00:02 之间", "2015-10-18 23:58", "2015-10-19T00:02"),
    # dates written latest first: the days between them
    ("errors between 2015-07-29 and 2015-07-28", "2015-07-28", "2015-07-29"),
    ("2015-07-29 到 2015-07-28 之间的错误", "2015-07-28", "2015-07-29"),
    # a span longer than the calendar: all of it
    ("errors in the last 99999999999 days", None, None),
])
def test_windows_are_read_against_the_clock(question: str, since: str | None, until: str | None) -> None:
    window = time_window(question, NOW)
    assert window is not None and (window.since, window.until) == (since, until)


@pytest.mark.parametrize("question", [
    "最近有哪些错误",  # "recently" without a span is no window
    "最近日志有什么错误",  # 日 of 日志 is not a day
    "show the last 5 errors",
    "connection refused to 10.0.0.1:8080",
    "Got exception while serving blk_-3544583377289625738 to /10.251.194.213:50010",
    "what changed in v1:30?",
    "What happened on 2015-13-45?",  # not a date: no window (query_logs would refuse it)
    "errors since 2015-02-30 10:00",
])
def test_no_window_where_none_is_named(question: str) -> None:
    assert time_window(question, NOW) is None


def test_the_window_leaves_the_words_it_used_out_of_the_search(demo_world: World) -> None:
    plan = RulesPlanner().plan("order-service 在过去 30 分钟有没有 HikariCP 连接超时？", demo_world)
    assert plan.reading.since == (demo_world.now - timedelta(minutes=30)).isoformat(timespec="seconds")
    assert plan.reading.until is None and "30" not in plan.reading.terms and plan.services == ["order-service"]


def test_lines_outside_the_window_never_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = imported_payments_pack(tmp_path)

    def ask(question: str) -> Any:
        capsys.readouterr()
        assert main(["ask", question, "--pack", str(pack), "--no-store", "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    recent = ask("payments 最近一小时有哪些错误日志？")
    (call,) = [i for i in recent["invocations"] if i["tool_name"] == "query_logs"]
    assert call["request"]["since"] == "2024-03-01T09:06:00+00:00"  # the pack's clock: its newest line
    assert recent["verifier_result"]["verdict"] == "PASS"
    answer = recent["composer_output"]["user_facing_answer"]
    assert "db-primary:5432" in answer and "db-old" not in answer

    earlier = ask("Any errors from payments between 08:50 and 09:30?")
    answer = earlier["composer_output"]["user_facing_answer"]
    assert "db-old:5432" in answer and "db-primary" not in answer

    none = ask("payments 昨天有哪些错误？")
    assert none["composer_output"]["status"] == "no_evidence"
    assert none["verifier_result"]["verdict"] == "PASS"


@pytest.mark.parametrize("question", [
    "What did inventory-service log between 10:50 and 11:00?",  # the service's own search
    "inventory-service 过去一小时有没有数据库连接池耗尽？",  # a topic, then lines naming the service
    "order-service 最近 10 分钟有什么错误？",
])
def test_every_log_call_keeps_to_the_window_and_the_answer_says_it(question: str, demo_world: World) -> None:
    document = ask(question, pack=demo_world)
    plan = document.plan
    assert plan is not None and plan.reading.since is not None
    calls = [i for i in document.invocations if i.tool_name == "query_logs"]
    assert calls and all(i.arguments.get("since") == plan.reading.since for i in calls)
    assert all(i.arguments.get("until") == plan.reading.until for i in calls)
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    assert document.executor_output is not None
    for claim in document.executor_output.claims:
        if claim.claim_type == "negative_observation":  # an absence in a window is not one at all times
            assert f"since={plan.reading.since}" in claim.claim_text


_WORDS = ("last", "past", "the", "hour", "minutes", "5", "0", "1.5", "99999999999", "半", "最近", "过去", "两",
          "小时", "分钟", "天", "内", "today", "yesterday", "昨天", "since", "before", "after", "between", "and",
          "到", "-", "23:59", "00:00", "24:00", "12:60", "09:05", "2015-10-18", "2015-02-30",
          "2015-10-18T18:01:47Z", "at", "在", "以来", "之前", "0001-01-01", "9999-12-31 23:59", "10.0.0.1:8080")


@settings(max_examples=400, deadline=None)
@example(words=["between", "0001-01-01", "and", "2015-10-18T18:01:47Z"], now=NOW)  # one end with a zone
@example(words=["between", "2015-10-18T18:01:47Z", "and", "2015-10-18"], now=NOW)
@given(words=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=7),
       now=st.sampled_from([NOW, datetime(1, 1, 1, 0, 30, tzinfo=UTC), datetime(9999, 12, 31, 23, 0, tzinfo=UTC),
                            datetime(2024, 3, 1, 10, 6, tzinfo=timezone(timedelta(hours=-5)))]))
def test_any_question_gives_a_window_query_logs_accepts_or_none(words: list[str], now: datetime) -> None:
    """Whatever the words (impossible dates, the ends of the calendar, a range across midnight),
    the reader never fails the session and never hands query_logs a bound it refuses."""
    window = time_window(" ".join(words), now)
    if window is not None:
        for bound, upper in ((window.since, False), (window.until, True)):
            if bound is not None:
                time_bound(bound, now.tzinfo, upper=upper)


HADOOP_LOG = ("2015-10-18 18:06:01,840 ERROR [RMCommunicator] Rm: ERROR IN CONTACTING RM.\n"
              "2015-10-18 18:20:00,000 INFO [main] Rm: shutting down\n")
SPARK_LOG = ("17/06/09 20:10:40 INFO executor.Backend: Registered signal handlers\n"
             "17/06/09 20:11:11 ERROR executor.Backend: lost executor 3\n")


def _recordings_pack(folder: Path, *, now: str | None = None) -> Path:
    """Two recordings that end on different days, imported into one store (as loghub's)."""
    (folder / "hadoop.log").write_text(HADOOP_LOG, encoding="utf-8")
    (folder / "spark.log").write_text(SPARK_LOG, encoding="utf-8")
    pack = folder / "pack"
    pack.mkdir()
    assert main(["logs", "import", str(folder / "hadoop.log"), str(folder / "spark.log"),
                 "--store", str(pack / "logs.db")]) == 0
    (pack / "pack.yaml").write_text("logs: {store: logs.db}\n" + (f"now: {now}\n" if now else ""), encoding="utf-8")
    return pack


def test_time_words_about_a_service_are_read_against_the_end_of_its_own_recording(tmp_path: Path) -> None:
    """A pack without ``now`` is recordings: the pack's clock is Spark's last line (2017), and
    "between 18:05 and 18:10" of Hadoop is on the last day of Hadoop's own data (2015)."""
    world = load_world(str(_recordings_pack(tmp_path)))
    assert world.now == datetime(2017, 6, 9, 20, 11, 11, tzinfo=UTC)
    plan = RulesPlanner().plan("Which errors did hadoop log between 18:05 and 18:10?", world)
    assert (plan.reading.since, plan.reading.until) == ("2015-10-18T18:05+00:00", "2015-10-18T18:10+00:00")
    plan = RulesPlanner().plan("hadoop 最近一小时有没有错误？", world)
    assert plan.reading.since == "2015-10-18T17:20:00+00:00"  # an hour before Hadoop's last line
    plan = RulesPlanner().plan("Any errors in the last hour?", world)  # no service: the pack's clock
    assert plan.reading.since == "2017-06-09T19:11:11+00:00"
    document = ask("Which errors did hadoop log between 18:05 and 18:10?", pack=world)
    assert document.outcome == "found" and document.verifier_result is not None
    assert document.verifier_result.verdict == "PASS"


def test_a_pack_that_sets_now_has_one_clock_for_every_service(tmp_path: Path) -> None:
    world = load_world(str(_recordings_pack(tmp_path, now="2017-06-09T21:00:00+00:00")))
    assert dict(world.clocks) == {}
    plan = RulesPlanner().plan("Which errors did hadoop log between 18:05 and 18:10?", world)
    assert plan.reading.since == "2017-06-09T18:05+00:00"


def test_a_log_file_pack_knows_each_services_newest_line(tmp_path: Path) -> None:
    lines = [{"timestamp": "2015-10-18T18:06:01Z", "level": "ERROR", "service": "hadoop", "message": "boom"},
             {"timestamp": "2017-06-09T20:11:11Z", "level": "INFO", "service": "spark", "message": "ok"}]
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "logs.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    (pack / "pack.yaml").write_text("name: two\n", encoding="utf-8")
    world = load_world(str(pack))
    assert world.clock(["hadoop"]) == datetime(2015, 10, 18, 18, 6, 1, tzinfo=UTC)
    assert world.clock(["Spark", "hadoop"]) == world.now == datetime(2017, 6, 9, 20, 11, 11, tzinfo=UTC)
    assert world.clock(["unknown"]) == world.now
