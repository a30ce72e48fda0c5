"""Natural dates and times, in both languages, read against a fixed clock: each names the
window it means, the words read are no search terms, and everyday words that look like dates
("may", "mar", 一周一次) name none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.language.time import time_window
from core.logfields import time_bound

# A Wednesday, late morning (the demo pack's clock).
NOW = datetime(2026, 7, 8, 11, 20, tzinfo=timezone(timedelta(hours=8)))


@pytest.mark.parametrize("question, since, until", [
    # month-name dates: a date without a year is the most recent one not after today
    ("what failed on June 12?", "2026-06-12", "2026-06-12"),
    ("errors on 12 June", "2026-06-12", "2026-06-12"),
    ("Jun 12th errors", "2026-06-12", "2026-06-12"),
    ("the 12th of June", "2026-06-12", "2026-06-12"),
    ("errors on August 2, 2025", "2025-08-02", "2025-08-02"),
    ("2 Aug 2025 timeouts", "2025-08-02", "2025-08-02"),
    ("what broke on December 25?", "2025-12-25", "2025-12-25"),  # later this year: last year's
    ("Feb 29", "2024-02-29", "2024-02-29"),
    ("May 12 errors", "2026-05-12", "2026-05-12"),
    ("12 MAR 2024", "2024-03-12", "2024-03-12"),
    # with a time: an hour alone is its hour, around is 15 minutes either side
    ("August 2, 2025 around 13:45", "2025-08-02T13:30", "2025-08-02T14:00"),
    ("on June 12 at 3pm", "2026-06-12 15:00", "2026-06-12T15:59"),
    ("at 3pm on June 12", "2026-06-12 15:00", "2026-06-12T15:59"),
    ("June 12 at 3:45 p.m.", "2026-06-12 15:45", "2026-06-12 15:45"),
    ("June 12 between 10:00 and 11:00", "2026-06-12 10:00", "2026-06-12T11:00"),
    ("at 3:45 pm", "2026-07-07T15:45+08:00", "2026-07-07T15:45+08:00"),  # later than now: yesterday's
    ("at 9am", "2026-07-08T09:00+08:00", "2026-07-08T09:59+08:00"),
    ("since 3pm", "2026-07-07T15:00+08:00", None),
    ("before 10am", None, "2026-07-08T09:59:59+08:00"),
    ("between 9am and 10:30am", "2026-07-08T09:00+08:00", "2026-07-08T10:30+08:00"),
    ("around 10:45", "2026-07-08T10:30+08:00", "2026-07-08T11:00+08:00"),
    # a date as logs write it, with a time as people say it
    ("2025-08-02 around 13:45", "2025-08-02T13:30", "2025-08-02T14:00"),
    ("about 2015-10-18 18:01", "2015-10-18T17:46", "2015-10-18T18:16"),
    ("around 2015-10-18T18:01:47Z", "2015-10-18T17:46:47+00:00", "2015-10-18T18:16:47+00:00"),
    ("2025-08-02 at 3pm", "2025-08-02 15:00", "2025-08-02T15:59"),
    ("2025-08-02 下午3点", "2025-08-02 15:00", "2025-08-02T15:59"),
    ("around 2015-10-18", "2015-10-18", "2015-10-18"),  # around a day: the day
    # weekdays: the most recent before today; "this" is this week's (Monday first)
    ("last Thursday", "2026-07-02", "2026-07-02"),
    ("errors on Monday", "2026-07-06", "2026-07-06"),
    ("on Wednesday", "2026-07-01", "2026-07-01"),  # today is Wednesday: last week's
    ("this Monday", "2026-07-06", "2026-07-06"),
    ("last Thu", "2026-07-02", "2026-07-02"),
    ("since last Thursday", "2026-07-02", None),
    ("Monday morning", "2026-07-06 06:00", "2026-07-06T11:59"),
    # days back
    ("2 days ago", "2026-07-06", "2026-07-06"),
    ("two days ago", "2026-07-06", "2026-07-06"),
    ("the day before yesterday", "2026-07-06", "2026-07-06"),
    ("yesterday at 3pm", "2026-07-07 15:00", "2026-07-07T15:59"),
    ("3 days ago at noon", "2026-07-05 12:00", "2026-07-05 12:00"),
    ("since midnight", "2026-07-08T00:00+08:00", None),
    ("昨天 09:00 之后", "2026-07-07 09:00", None),  # a day word with a clock: that day's
    # parts of the day: without a day, today's (yesterday's when it starts later than now)
    ("yesterday morning", "2026-07-07 06:00", "2026-07-07T11:59"),
    ("this morning", "2026-07-08T06:00+08:00", "2026-07-08T11:59+08:00"),
    ("in the afternoon", "2026-07-07T12:00+08:00", "2026-07-07T17:59+08:00"),
    ("last night", "2026-07-07 18:00", "2026-07-07T23:59"),
    ("since yesterday afternoon", "2026-07-07 12:00", None),
    # weeks and months
    ("this week", "2026-07-06", None),
    ("last month", "2026-06-01", "2026-06-30"),
    ("this month", "2026-07-01", None),
    ("between June 1 and June 5", "2026-06-01", "2026-06-05"),
    ("before June 12", None, "2026-06-11"),
    # Chinese
    ("7 月 7 日的错误", "2026-07-07", "2026-07-07"),
    ("7月7日", "2026-07-07", "2026-07-07"),
    ("2025年8月2日有什么报错", "2025-08-02", "2025-08-02"),
    ("8月2日下午3点", "2025-08-02 15:00", "2025-08-02T15:59"),  # August 2 this year is later
    ("6月12日 10点到11点", "2026-06-12 10:00", "2026-06-12T11:00"),
    ("上周四", "2026-07-02", "2026-07-02"),
    ("本周一", "2026-07-06", "2026-07-06"),
    ("周三", "2026-07-01", "2026-07-01"),
    ("星期三", "2026-07-01", "2026-07-01"),
    ("星期天", "2026-07-05", "2026-07-05"),
    ("前天", "2026-07-06", "2026-07-06"),
    ("大前天", "2026-07-05", "2026-07-05"),
    ("3 天前", "2026-07-05", "2026-07-05"),
    ("三天前", "2026-07-05", "2026-07-05"),
    ("昨天晚上", "2026-07-07 18:00", "2026-07-07T23:59"),
    ("昨晚", "2026-07-07 18:00", "2026-07-07T23:59"),
    ("昨天下午3点到5点之间", "2026-07-07 15:00", "2026-07-07T17:00"),
    ("下午3点以来", "2026-07-07T15:00+08:00", None),
    ("上午的错误", "2026-07-08T06:00+08:00", "2026-07-08T11:59+08:00"),
    ("凌晨3点半", "2026-07-08T03:30+08:00", "2026-07-08T03:30+08:00"),
    ("15点", "2026-07-07T15:00+08:00", "2026-07-07T15:59+08:00"),
    ("13:45左右", "2026-07-07T13:30+08:00", "2026-07-07T14:00+08:00"),
    ("上周", "2026-06-29", "2026-07-05"),
    ("本周日志有错误吗", "2026-07-06", None),
    ("上个月", "2026-06-01", "2026-06-30"),
    ("本月", "2026-07-01", None),
])
def test_natural_dates_name_their_window(question: str, since: str | None, until: str | None) -> None:
    window = time_window(question, NOW)
    assert window is not None, question
    assert (window.since, window.until) == (since, until)


@pytest.mark.parametrize("question, words", [
    ("payments errors on June 12 at 3pm?", ["on June 12 at 3pm"]),
    ("order-service 上周四下午有没有超时", ["上周四下午"]),
    ("since last Thursday any 503?", ["since last Thursday"]),
    ("errors between June 1 and June 5", ["between June 1 and June 5"]),
])
def test_the_words_read_as_time_are_the_windows(question: str, words: list[str]) -> None:
    """What ``read`` blanks out of the search: every word of the date, none beside it."""
    window = time_window(question, NOW)
    assert window is not None and [question[start:end] for start, end in window.spans] == words


@pytest.mark.parametrize("question", [
    "may the disk be full?",
    "may 12 pods restart?",  # "may" in lower case is the verb, a number or not
    "march 3 pods to the new node",
    "mar",
    "which 2 may fail first?",
    "sat on the disk for hours",
    "good morning, any errors?",  # an English part of the day alone names no time
    "the second pod keeps restarting",
    "the noon batch failed",  # a clock word alone: after "at", "since" or a day only
    "February 30",  # no such day: the words stay the question's
    "这周一直报错",  # 周一 of 一直 is no Monday (这周 stays the span back it was: below)
    "一周一次的任务失败了",
    "每周一的备份",
    "有一点慢",
    "第3点是什么意思",
    "in 2 days",
    "5 sec ago",
])
def test_words_that_only_look_like_dates_name_none(question: str) -> None:
    window = time_window(question, NOW)
    if question == "这周一直报错":
        assert window is not None and window.since == "2026-07-01T11:20:00+08:00" and window.until is None
    else:
        assert window is None, question


_WORDS = ("June", "12", "12th", "May", "may", "2025", "on", "at", "around", "3pm", "3:45", "pm", "last",
          "this", "Monday", "sun", "days", "ago", "the", "day", "before", "yesterday", "since", "between",
          "and", "morning", "night", "week", "month", "7月7日", "上周四", "周日", "前天", "3天前", "下午3点",
          "到", "5点", "以来", "之前", "晚上", "本月", "左右", "2月30日", "Feb", "29", "13:45")


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=7),
       now=st.sampled_from([NOW, datetime(1, 1, 1, 0, 30, tzinfo=UTC), datetime(9999, 12, 31, 23, 0, tzinfo=UTC),
                            datetime(2024, 2, 29, 23, 59, tzinfo=timezone(timedelta(hours=-5)))]))
def test_any_natural_words_give_a_window_query_logs_accepts_or_none(words: list[str], now: datetime) -> None:
    """Natural dates at the ends of the calendar, impossible days, words in any order: the
    reader never fails and never hands query_logs a bound it refuses; its spans are words of
    the question."""
    question = " ".join(words)
    window = time_window(question, now)
    if window is not None:
        for bound, upper in ((window.since, False), (window.until, True)):
            if bound is not None:
                time_bound(bound, now.tzinfo, upper=upper)
        assert all(0 <= start < end <= len(question) for start, end in window.spans)
