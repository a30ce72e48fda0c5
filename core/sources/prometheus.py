"""Prometheus (HTTP API v1) as the metrics source of ``query_metrics``.

One ``query_metrics`` call asks the server, in this order (every call in the request):

1. ``GET /api/v1/alerts``: the firing and pending alerts, filtered here by the arguments
   (``alert_name`` loosely, ``service`` against every service label, ``state`` exactly,
   ``metric`` against the rule's metrics);
2. ``GET /api/v1/rules?type=alert``: the rule behind each alert (expr, for, labels,
   annotations), matched by the alert's exact label set, else by name: the threshold is read
   from the expr (``> 80``), the metric from its selector;
3. ``GET /api/v1/query_range``: the series behind each matched alert (the query left of the
   rule's comparison, the series whose labels the alert carries) and, for a ``metric``
   argument, that metric's series (of the service, when one is given), over the last
   ``series_window`` by the server's clock.

The alerts are the evidence (``$.alerts[i]``, the same recipe as a pack's); series are context
for charts. An answer Prometheus marks as failed or partial (``status: error``, ``warnings``),
an unexpected shape, or any HTTP failure is a ``SourceError``: the call is recorded as failed,
never as "no alerts". See docs/sources.md for the label mapping.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.contracts import Alert, MetricSeries, MetricsResult, SeriesPoint
from core.errors import SourceError
from core.sources.alertmap import (
    LabelMapping,
    active_for,
    annotation_details,
    format_duration,
    host_name,
    label_text,
    summary_of,
)
from core.sources.base import Request, SourceDescription, Vocabulary
from core.sources.http import HttpAnswer, HttpEndpoint
from core.sources.limits import DEFAULT_SERIES_WINDOW, DEFAULT_TIMEOUT
from core.sources.promql import (
    METRIC_NAME,
    comparison,
    format_number,
    metric_names,
    plain_metric,
    threshold_text,
    unit_of,
)
from core.tools.args import QueryMetricsArgs

_SERIES_POINTS = 30          # points per range query (the step follows from the window)
_MAX_RANGE_QUERIES = 5       # per call: one per distinct rule query, plus the named metric
_MAX_SERIES = 20             # series kept per call
_MAX_LABEL_VALUES = 2000     # a label with more values is not a vocabulary of service names


def alert_key(name: str) -> str:
    """Alert names compare without case or separators: high_cpu_usage == HighCPUUsage."""
    return re.sub(r"[\s_\-]+", "", name).lower()


@dataclass(frozen=True)
class _Rule:
    """An alerting rule as ``/api/v1/rules`` reports it."""

    name: str
    expr: str
    for_seconds: float
    labels: dict[str, str]
    annotations: dict[str, str]
    alert_label_sets: tuple[frozenset[tuple[str, str]], ...]


class PrometheusSource:
    """A Prometheus server's alerts, rules and series (a ``MetricsSource``)."""

    kind = "prometheus"

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT,
                 headers: Mapping[str, str] | None = None, labels: LabelMapping | None = None,
                 series_window: timedelta = DEFAULT_SERIES_WINDOW) -> None:
        self.endpoint = HttpEndpoint(self.kind, url, timeout, dict(headers or {}))
        self.labels = labels or LabelMapping()
        self.series_window = series_window
        self._vocabulary: Vocabulary | None = None
        self._lock = threading.Lock()

    @property
    def source_id(self) -> str:
        return self.endpoint.source_id

    # ------------------------------------------------------------ the API, checked

    def _get(self, path: str, params: dict[str, Any] | None = None) -> tuple[Any, HttpAnswer]:
        """The ``data`` of a successful, complete answer; ``SourceError`` otherwise."""
        answer = self.endpoint.get_json(path, params)
        body = answer.data
        if not isinstance(body, dict):
            raise self._error(answer, "the answer is not a Prometheus API envelope")
        if body.get("status") != "success":
            detail = ": ".join(str(part) for part in (body.get("errorType"), body.get("error"))
                               if part)
            raise self._error(answer, f"status {body.get('status')!r}" + (f" ({detail})" if detail else ""))
        warnings = body.get("warnings")
        if warnings:
            listed = warnings if isinstance(warnings, list) else [warnings]
            shown = "; ".join(str(item) for item in listed)[:300]
            raise self._error(answer, f"partial answer (warnings: {shown})")
        return body.get("data"), answer

    def _error(self, answer: HttpAnswer, reason: str) -> SourceError:
        return self.endpoint.failure(answer.call, reason)

    def _alerts(self) -> tuple[list[dict[str, Any]], HttpAnswer]:
        data, answer = self._get("/api/v1/alerts")
        alerts = data.get("alerts") if isinstance(data, dict) else None
        if not isinstance(alerts, list) or not all(
                isinstance(a, dict) and isinstance(a.get("labels"), dict) for a in alerts):
            raise self._error(answer, "unexpected answer: no list of alerts with labels")
        return alerts, answer

    def _rules(self) -> tuple[list[_Rule], HttpAnswer]:
        data, answer = self._get("/api/v1/rules", {"type": "alert"})
        groups = data.get("groups") if isinstance(data, dict) else None
        if not isinstance(groups, list):
            raise self._error(answer, "unexpected answer: no list of rule groups")
        rules: list[_Rule] = []
        for group in groups:
            for rule in (group.get("rules") or []) if isinstance(group, dict) else []:
                if not isinstance(rule, dict) or rule.get("type", "alerting") != "alerting":
                    continue
                label_sets = tuple(frozenset(label_text(alert.get("labels") or {}).items())
                                   for alert in rule.get("alerts") or [] if isinstance(alert, dict))
                rules.append(_Rule(
                    name=str(rule.get("name") or ""), expr=str(rule.get("query") or ""),
                    for_seconds=float(rule.get("duration") or 0),
                    labels=label_text(rule.get("labels") or {}),
                    annotations=label_text(rule.get("annotations") or {}),
                    alert_label_sets=label_sets))
        return rules, answer

    def _range(self, query: str, end: datetime) -> tuple[list[dict[str, Any]], HttpAnswer]:
        window = self.series_window.total_seconds()
        step = max(1.0, window / _SERIES_POINTS)
        start = end - self.series_window
        data, answer = self._get("/api/v1/query_range", {
            "query": query, "start": _rfc3339(start), "end": _rfc3339(end), "step": f"{step:g}s"})
        result = data.get("result") if isinstance(data, dict) else None
        if not isinstance(result, list):
            raise self._error(answer, "unexpected answer: no result list")
        return [item for item in result if isinstance(item, dict)], answer

    # ------------------------------------------------------------ query_metrics

    def query_metrics(self, args: QueryMetricsArgs) -> tuple[MetricsResult, Request]:
        """Alerts matching every given filter, with their rules' series (see the module doc)."""
        matched, series, calls = self.alerts(args)
        alerts = [alert for alert, _ in matched]
        result = MetricsResult(
            success=True, alerts=alerts, series=series or None, total=len(alerts),
            message=f"找到 {len(alerts)} 条告警" if alerts else "未找到匹配的告警")
        return result, {"calls": calls, "filters": args.model_dump(mode="json", exclude_none=True)}

    def alerts(self, args: QueryMetricsArgs) -> tuple[list[tuple[Alert, dict[str, str]]],
                                                      dict[str, MetricSeries],
                                                      list[dict[str, Any]]]:
        """The alerts matching ``args`` with their label sets, their series, and the calls made."""
        calls: list[dict[str, Any]] = []
        raw_alerts, alerts_answer = self._alerts()
        calls.append(alerts_answer.call)
        rules, rules_answer = self._rules()
        calls.append(rules_answer.call)
        now = alerts_answer.server_time or datetime.now(UTC)
        matched: list[tuple[Alert, dict[str, str], _Rule | None]] = []
        for raw in raw_alerts:
            labels = label_text(raw.get("labels") or {})
            rule = _rule_of(labels, rules)
            if self._wanted(labels, str(raw.get("state") or ""), rule, args):
                matched.append((self._alert(raw, labels, rule, now, args.service), labels, rule))
        series = self._series(matched, args, now, calls)
        return [(alert, labels) for alert, labels, _ in matched], series, calls

    def _wanted(self, labels: dict[str, str], state: str, rule: _Rule | None,
                args: QueryMetricsArgs) -> bool:
        name = labels.get("alertname", "")
        if args.alert_name and alert_key(name) != alert_key(args.alert_name):
            return False
        if args.service and not self.labels.matches_service(labels, args.service):
            return False
        if args.state and state.casefold() != args.state.casefold():
            return False
        return not args.metric or (rule is not None and args.metric in metric_names(rule.expr))

    def _alert(self, raw: dict[str, Any], labels: dict[str, str], rule: _Rule | None,
               now: datetime, wanted_service: str | None) -> Alert:
        annotations = label_text(raw.get("annotations") or {})
        found = comparison(rule.expr) if rule else None
        metric = plain_metric(found.query) if found else None
        unit = unit_of(metric)
        metric = metric or (next(iter(metric_names(rule.expr)), None) if rule else None)
        duration, started_at = active_for(raw.get("activeAt"), now)
        extra = [f"rule: {' '.join(rule.expr.split())}"
                 + (f" for {format_duration(rule.for_seconds)}" if rule.for_seconds else "")] if rule else []
        return Alert(
            alert_name=labels.get("alertname", ""), state=str(raw.get("state") or "firing"),
            service=self.labels.service_of(labels, wanted_service),
            namespace=labels.get("namespace"), pod=labels.get("pod"),
            severity=labels.get("severity"), metric=metric,
            current=_value_text(raw.get("value"), unit), duration=duration,
            threshold=threshold_text(found, unit) if found else None, started_at=started_at,
            summary=summary_of(annotations),
            details=annotation_details(annotations, extra=extra))

    def _series(self, matched: list[tuple[Alert, dict[str, str], _Rule | None]],
                args: QueryMetricsArgs, now: datetime,
                calls: list[dict[str, Any]]) -> dict[str, MetricSeries]:
        """The series behind the matched alerts and of the named metric."""
        queries: dict[str, list[tuple[Alert, dict[str, str], float | None]]] = {}
        for alert, labels, rule in matched:
            found = comparison(rule.expr) if rule else None
            if found is not None:
                queries.setdefault(found.query, []).append((alert, labels, found.value))
        series: dict[str, MetricSeries] = {}
        for query, wanting in list(queries.items())[:_MAX_RANGE_QUERIES]:
            result, answer = self._range(query, now)
            calls.append(answer.call)
            for item in result:
                item_labels = label_text(item.get("metric") or {})
                item_labels.pop("__name__", None)
                for alert, alert_labels, threshold in wanting:
                    if item_labels.items() <= alert_labels.items():
                        metric = plain_metric(query) or " ".join(query.split())
                        self._add_series(series, item, alert.service, metric, threshold)
        if args.metric and METRIC_NAME.match(args.metric):
            result, answer = self._range(args.metric, now)
            calls.append(answer.call)
            for item in result:
                item_labels = label_text(item.get("metric") or {})
                if args.service and not self.labels.matches_service(item_labels, args.service):
                    continue
                self._add_series(series, item, self.labels.service_of(item_labels, args.service),
                                 args.metric, None)
        return series

    def _add_series(self, series: dict[str, MetricSeries], item: dict[str, Any], service: str,
                    metric: str, threshold: float | None) -> None:
        if len(series) >= _MAX_SERIES:
            return
        points = [SeriesPoint(ts=_rfc3339(datetime.fromtimestamp(float(ts), UTC)), value=float(value))
                  for ts, value in item.get("values") or [] if _is_number(value)]
        labels = label_text(item.get("metric") or {})
        key = f"{service}/{metric}"
        if key in series:
            key = f"{key}{{{','.join(f'{k}={v}' for k, v in sorted(labels.items()))}}}"
        series[key] = MetricSeries(service=service, metric=metric, unit=unit_of(metric),
                                   threshold=threshold, points=points)

    # ------------------------------------------------------------ vocabulary, description

    def vocabulary(self) -> Vocabulary:
        """Alert names (firing or pending), rule names, services (the service labels' values,
        the host names of ``instance`` values, and the alerts' services) and metric names, read
        once; an unreachable server gives an empty vocabulary marked ``unavailable``."""
        with self._lock:
            if self._vocabulary is None:
                self._vocabulary = self._read_vocabulary()
            return self._vocabulary

    def _read_vocabulary(self) -> Vocabulary:
        try:
            raw_alerts, _ = self._alerts()
            rules, _ = self._rules()
            services = [self.labels.service_of(label_text(a.get("labels") or {})) for a in raw_alerts]
            for name in self.labels.vocabulary_labels():
                services += self._label_values(name)
            for name in self.labels.host_labels():  # node-1 of node-1:9100, never 10.0.0.1
                services += [host for value in self._label_values(name) if (host := host_name(value))]
            metrics = self._label_values("__name__")
        except SourceError:
            return Vocabulary(unavailable=(self.source_id,))
        alert_names = [label_text(a.get("labels") or {}).get("alertname", "") for a in raw_alerts]
        return Vocabulary(services=_unique(services), alert_names=_unique(alert_names),
                          metrics=_unique(metrics), rule_names=_unique(r.name for r in rules))

    def _label_values(self, name: str) -> list[str]:
        data, _ = self._get(f"/api/v1/label/{name}/values")
        if not isinstance(data, list) or len(data) > _MAX_LABEL_VALUES:
            return []
        return [value for value in data if isinstance(value, str)]

    def describe(self) -> SourceDescription:
        """Alerts (firing and pending), alerting rules and head series the server holds; the
        problem instead when it does not answer."""
        try:
            raw_alerts, _ = self._alerts()
            rules, _ = self._rules()
            tsdb, _ = self._get("/api/v1/status/tsdb")
        except SourceError as exc:
            return SourceDescription(kind=self.kind, source_id=self.source_id,
                                     capability="metrics", location=self.endpoint.public_base,
                                     problem=str(exc))
        holds = {"alerts": len(raw_alerts),
                 "firing": sum(1 for a in raw_alerts if a.get("state") == "firing"),
                 "rules": len(rules)}
        head = tsdb.get("headStats") if isinstance(tsdb, dict) else None
        if isinstance(head, dict) and isinstance(head.get("numSeries"), int):
            holds["series"] = head["numSeries"]
        return SourceDescription(kind=self.kind, source_id=self.source_id, capability="metrics",
                                 holds=holds, location=self.endpoint.public_base)


def _rule_of(labels: dict[str, str], rules: list[_Rule]) -> _Rule | None:
    """The rule that produced an alert: the one listing this exact label set, else the first
    of the alert's name whose own labels the alert carries."""
    label_set = frozenset(labels.items())
    for rule in rules:
        if label_set in rule.alert_label_sets:
            return rule
    name = labels.get("alertname")
    return next((rule for rule in rules if rule.name == name
                 and rule.labels.items() <= labels.items()), None)


def _value_text(value: Any, unit: str) -> str | None:
    """The alert's value as Prometheus reports it (``9.2e+01``), written ``92`` + unit."""
    if not _is_number(value):
        return None
    return f"{format_number(float(value))}{unit}"


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _unique(values: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(value for value in values if value))
