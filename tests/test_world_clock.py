"""A sources file's world has a clock: ``now:`` if the file sets it, the wall clock when its
metrics are live, else its newest data (a log store's newest line per service), never today's
date against a store of 2015 lines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.agents.rules.planner import RulesPlanner
from core.cli import main
from core.errors import SourcesConfigError
from core.pipeline import ask
from core.sources.config import world_from_file
from core.sources.logimport import import_files
from core.sources.logstore import LogStore

HADOOP_LOG = ("2015-10-18 18:01:01,840 ERROR [RMCommunicator] Rm: ERROR IN CONTACTING RM.\n"
              "2015-10-18 18:06:01,840 ERROR [RMCommunicator] Rm: ERROR IN CONTACTING RM.\n"
              "2015-10-18 18:10:01,000 INFO [main] Rm: shutting down\n")
SPARK_LOG = ("17/06/09 20:10:40 INFO executor.Backend: Registered signal handlers\n"
             "17/06/09 20:11:11 ERROR executor.Backend: lost executor 3\n")
HADOOP_END = datetime(2015, 10, 18, 18, 10, 1, tzinfo=UTC)


def _sources(folder: Path, extra: str = "", *, spark: bool = False) -> Path:
    """A sources file over a store imported from past log files (Hadoop's end in 2015)."""
    logs = [folder / "hadoop.log"]
    logs[0].write_text(HADOOP_LOG, encoding="utf-8")
    if spark:
        logs.append(folder / "spark.log")
        logs[1].write_text(SPARK_LOG, encoding="utf-8")
    import_files(logs, folder / "logs.db")
    path = folder / "prod.yaml"
    path.write_text("name: prod\nlogs: {store: ./logs.db}\n" + extra, encoding="utf-8")
    return path


def test_the_last_hour_of_a_store_of_past_lines_is_the_last_hour_of_its_newest_line(tmp_path: Path) -> None:
    world = world_from_file(_sources(tmp_path))
    assert world.now == HADOOP_END and dict(world.clocks) == {"hadoop": HADOOP_END}
    plan = RulesPlanner().plan("Any errors in the last hour?", world)
    assert plan.reading.since == (HADOOP_END - timedelta(hours=1)).isoformat(timespec="seconds")
    document = ask("Any errors in the last hour?", pack=world)
    assert document.outcome == "found", document.outcome
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    (logs,) = [i for i in document.invocations if i.tool_name == "query_logs"]
    assert logs.request is not None and logs.request["since"] == plan.reading.since


def test_each_service_of_a_store_reads_time_against_its_own_newest_line(tmp_path: Path) -> None:
    world = world_from_file(_sources(tmp_path, spark=True))
    assert world.now == datetime(2017, 6, 9, 20, 11, 11, tzinfo=UTC)  # the latest of them
    plan = RulesPlanner().plan("hadoop 最近一小时有没有错误？", world)
    assert plan.reading.since == (HADOOP_END - timedelta(hours=1)).isoformat(timespec="seconds")
    assert world.clock_and_basis(["hadoop"]) == (HADOOP_END, "the data's clock: hadoop's newest data")


def test_now_in_the_file_is_the_clock_of_every_service(tmp_path: Path) -> None:
    world = world_from_file(_sources(tmp_path, "now: 2015-10-18T18:30:00Z\n", spark=True))
    moment = datetime(2015, 10, 18, 18, 30, tzinfo=UTC)
    assert (world.now, dict(world.clocks)) == (moment, {})
    assert world.clock_and_basis(["hadoop"]) == (moment, f"now: in {tmp_path / 'prod.yaml'}")
    plan = RulesPlanner().plan("Any errors in the last 30 minutes?", world)
    assert plan.reading.since == "2015-10-18T18:00:00+00:00"
    (tmp_path / "quoted").mkdir()
    quoted = world_from_file(_sources(tmp_path / "quoted", "now: '2015-10-18 19:00'\n"))
    assert quoted.now == datetime(2015, 10, 18, 19, tzinfo=UTC)  # without a zone: UTC


@pytest.mark.parametrize("value", ["yesterday", "2015-13-01T00:00:00Z", "1445191800", "[2015]"])
def test_a_bad_now_is_refused_naming_the_file_and_the_key(tmp_path: Path, value: str) -> None:
    path = _sources(tmp_path, f"now: {value}\n")
    with pytest.raises(SourcesConfigError) as raised:
        world_from_file(path)
    assert str(raised.value).startswith(f"{path}: now: must be an ISO 8601 time"), str(raised.value)


def test_live_metrics_are_now_so_the_world_keeps_the_wall_clock(tmp_path: Path) -> None:
    path = _sources(tmp_path, "metrics: {prometheus: {url: 'http://127.0.0.1:9'}}\n")
    before = datetime.now(UTC)
    world = world_from_file(path)
    assert before <= world.now <= datetime.now(UTC) and dict(world.clocks) == {}
    assert world.clock_basis == "the wall clock: live metrics are now"


def test_a_world_without_timed_data_has_the_wall_clock(tmp_path: Path) -> None:
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "disk.md").write_text("# Disk full\n\nFree space.\n", encoding="utf-8")
    path = tmp_path / "k.yaml"
    path.write_text("knowledge: {runbooks: [./runbooks]}\n", encoding="utf-8")
    before = datetime.now(UTC)
    world = world_from_file(path)
    assert world.now >= before and world.clock_basis == "the wall clock: no data with times"


def test_ask_prints_the_window_and_the_clock_it_was_read_against(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = _sources(tmp_path)
    assert main(["ask", "Any errors in the last hour?", "--sources", str(path), "--no-store"]) == 0
    out = capsys.readouterr().out
    assert ("window: since 2015-10-18T17:10:01+00:00 until - (read against 2015-10-18T18:10:01+00:00, "
            "the data's clock: its newest data)") in out, out


@pytest.mark.parametrize("question, window", [
    ("Did payment-service time out on July 8 around 11:00?", "since 2026-07-08T10:45 until 2026-07-08T11:15"),
    ("order-service 上周四有没有报错？", "since 2026-07-02 until 2026-07-02"),
])
def test_ask_prints_the_window_a_natural_date_was_read_as(question: str, window: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A date as people say it is read on the pack's clock (a Wednesday, 2026-07-08 11:20), and
    every log search keeps to the window printed."""
    assert main(["ask", question, "--pack", "demo", "--no-store"]) == 0
    out = capsys.readouterr().out
    assert (f"window: {window} (read against 2026-07-08T11:20:00+08:00, the pack's now (pack.yaml))") in out, out
    since, until = window.removeprefix("since ").split(" until ")
    calls = [line for line in out.splitlines() if "query_logs(" in line]
    assert calls and all(f"since={since}, until={until})" in line for line in calls), out


def _steps_to_read_the_clock(path: Path) -> tuple[int, dict[str, datetime]]:
    """SQLite's virtual-machine steps (in hundreds) of reading a store's clock."""
    world = world_from_file(path)
    assert isinstance(world.logs, LogStore)
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0  # go on

    with world.logs.connection() as connection:
        connection.set_progress_handler(count, 100)
    newest = world.logs.newest_by_service()
    return steps[0], newest


def test_reading_a_stores_clock_is_a_seek_not_a_scan(tmp_path: Path) -> None:
    """One seek per service by the service index: reading the clock of a store of 20,000 lines
    costs what reading one of three does (a scan would cost thousands of times more)."""
    lines = "".join(f"2015-10-18 {10 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d},000 INFO [main] step {i}\n"
                    for i in range(20_000))
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "hadoop.log").write_text(lines, encoding="utf-8")
    import_files([tmp_path / "big" / "hadoop.log"], tmp_path / "big" / "logs.db")
    (tmp_path / "big" / "prod.yaml").write_text("logs: {store: ./logs.db}\n", encoding="utf-8")
    big, newest = _steps_to_read_the_clock(tmp_path / "big" / "prod.yaml")
    assert newest == {"hadoop": datetime(2015, 10, 18, 15, 33, 19, tzinfo=UTC)}
    small, _ = _steps_to_read_the_clock(_sources(tmp_path))
    assert big <= small + 2, (big, small)
