"""Hand-made sources outside any pack, for tests of the source seam.

They implement the protocols of ``core.sources.base`` the way a log store or an HTTP source
will: fixed data, a ``source_id`` that is not ``pack:...``, a request that is not the arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.contracts import Alert, LogEntry, LogGroup, LogsResult, MetricsResult
from core.errors import SourceError
from core.sources.base import Request, SourceDescription, Vocabulary, World
from core.tools.args import QueryLogsArgs, QueryMetricsArgs

# An sshd auth log and an nginx access log, as their files write them (imported by the tests of
# login and HTTP-status questions, and the readings corpus's sshd and nginx worlds).
SSHD_LOG = """\
Mar  1 10:00:01 host1 sshd[1201]: Failed password for root from 203.0.113.9 port 52213 ssh2
Mar  1 10:00:05 host1 sshd[1202]: Failed password for invalid user admin from 203.0.113.9 port 52214 ssh2
Mar  1 10:01:00 host1 sshd[1203]: Accepted password for alice from 10.0.0.5 port 50022 ssh2
Mar  1 10:01:00 host1 sshd[1203]: pam_unix(sshd:session): session opened for user alice by (uid=0)
Mar  1 10:02:00 host1 sshd[1204]: Accepted publickey for root from 10.0.0.6 port 50023 ssh2: RSA SHA256:abc
Mar  1 10:05:00 host1 sshd[1203]: pam_unix(sshd:session): session closed for user alice
Mar  1 10:06:00 host1 sshd[1205]: Received disconnect from 10.0.0.7 port 50024:11: disconnected by user
"""

NGINX_LOG = """\
10.0.0.1 - - [01/Mar/2024:10:00:01 +0000] "GET /api/orders HTTP/1.1" 200 512 "-" "curl/8"
10.0.0.1 - - [01/Mar/2024:10:00:02 +0000] "GET /api/orders HTTP/1.1" 503 87 "-" "curl/8"
10.0.0.2 - frank [01/Mar/2024:10:00:03 +0000] "POST /api/pay HTTP/1.1" 502 166 "-" "curl/8"
10.0.0.3 - - [01/Mar/2024:10:00:04 +0000] "GET /missing HTTP/1.1" 404 0 "-" "curl/8"
10.0.0.9 - - [01/Mar/2024:10:00:05 +0000] "GET /static/app.js HTTP/2.0" 200 502 "-" "curl/8"
"""

RM_LINES = [
    LogEntry(timestamp="2015-10-18 18:10:13", level="ERROR", service="hadoop-mapreduce",
             message="ERROR IN CONTACTING RM. java.net.ConnectException: Connection refused"),
    LogEntry(timestamp="2015-10-18 18:06:01", level="ERROR", service="hadoop-mapreduce",
             message="ERROR IN CONTACTING RM. java.net.NoRouteToHostException: No route to host"),
]
RM_GROUP = LogGroup(template="ERROR IN CONTACTING RM. <*>", count=147, service="hadoop-mapreduce",
                    level="ERROR", first_timestamp="2015-10-18 18:06:01",
                    last_timestamp="2015-10-18 18:10:13", sample_indexes=[0, 1])
RM_GROUP_TEXT = ('147 lines like "ERROR IN CONTACTING RM. <*>" [ERROR][hadoop-mapreduce] '
                 "from 2015-10-18 18:06:01 to 2015-10-18 18:10:13")


@dataclass
class GroupedLogs:
    """A log source answering every query with the same ranked lines and one group."""

    lines: list[LogEntry] = field(default_factory=lambda: list(RM_LINES))
    groups: list[LogGroup] = field(default_factory=lambda: [RM_GROUP])
    source_id: str = "logstore:/var/lib/superbiz/hadoop.db"
    asked: list[QueryLogsArgs] = field(default_factory=list)

    def describe(self) -> SourceDescription:
        return SourceDescription(kind="logstore", source_id=self.source_id, capability="logs",
                                 holds={"lines": 2000, "groups": len(self.groups)},
                                 location="/var/lib/superbiz/hadoop.db")

    def vocabulary(self) -> Vocabulary:
        services = tuple(dict.fromkeys(line.service for line in self.lines))
        return Vocabulary(services=services, log_services=services)

    def query_logs(self, args: QueryLogsArgs) -> tuple[LogsResult, Request]:
        self.asked.append(args)
        wanted = [line for line in self.lines
                  if args.service is None or line.service == args.service]
        groups = [group for group in self.groups if wanted]
        return (LogsResult(logs=wanted, groups=groups, total=sum(g.count for g in groups)),
                {"method": "SELECT", "service": args.service, "terms": list(args.terms)})


@dataclass
class FixedAlerts:
    """A metrics source with fixed alerts (as an Alertmanager would list them)."""

    alerts: list[Alert]
    source_id: str = "alertmanager:http://127.0.0.1:9093"
    fail: bool = False

    def describe(self) -> SourceDescription:
        return SourceDescription(kind="alertmanager", source_id=self.source_id,
                                 capability="metrics", holds={"alerts": len(self.alerts)})

    def vocabulary(self) -> Vocabulary:
        return Vocabulary(services=tuple(dict.fromkeys(a.service for a in self.alerts)),
                          alert_names=tuple(dict.fromkeys(a.alert_name for a in self.alerts)))

    def query_metrics(self, args: QueryMetricsArgs) -> tuple[MetricsResult, Request]:
        request: dict[str, Any] = {"method": "GET", "url": "http://127.0.0.1:9093/api/v2/alerts",
                                   "params": {"filter": args.alert_name or ""}}
        if self.fail:
            raise SourceError("alertmanager: connection refused", source=self.source_id,
                              request=request)
        found = [a for a in self.alerts
                 if (args.service is None or a.service == args.service)
                 and (args.alert_name is None or a.alert_name.lower() == args.alert_name.lower())]
        return MetricsResult(alerts=found, total=len(found)), request


DISK_ALERT = Alert(alert_name="HostOutOfDiskSpace", state="firing", service="hadoop-mapreduce",
                   current="96%", threshold="90%", duration="10m")


def hadoop_world(*, logs: GroupedLogs | None = None, metrics: FixedAlerts | None = None,
                 with_logs: bool = True) -> World:
    """A world with no pack behind it: hand-made logs and alerts, no runbooks."""
    return World(name="hadoop", now=datetime(2015, 10, 18, 18, 30, tzinfo=UTC),
                 metrics=metrics or FixedAlerts([DISK_ALERT]),
                 logs=(logs or GroupedLogs()) if with_logs else None,
                 example_questions=("hadoop-mapreduce 有没有 ERROR 日志？",))


PAYMENTS_LOG = ("2024-03-01 09:00:00,001 ERROR [pool-1] com.pay.Db: Connection refused to db-old:5432\n"
                "2024-03-01 10:00:00,001 INFO [main] com.pay.Server: started on port 8080\n"
                "2024-03-01 10:05:00,002 ERROR [pool-1] com.pay.Db: Connection refused to db-primary:5432\n"
                "2024-03-01 10:06:00,003 WARN [pool-1] com.pay.Db: retrying connection to db-primary\n")


def imported_payments_pack(folder: Path) -> Path:
    """README's pack of imported logs, as a user makes it: ``payments.log`` (log4j layout, an
    ERROR at 09:00 and one at 10:05) through ``superbiz logs import`` into ``mypack/logs.db``,
    and a ``pack.yaml`` that says only where the store is. Returns the pack folder."""
    from core.cli import main

    log = folder / "payments.log"
    log.write_text(PAYMENTS_LOG, encoding="utf-8")
    pack = folder / "mypack"
    pack.mkdir()
    assert main(["logs", "import", str(log), "--store", str(pack / "logs.db")]) == 0
    (pack / "pack.yaml").write_text("logs:\n  store: logs.db\n", encoding="utf-8")
    return pack
