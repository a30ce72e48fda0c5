"""Layouts: each common layout read into its fields, recognised, and told apart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from core.cli.logs_cmd import FORMAT_NAMES
from core.errors import LogImportError
from core.sources.logclock import Clock, TimeParts
from core.sources.logformats import (
    FORMATS,
    LAYOUTS,
    is_continuation,
    parse_jsonl,
    parse_log4j,
    parse_logfmt,
    parse_syslog,
    regex_parser,
    time_of_value,
)
from core.sources.logimport import detect_layout, service_of_file

SAMPLES = {
    "jsonl": '{"timestamp": "2026-07-08T10:58:12+08:00", "level": "INFO", "service": "pay", '
             '"message": "ok", "host": "n1"}',
    "logfmt": 'ts=2026-07-08T10:58:12Z level=warn service=pay msg="disk almost full" host=n1',
    "syslog": "<34>Oct 11 22:14:15 mymachine su[230]: 'su root' failed for lonvick on /dev/pts/8",
    "openstack": "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO "
                 "nova.osapi_compute.wsgi.server [req-38 113d - - -] 10.11.10.1 \"GET /v2 HTTP/1.1\" status: 200",
    "hdfs": "081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 for block blk_38 terminating",
    "spark": "17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend: Registered signal handlers",
    "log4j": "2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop.mapreduce.v2.app.MRAppMaster: Created MRAppMaster",
    "klog": "E0301 10:00:01.654321       1 controller.go:45] failed to sync pod default/web-0: etcd timeout",
    "clf": '10.0.0.2 - frank [01/Mar/2024:10:00:01 +0100] "POST /api/pay?id=7 HTTP/1.1" 503 87 "-" "Mozilla/5.0"',
}


@pytest.mark.parametrize("layout", list(SAMPLES))
def test_each_sample_is_read_by_its_layout_only(layout: str) -> None:
    line = SAMPLES[layout]
    assert LAYOUTS[layout](line) is not None
    others = [name for name, parse in LAYOUTS.items() if name != layout and parse(line) is not None]
    assert others == []


def test_fields_of_each_layout() -> None:
    record = parse_jsonl(SAMPLES["jsonl"])
    assert record is not None and (record.service, record.host, record.message) == ("pay", "n1", "ok")
    logfmt = parse_logfmt(SAMPLES["logfmt"])
    assert logfmt is not None and (logfmt.level, logfmt.message) == ("warn", "disk almost full")
    # a structured line's other plain fields follow its message (its ids are what people ask)
    order = parse_logfmt('ts=2024-03-01T10:00:02Z level=error msg="upstream timeout" app=payments order=1002 '
                         'note="two words" pid=7')
    assert order is not None and order.message == 'upstream timeout order=1002 note="two words"'
    nested = parse_jsonl('{"ts": "2024-03-01T10:00:02Z", "msg": "paid", "order": 1001, "ok": true, '
                         '"k8s": {"pod": "web-0"}, "tags": ["a"], "stream": "stdout"}')
    assert nested is not None and nested.message == "paid order=1001 ok=true"
    syslog = parse_syslog(SAMPLES["syslog"])
    assert syslog is not None and (syslog.level, syslog.service, syslog.host) == ("CRITICAL", "su", "mymachine")
    assert syslog.time is not None and syslog.time.year is None  # BSD syslog has no year
    rfc5424 = parse_syslog("<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 "
                           '[exampleSDID@32473 iut="3"] An application event')
    assert rfc5424 is not None and (rfc5424.level, rfc5424.service, rfc5424.message) == (
        "NOTICE", "evntslog", "An application event")
    zookeeper = parse_log4j("2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:"
                            "FastLeaderElection@774] - Notification time out: 3200")
    assert zookeeper is not None and zookeeper.message == "Notification time out: 3200"
    assert zookeeper.source == "[QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774]"
    python = parse_log4j("2024-01-02 03:04:05,678 - payments.db - ERROR - query failed")
    assert python is not None and (python.level, python.source, python.message) == (
        "ERROR", "payments.db", "query failed")
    docker = [parse_jsonl(f'{{"log": "{text}\\n", "stream": "stderr", "time": "2024-03-01T10:00:01.5Z"}}')
              for text in ("ERROR failed to connect", "[warn] slow disk", "errors: 0", "Info")]
    assert [(line.level, line.message.rstrip()) for line in docker if line] == [
        ("ERROR", "ERROR failed to connect"), ("warn", "[warn] slow disk"), (None, "errors: 0"), (None, "Info")]
    klog = LAYOUTS["klog"](SAMPLES["klog"])
    assert klog is not None and (klog.level, klog.source) == ("ERROR", "controller.go:45")
    assert klog.message == "failed to sync pod default/web-0: etcd timeout"
    assert klog.time is not None and (klog.time.year, klog.time.month, klog.time.fraction) == (None, 3, "654321")
    access = LAYOUTS["clf"](SAMPLES["clf"])
    assert access is not None and access.level == "ERROR"  # a 5xx
    assert access.message == '10.0.0.2 frank "POST /api/pay?id=7 HTTP/1.1" 503 87 "-" "Mozilla/5.0"'
    assert access.time is not None and (access.time.year, access.time.month, access.time.zone) == (2024, 3, "+0100")
    common = LAYOUTS["clf"]('::1 - - [01/Mar/2024:10:00:02 +0000] "GET / HTTP/1.0" 404 -')
    assert common is not None and (common.level, common.message) == ("WARN", '::1 "GET / HTTP/1.0" 404 -')
    openstack = LAYOUTS["openstack"](SAMPLES["openstack"])
    assert openstack is not None and openstack.service == "nova-api"
    assert openstack.message.startswith("10.11.10.1") and "req-38" in (openstack.source or "")


def test_timestamps_as_values() -> None:
    assert time_of_value("2026-07-08T10:58:12.5+08:00") == TimeParts(2026, 7, 8, 10, 58, 12, "5", "+08:00")
    assert time_of_value("17/06/09 20:10:40") == TimeParts(2017, 6, 9, 20, 10, 40)
    assert time_of_value("10/Oct/2000:13:55:36 -0700") == TimeParts(2000, 10, 10, 13, 55, 36, "", "-0700")
    epoch = time_of_value(1_700_000_000_123)  # milliseconds
    assert epoch is not None and epoch.epoch == pytest.approx(1_700_000_000.123)
    assert time_of_value("yesterday") is None and time_of_value(True) is None


def test_clock_normalises_into_the_store_zone() -> None:
    shanghai = timezone(timedelta(hours=8))
    clock = Clock(source_zone=shanghai, store_zone=UTC)
    instant, text = clock.stamp(TimeParts(2015, 10, 18, 18, 1, 47, "978"))
    assert text == "2015-10-18T10:01:47.978+00:00"
    assert instant == int(datetime(2015, 10, 18, 10, 1, 47, 978000, tzinfo=UTC).timestamp() * 1_000_000)
    assert clock.stamp(TimeParts(2015, 10, 18, 10, 1, 47, "", "Z"))[1] == "2015-10-18T10:01:47+00:00"
    with pytest.raises(ValueError):
        clock.stamp(TimeParts(2015, 13, 40, 10, 0, 0))
    # a year-less syslog stamp later than the file's last write belongs to the year before
    written = datetime(2024, 1, 5, tzinfo=UTC)
    december = Clock(UTC, UTC, written).stamp(TimeParts(None, 12, 30, 23, 0, 0))[1]
    assert december.startswith("2023-12-30")


def test_regex_layout() -> None:
    parse = regex_parser(r"(?P<timestamp>\S+ \S+) \[(?P<level>\w+)\] (?P<service>[\w-]+): (?P<message>.*)")
    line = parse("2026-07-08 10:00:00 [warn] billing: invoice 7 late")
    assert line is not None and (line.level, line.service, line.message) == ("warn", "billing", "invoice 7 late")
    with pytest.raises(ValueError, match="named groups"):
        regex_parser(r"(?P<message>.*)")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        regex_parser(r"(?P<timestamp>")


def test_continuations_are_stack_traces_and_indented_lines() -> None:
    for line in ("\tat org.a.B.c(B.java:10)", "Caused by: java.io.IOException: x", "\t... 12 more",
                 "java.lang.NullPointerException: boom", "Traceback (most recent call last):", "  File \"x\""):
        assert is_continuation(line), line
    assert not is_continuation("garbage without a timestamp")


def test_detection_and_its_refusals(tmp_path: Path) -> None:
    for layout, line in SAMPLES.items():
        path = tmp_path / f"{layout}.log"
        path.write_text((line + "\n") * 5, encoding="utf-8")
        assert detect_layout(path) == layout
    mixed = tmp_path / "mixed.log"
    mixed.write_text(f"{SAMPLES['hdfs']}\n{SAMPLES['spark']}\n", encoding="utf-8")
    with pytest.raises(LogImportError, match="mixed layouts: line 1 is hdfs, line 2 is spark"):
        detect_layout(mixed)
    unknown = tmp_path / "notes.txt"
    unknown.write_text("dear diary\ntoday nothing happened\n", encoding="utf-8")
    with pytest.raises(LogImportError, match="layout not recognised"):
        detect_layout(unknown)


def test_service_from_the_file_name() -> None:
    assert service_of_file(Path("nova-api.log.1.2017-05-16_13:53:08")) == "nova-api"
    assert service_of_file(Path("/var/log/app.log.gz")) == "app"
    assert service_of_file(Path("Hadoop_2k.log")) == "Hadoop_2k"
    assert service_of_file(Path("events.jsonl")) == "events"
    # a rotated file's date is not part of the service: daily files are one service
    for dated in ("app-2024-03-01.log", "app.2024-03-01.log", "app_20240301.log", "app-2024-03-01-13.log",
                  "app-2024-03-01T10-00-00.log.gz", "app.log-20240301", "app-20240301"):
        assert service_of_file(Path(dated)) == "app", dated
    for kept in ("worker-2.log", "2024-03-01.log", "build-1234.log", "app-20241399.log"):
        assert service_of_file(Path(kept)) == kept.removesuffix(".log"), kept


def test_the_cli_offers_every_format_the_importer_reads() -> None:
    assert FORMAT_NAMES == FORMATS
