"""Layouts recognised by their shapes (``core.sources.logshapes``): each test writes a few lines
of one layout shape by hand (values of its own, no copy of a real file) and imports it with
``--format auto``; then the loghub samples in ``../shared/corpora`` read by the learned shape
alone (``--format text``) against their labelled levels and contents."""

from __future__ import annotations

import csv
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.logfields import canonical_level, coded_level
from core.sources.logimport import import_files
from core.sources.logshapes import learn
from core.sources.logstore import LogStore
from core.tools.args import QueryLogsArgs


def _import(tmp_path: Path, text: str, **options: object) -> tuple[str, list[tuple[str, str, str, str | None]]]:
    log = tmp_path / "app.log"
    log.write_text(text, encoding="utf-8")
    os.utime(log, (datetime(2023, 6, 1, tzinfo=UTC).timestamp(),) * 2)
    report = import_files([log], tmp_path / "s.db", **options)  # type: ignore[arg-type]
    (file,) = report.files
    assert file.unparsed == 0, file.unparsed_lines
    connection = sqlite3.connect(tmp_path / "s.db")
    try:
        rows = connection.execute("SELECT ts, level, message, source FROM entries ORDER BY id").fetchall()
    finally:
        connection.close()
    return file.layout, rows


# (lines, (timestamp, level, message, source) of the first line)
SHAPES = {
    "letter levels, year-less month-day, pids, tag": (
        "11-02 08:14:07.120  311  402 E AudioFlinger: write failed on track 7\n"
        "11-02 08:14:07.301  311  402 I AudioFlinger: track 7 restarted\n"
        "11-02 08:14:09.004 1200 1210 W Battery: temperature 41C\n",
        # November is after the file was written (June 2023): the year before
        ("2022-11-02T08:14:07.120+00:00", "ERROR", "write failed on track 7", "311 402 AudioFlinger")),
    "bracketed weekday month-name year after, bracketed level word": (
        "[Tue Feb 13 21:03:09 2024] [warn] cache slot 4 is stale\n"
        "[Tue Feb 13 21:03:11 2024] [crit] child 991 exited on signal 11\n"
        "[Tue Feb 13 21:04:00 2024] [notice] reloading configuration\n",
        ("2024-02-13T21:03:09+00:00", "WARN", "cache slot 4 is stale", None)),
    "flag, epoch, date, node, full stamp with dots, level in the middle": (
        "- 1709287200 2024.03.01 rack7-n3 2024-03-01-10.00.00.123456 rack7-n3 RAS APP FATAL disk gone\n"
        "ALRT 1709287260 2024.03.01 rack7-n4 2024-03-01-10.01.00.500000 rack7-n4 RAS APP INFO disk back\n",
        ("2024-03-01T10:00:00.123456+00:00", "FATAL", "disk gone",
         "1709287200 2024.03.01 rack7-n3 rack7-n3 RAS APP")),
    "epoch after fields, a flag number": (
        "55120 node-12 unix.hw state_change.available 1709287200 1 Fan 3 is running\n"
        "55121 node-14 unix.hw state_change.unavailable 1709287300 1 Fan 9 is stopped\n",
        ("2024-03-01T10:00:00+00:00", "", "Fan 3 is running",
         "55120 node-12 unix.hw state_change.available 1")),
    "pipe-separated, compact date, millis after a colon": (
        "20240301-10:00:00:5|Worker_Sync|771|started job 9\n"
        "20240301-10:00:01:250|Worker_Sync|771|finished job 9\n",
        ("2024-03-01T10:00:00.5+00:00", "", "started job 9", "Worker_Sync 771")),
    "comma after the time, a Windows level word, a padded column": (
        "2024-03-01 10:00:00, Warning            Svc    disk slow on volume 2\n"
        "2024-03-01 10:00:02, Error              Svc    disk failed on volume 2\n",
        ("2024-03-01T10:00:00+00:00", "WARN", "disk slow on volume 2", "Svc")),
    "bracketed year-less dotted month.day, a program before a dash": (
        "[03.01 10:00:00] app.exe - example.org:443 open through proxy\n"
        "[03.01 10:00:05] other.exe *64 - example.org:443 close, 120 bytes sent\n",
        ("2023-03-01T10:00:00+00:00", "", "example.org:443 open through proxy", "app.exe")),
    "relayed syslog: epoch and date in front of a BSD line": (
        "- 1709287200 2024.03.01 hq1 Mar 1 02:00:00 hq1/hq1 sshd[12]: Accepted key for ops\n"
        "- 1709287260 2024.03.01 hq2 Mar 1 02:01:00 hq2/hq2 crond(pam_unix)[80]: session opened\n",
        ("2024-03-01T10:00:00+00:00", "", "Accepted key for ops",
         "2024.03.01 hq1 Mar 1 02:00:00 hq1/hq1 sshd[12]")),
    "[ISO] LEVEL: message": (
        "[2024-03-01T10:00:00Z] ERROR: payment refused\n[2024-03-01T10:00:03Z] INFO: retry scheduled\n",
        ("2024-03-01T10:00:00+00:00", "ERROR", "payment refused", None)),
    "syslog priority as a level": (
        "2024-03-01 10:00:00 <3> kernel: oops in module x\n2024-03-01 10:00:01 <6> kernel: module x loaded\n",
        ("2024-03-01T10:00:00+00:00", "ERROR", "oops in module x", "kernel")),
    "level=word among fields": (
        "2024/03/01 10:00:00 level=warn queue depth 900\n2024/03/01 10:00:01 level=info queue depth 10\n",
        ("2024-03-01T10:00:00+00:00", "WARN", "queue depth 900", None)),
    "day/month-name/year with a zone": (
        "01/Mar/2024:10:00:00 +0100 INFO gateway: started\n01/Mar/2024:10:00:01 +0100 WARN gateway: slow\n",
        ("2024-03-01T09:00:00+00:00", "INFO", "started", "gateway")),
    "a time of day alone (the file's date), [thread] LEVEL logger - message": (
        "09:15:02.250 [worker-3] WARN  org.acme.Queue - backlog 512\n"
        "09:15:04.001 [worker-3] INFO  org.acme.Queue - backlog 12\n",
        ("2023-06-01T09:15:02.250+00:00", "WARN", "backlog 512", "[worker-3] org.acme.Queue")),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_layout_is_recognised_by_its_shapes(tmp_path: Path, shape: str) -> None:
    text, first = SHAPES[shape]
    layout, rows = _import(tmp_path, text)
    assert layout.startswith("text (")
    assert len(rows) == text.count("\n")
    assert rows[0] == first


def test_continuation_lines_attach_to_the_entry_above(tmp_path: Path) -> None:
    layout, rows = _import(tmp_path, "[03-01 10:00:00.100] E Db: query failed\n"
                                     "java.sql.SQLException: refused\n\tat Db.run(Db.java:4)\n"
                                     "[03-01 10:00:01.000] I Db: retried\n", year=2022)
    assert layout.startswith("text (") and len(rows) == 2
    assert rows[0][2].splitlines() == ["query failed", "java.sql.SQLException: refused", "\tat Db.run(Db.java:4)"]
    assert rows[0][0].startswith("2022-03-01T10:00:00.100")


def test_lines_without_timestamps_are_kept_in_order_with_the_files_time(tmp_path: Path) -> None:
    text = "INFO starting server on :8080\n[warn] cache cold\nlevel=error msg=\"db down\"\n  at db.go:12\n"
    layout, rows = _import(tmp_path, text)
    assert layout.startswith("plain (found no timestamps") and "2023-06-01T00:00:00" in layout
    assert [row[1] for row in rows] == ["INFO", "WARN", "ERROR"]
    assert rows[2][2] == 'level=error msg="db down"\n  at db.go:12'
    assert {row[0] for row in rows} == {"2023-06-01T00:00:00+00:00"}
    (tmp_path / "b").mkdir()
    layout, rows = _import(tmp_path / "b", "a line\nanother\n", no_timestamps=True)
    assert layout.startswith("plain (--no-timestamps") and [row[2] for row in rows] == ["a line", "another"]


def test_year_less_timestamps_say_where_their_year_came_from(tmp_path: Path) -> None:
    log = tmp_path / "cat.log"
    log.write_text("03-17 16:13:38.811  1702  2395 D Wm: a\n03-17 16:13:39.000  1702  2395 E Wm: b\n")
    os.utime(log, (datetime(2019, 5, 1, tzinfo=UTC).timestamp(),) * 2)
    (file,) = import_files([log], tmp_path / "a.db").files
    assert file.notes == ["2 timestamps without a year: year 2019 (the file's modification time; "
                          "--year changes it)"]
    (file,) = import_files([log], tmp_path / "b.db", year=2017).files
    assert file.notes == ["2 timestamps without a year: year 2017 (--year)"]
    store = LogStore.open(tmp_path / "b.db")
    result, _ = store.query_logs(QueryLogsArgs(level="ERROR"))
    assert [entry.message for entry in result.logs] == ["b"] and result.logs[0].timestamp.startswith("2017-03-17")
    assert store.stats()["written_levels"] == {"DEBUG": {"D": 1}, "ERROR": {"E": 1}}


def test_one_letter_in_every_line_is_no_level_column(tmp_path: Path) -> None:
    """Container runtime lines mark a full line with F: a column of one letter is no level."""
    layout, rows = _import(tmp_path, "2024-03-01T10:00:00.5Z stdout F ready\n2024-03-01T10:00:01.5Z stderr F failed\n")
    assert "letters" not in layout and [row[1] for row in rows] == ["", ""]


def test_python_logging_without_time_is_plain_with_levels(tmp_path: Path) -> None:
    layout, rows = _import(tmp_path, "WARNING:root:disk low\nERROR:app.db:connection lost\n")
    assert layout.startswith("plain") and [row[1] for row in rows] == ["WARN", "ERROR"]


@pytest.mark.parametrize(("code", "level"), [("E", "ERROR"), ("v", "TRACE"), ("<3>", "ERROR"), ("<14>", "INFO"),
                                             ("4", "WARN"), ("50", "ERROR"), ("30", "INFO"), ("X", None),
                                             ("99", None), ("<x>", None)])
def test_level_codes_are_canonical(code: str, level: str | None) -> None:
    assert coded_level(code) == level


def test_prose_has_no_shape() -> None:
    assert learn(["I think this is fine.", "Version 1.2.3 was released", "see 2024 notes"]) is None


@pytest.mark.parametrize("name", ["HDFS", "Hadoop", "OpenStack", "Spark", "Zookeeper"])
def test_loghub_samples_read_by_their_shape_alone(corpora_dir: Path, tmp_path: Path, name: str) -> None:
    """Without their known layouts (``--format text``), the learned shape reads every line,
    with the labelled level of every one and the labelled content of nearly all (OpenStack's
    label leaves its logger and request context out, the shape keeps them in the message)."""
    folder = corpora_dir / "loghub" / name
    (file,) = import_files([folder / f"{name}_2k.log"], tmp_path / "s.db", layout="text").files
    assert file.entries == 2000 and file.unparsed == 0
    connection = sqlite3.connect(tmp_path / "s.db")
    rows = connection.execute("SELECT level, message FROM entries ORDER BY id").fetchall()
    connection.close()
    with (folder / f"{name}_2k.log_structured.csv").open(newline="", encoding="utf-8") as handle:
        labels = list(csv.DictReader(handle))
    assert [level for level, _ in rows] == [canonical_level(row["Level"]) or coded_level(row["Level"])
                                           for row in labels]
    if name != "OpenStack":
        same = sum(message.strip() == row["Content"].strip() for (_, message), row in zip(rows, labels, strict=True))
        assert same >= (0.8 if name == "Hadoop" else 0.99) * len(labels)
