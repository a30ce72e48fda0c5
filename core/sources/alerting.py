"""Prometheus and Alertmanager together: one metrics source, silences taken into account.

Prometheus knows which alerts fire (and their values, rules and series); Alertmanager knows
which of them are silenced or inhibited. ``AlertingSources.query_metrics`` asks both (every
call in the request) and reads each Prometheus alert through Alertmanager's eyes: an alert
Alertmanager holds as suppressed becomes ``suppressed`` with the silence or inhibition stated;
alerts only Alertmanager holds (sent by another Prometheus) follow, as Alertmanager lists them.
Either server failing fails the call: half an answer is not an answer.
"""

from __future__ import annotations

from core.contracts import Alert, MetricsResult
from core.sources.alertmanager import AlertmanagerSource
from core.sources.base import Request, SourceDescription, Vocabulary
from core.sources.prometheus import PrometheusSource
from core.tools.args import QueryMetricsArgs


class AlertingSources:
    """A Prometheus server with the Alertmanager it sends to (a ``MetricsSource``)."""

    kind = "prometheus+alertmanager"

    def __init__(self, prometheus: PrometheusSource, alertmanager: AlertmanagerSource) -> None:
        self.prometheus = prometheus
        self.alertmanager = alertmanager

    @property
    def parts(self) -> tuple[PrometheusSource, AlertmanagerSource]:
        """The two servers, for a view that lists each."""
        return self.prometheus, self.alertmanager

    @property
    def source_id(self) -> str:
        return f"{self.prometheus.source_id}+{self.alertmanager.source_id}"

    def query_metrics(self, args: QueryMetricsArgs) -> tuple[MetricsResult, Request]:
        """Prometheus' alerts matching ``args`` (suppressed ones as such), then alerts only
        Alertmanager holds; the state filter applies to the states as they finally read."""
        unfiltered = args.model_copy(update={"state": None})
        matched, series, calls = self.prometheus.alerts(unfiltered)
        held, held_calls = self.alertmanager.alerts(unfiltered)
        calls += held_calls
        unused = list(held)
        alerts: list[Alert] = []
        for alert, labels in matched:
            twin = next(((am, am_labels) for am, am_labels in unused
                         if labels.items() <= am_labels.items()), None)
            if twin is not None:
                unused.remove(twin)
                alert = _as_held(alert, twin[0])
            alerts.append(alert)
        alerts += [am for am, _ in unused]
        if args.state:
            alerts = [alert for alert in alerts if alert.state.casefold() == args.state.casefold()]
        result = MetricsResult(success=True, alerts=alerts, series=series or None,
                               total=len(alerts),
                               message=f"找到 {len(alerts)} 条告警" if alerts else "未找到匹配的告警")
        return result, {"calls": calls, "filters": args.model_dump(mode="json", exclude_none=True)}

    def vocabulary(self) -> Vocabulary:
        return Vocabulary.merge([self.prometheus.vocabulary(), self.alertmanager.vocabulary()])

    def describe(self) -> SourceDescription:
        """Prometheus' counts with Alertmanager's suppressed alerts and silences."""
        ours, theirs = self.prometheus.describe(), self.alertmanager.describe()
        holds = dict(ours.holds)
        holds.update({key: value for key, value in theirs.holds.items()
                      if key in ("suppressed", "silences")})
        problems = [d.problem for d in (ours, theirs) if d.problem]
        return SourceDescription(kind=self.kind, source_id=self.source_id, capability="metrics",
                                 holds=holds, location=f"{ours.location} + {theirs.location}",
                                 problem="; ".join(problems) or None)


def _as_held(alert: Alert, held: Alert) -> Alert:
    """Prometheus' alert, suppressed (with Alertmanager's reasons) when Alertmanager says so."""
    if held.state != "suppressed":
        return alert
    reasons = [detail for detail in held.details
               if detail.startswith(("silenced by", "inhibited by")) and detail not in alert.details]
    return alert.model_copy(update={"state": "suppressed", "details": [*alert.details, *reasons]})
