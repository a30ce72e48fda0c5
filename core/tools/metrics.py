"""``query_metrics``: the pack's alerts, filtered, with the metric series of the services involved."""

from __future__ import annotations

import re

from core.contracts import Alert, MetricSeries, MetricsResult
from core.packs import Pack
from core.tools.args import QueryMetricsArgs


def _alert_key(name: str) -> str:
    """Alert names compare without case or separators: high_cpu_usage == HighCPUUsage."""
    return re.sub(r"[\s_\-]+", "", name).lower()


def _series_for(pack: Pack, alerts: list[Alert], args: QueryMetricsArgs) -> dict[str, MetricSeries]:
    """Series of the matched alerts (by service and metric), or of the filtered service; with a
    ``metric``, only that metric's series (of the service, if given, when no alert matched)."""
    wanted: set[tuple[str, str | None]] = set()
    for alert in alerts:
        has_metric = any(s.service.lower() == alert.service.lower() and s.metric == alert.metric
                         for s in pack.series.values())
        wanted.add((alert.service.lower(), alert.metric if has_metric else None))
    if args.service and not args.alert_name:
        wanted.add((args.service.lower(), None))
    return {
        name: series for name, series in pack.series.items()
        if ((series.service.lower(), series.metric) in wanted or (series.service.lower(), None) in wanted
            or (args.metric == series.metric and not alerts
                and (args.service is None or series.service.lower() == args.service.lower())))
        and (args.metric is None or series.metric == args.metric)
    }


def query_metrics(pack: Pack, args: QueryMetricsArgs) -> MetricsResult:
    """Alerts matching every given filter (service, state and metric exact, alert name loosely), in pack
    order, plus the series of the services involved. No match is a success with no alerts."""
    alerts = [
        alert for alert in pack.alerts
        if (args.service is None or alert.service.lower() == args.service.lower())
        and (args.alert_name is None or _alert_key(alert.alert_name) == _alert_key(args.alert_name))
        and (args.state is None or alert.state.lower() == args.state.lower())
        and (args.metric is None or alert.metric == args.metric)
    ]
    series = _series_for(pack, alerts, args)
    return MetricsResult(
        success=True,
        alerts=[alert.model_copy(deep=True) for alert in alerts],  # the pack stays untouched
        series={name: s.model_copy(deep=True) for name, s in series.items()} or None,
        total=len(alerts),
        message=f"找到 {len(alerts)} 条告警" if alerts else "未找到匹配的告警",
    )
