"""Alertmanager (API v2) as a metrics source: the alerts it holds, silences stated as such.

``query_metrics`` asks ``GET /api/v2/alerts`` (active, silenced and inhibited alerts alike) and,
when any alert is silenced, ``GET /api/v2/silences`` to say by whom and why. Alertmanager's
states read:

- ``active``      -> ``firing``;
- ``suppressed``  -> ``suppressed`` (never ``firing``), with a detail naming each silence
  (``silenced by 5e1f... (maintenance, by sre, until 2026-07-08T12:00:00Z)``) and each
  inhibiting alert (``inhibited by NodeDown (fingerprint 3eed...)``);
- ``unprocessed`` -> ``unprocessed``.

The rule behind an alert is read from its ``generatorURL`` (``g0.expr``) when it has one: the
threshold and metric, as for Prometheus. Services and fields map like Prometheus' alerts
(``core.sources.alertmap``); the duration runs from ``startsAt`` to the server's clock.
Alertmanager holds no series. A failure of either call is a ``SourceError``.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from core.contracts import Alert, MetricsResult
from core.errors import SourceError
from core.sources.alertmap import (
    LabelMapping,
    active_for,
    annotation_details,
    host_name,
    label_text,
    summary_of,
)
from core.sources.base import Request, SourceDescription, Vocabulary
from core.sources.http import HttpAnswer, HttpEndpoint
from core.sources.limits import DEFAULT_TIMEOUT
from core.sources.prometheus import alert_key
from core.sources.promql import comparison, metric_names, plain_metric, threshold_text, unit_of
from core.tools.args import QueryMetricsArgs

_STATES = {"active": "firing", "suppressed": "suppressed", "unprocessed": "unprocessed"}


class AlertmanagerSource:
    """An Alertmanager's alerts (a ``MetricsSource`` without series)."""

    kind = "alertmanager"

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT,
                 headers: Mapping[str, str] | None = None,
                 labels: LabelMapping | None = None) -> None:
        self.endpoint = HttpEndpoint(self.kind, url, timeout, dict(headers or {}))
        self.labels = labels or LabelMapping()
        self._vocabulary: Vocabulary | None = None
        self._lock = threading.Lock()

    @property
    def source_id(self) -> str:
        return self.endpoint.source_id

    def _error(self, answer: HttpAnswer, reason: str) -> SourceError:
        return self.endpoint.failure(answer.call, reason)

    def raw_alerts(self) -> tuple[list[dict[str, Any]], HttpAnswer]:
        """Every alert Alertmanager holds (active, silenced, inhibited), as it lists them."""
        answer = self.endpoint.get_json("/api/v2/alerts", {
            "active": "true", "silenced": "true", "inhibited": "true", "unprocessed": "true"})
        alerts = answer.data
        if not isinstance(alerts, list) or not all(
                isinstance(a, dict) and isinstance(a.get("labels"), dict) for a in alerts):
            raise self._error(answer, "unexpected answer: no list of alerts with labels")
        return alerts, answer

    def silences(self) -> tuple[dict[str, dict[str, Any]], HttpAnswer]:
        """The silences by id."""
        answer = self.endpoint.get_json("/api/v2/silences")
        if not isinstance(answer.data, list):
            raise self._error(answer, "unexpected answer: no list of silences")
        return {str(s.get("id")): s for s in answer.data if isinstance(s, dict)}, answer

    def alerts(self, args: QueryMetricsArgs) -> tuple[list[tuple[Alert, dict[str, str]]],
                                                      list[dict[str, Any]]]:
        """The alerts matching ``args`` with their label sets, and the calls made."""
        raw, answer = self.raw_alerts()
        calls = [answer.call]
        silences: dict[str, dict[str, Any]] = {}
        if any(_status(a).get("silencedBy") for a in raw):
            silences, silence_answer = self.silences()
            calls.append(silence_answer.call)
        names = {str(a.get("fingerprint")): label_text(a["labels"]).get("alertname", "") for a in raw}
        now = answer.server_time or datetime.now(UTC)
        found = []
        for item in raw:
            labels = label_text(item["labels"])
            alert = self._alert(item, labels, now, args.service, silences, names)
            if self._wanted(alert, labels, args):
                found.append((alert, labels))
        return found, calls

    def query_metrics(self, args: QueryMetricsArgs) -> tuple[MetricsResult, Request]:
        """Alerts matching every given filter; silenced and inhibited ones as ``suppressed``."""
        found, calls = self.alerts(args)
        alerts = [alert for alert, _ in found]
        result = MetricsResult(success=True, alerts=alerts, total=len(alerts),
                               message=f"找到 {len(alerts)} 条告警" if alerts else "未找到匹配的告警")
        return result, {"calls": calls, "filters": args.model_dump(mode="json", exclude_none=True)}

    def _wanted(self, alert: Alert, labels: dict[str, str], args: QueryMetricsArgs) -> bool:
        if args.alert_name and alert_key(alert.alert_name) != alert_key(args.alert_name):
            return False
        if args.service and not self.labels.matches_service(labels, args.service):
            return False
        if args.state and alert.state.casefold() != args.state.casefold():
            return False
        return not args.metric or alert.metric == args.metric

    def _alert(self, item: dict[str, Any], labels: dict[str, str], now: datetime,
               wanted_service: str | None, silences: dict[str, dict[str, Any]],
               names: dict[str, str]) -> Alert:
        annotations = label_text(item.get("annotations") or {})
        status = _status(item)
        state = _STATES.get(str(status.get("state")), str(status.get("state") or "unknown"))
        expr = _generator_expr(item.get("generatorURL"))
        found = comparison(expr) if expr else None
        metric = plain_metric(found.query) if found else None
        unit = unit_of(metric)
        if metric is None and expr:
            metric = next(iter(metric_names(expr)), None)
        duration, started_at = active_for(item.get("startsAt"), now)
        extra = [*(_silence_text(str(sid), silences.get(str(sid))) for sid in status.get("silencedBy") or []),
                 *(f"inhibited by {names.get(str(fp)) or 'an alert'} (fingerprint {fp})"
                   for fp in status.get("inhibitedBy") or [])]
        if expr:
            extra.append(f"rule: {' '.join(expr.split())}")
        return Alert(
            alert_name=labels.get("alertname", ""), state=state,
            service=self.labels.service_of(labels, wanted_service),
            namespace=labels.get("namespace"), pod=labels.get("pod"),
            severity=labels.get("severity"), metric=metric, current=None,
            threshold=threshold_text(found, unit) if found else None, duration=duration,
            started_at=started_at, summary=summary_of(annotations),
            details=annotation_details(annotations, extra=extra))

    # ------------------------------------------------------------ vocabulary, description

    def vocabulary(self) -> Vocabulary:
        """The alerts' names and services, read once (``unavailable`` when it does not answer)."""
        with self._lock:
            if self._vocabulary is None:
                try:
                    raw, _ = self.raw_alerts()
                except SourceError:
                    self._vocabulary = Vocabulary(unavailable=(self.source_id,))
                else:
                    label_sets = [label_text(a["labels"]) for a in raw]
                    services = [self.labels.service_of(labels) for labels in label_sets]
                    services += [value for labels in label_sets
                                 for name in self.labels.vocabulary_labels()
                                 if (value := labels.get(name))]
                    services += [host for labels in label_sets for name in self.labels.host_labels()
                                 if (host := host_name(labels.get(name) or ""))]
                    names = (labels.get("alertname", "") for labels in label_sets)
                    self._vocabulary = Vocabulary(services=tuple(dict.fromkeys(s for s in services if s)),
                                                  alert_names=tuple(dict.fromkeys(n for n in names if n)))
            return self._vocabulary

    def describe(self) -> SourceDescription:
        """Alerts held (and how many are suppressed) and silences; the problem if it is down."""
        try:
            raw, _ = self.raw_alerts()
            silences, _ = self.silences()
        except SourceError as exc:
            return SourceDescription(kind=self.kind, source_id=self.source_id,
                                     capability="metrics", location=self.endpoint.public_base,
                                     problem=str(exc))
        holds = {"alerts": len(raw),
                 "suppressed": sum(1 for a in raw if _status(a).get("state") == "suppressed"),
                 "silences": sum(1 for s in silences.values()
                                 if (s.get("status") or {}).get("state") == "active")}
        return SourceDescription(kind=self.kind, source_id=self.source_id, capability="metrics",
                                 holds=holds, location=self.endpoint.public_base)


def _status(item: dict[str, Any]) -> dict[str, Any]:
    status = item.get("status")
    return status if isinstance(status, dict) else {}


def _generator_expr(url: Any) -> str | None:
    """The ``g0.expr`` of a Prometheus graph link, the rule's expression."""
    if not isinstance(url, str) or "g0.expr=" not in url:
        return None
    values = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("g0.expr")
    return values[0] if values else None


def _silence_text(silence_id: str, silence: dict[str, Any] | None) -> str:
    """``silenced by <id> (comment, by who, until when)``."""
    if not silence:
        return f"silenced by {silence_id}"
    parts = [str(silence.get("comment") or "").strip(),
             f"by {silence['createdBy']}" if silence.get("createdBy") else "",
             f"until {silence['endsAt']}" if silence.get("endsAt") else ""]
    shown = ", ".join(part for part in parts if part)
    return f"silenced by {silence_id}" + (f" ({' '.join(shown.split())})" if shown else "")
