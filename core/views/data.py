"""The Data page: a pack's alerts, searchable logs, runbooks and metric series charts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from core.contracts import Alert, LogEntry, MetricSeries
from core.lexicon import fold
from core.tools.refs import log_ref_text

LOG_ROW_LIMIT = 500
_LINE, _THRESHOLD = "#1c83e1", "#ff4b4b"


def alert_rows(alerts: Sequence[Alert]) -> list[dict[str, Any]]:
    """One row per alert, most telling fields first."""
    return [{"alert": a.alert_name, "state": a.state, "service": a.service,
             "current": a.current or "", "threshold": a.threshold or "",
             "duration": a.duration or "", "severity": a.severity or "", "pod": a.pod or "",
             "namespace": a.namespace or "", "started": a.started_at or "",
             "details": "; ".join([*a.details, *([a.summary] if a.summary else [])])}
            for a in alerts]


@dataclass(frozen=True)
class LogSearch:
    """Matching log rows (at most ``LOG_ROW_LIMIT``) and how many lines matched in all."""

    rows: list[dict[str, Any]]
    matched: int


def search_logs(logs: Sequence[LogEntry], *, text: str = "", services: Sequence[str] = (),
                levels: Sequence[str] = (), limit: int = LOG_ROW_LIMIT) -> LogSearch:
    """Lines whose ``[ts][LEVEL][service] message`` contains every word of ``text``
    (case- and width-insensitive), restricted to the given services and levels."""
    words = fold(text).split()
    wanted_services, wanted_levels = set(services), {level.upper() for level in levels}
    rows: list[dict[str, Any]] = []
    matched = 0
    for index, entry in enumerate(logs):
        if wanted_services and entry.service not in wanted_services:
            continue
        if wanted_levels and entry.level.upper() not in wanted_levels:
            continue
        if words:
            line = fold(log_ref_text(entry))
            if not all(word in line for word in words):
                continue
        matched += 1
        if len(rows) < limit:
            rows.append({"#": index, "timestamp": entry.timestamp, "level": entry.level,
                         "service": entry.service, "message": entry.message,
                         "source": entry.source or ""})
    return LogSearch(rows=rows, matched=matched)


def log_levels(logs: Sequence[LogEntry]) -> list[str]:
    """Distinct levels, most severe first when they are the usual ones."""
    order = {"FATAL": 0, "ERROR": 1, "WARN": 2, "WARNING": 2, "INFO": 3, "DEBUG": 4}
    levels = {entry.level.upper() for entry in logs}
    return sorted(levels, key=lambda level: (order.get(level, 9), level))


def series_title(series: MetricSeries) -> str:
    """``payment-service · cpu_usage (%)``."""
    unit = f" ({series.unit})" if series.unit else ""
    return f"{series.service} · {series.metric}{unit}"


def series_figure(series: MetricSeries) -> go.Figure:
    """The series as a line chart, with its alert threshold as a dashed red line."""
    times = [point.ts for point in series.points]
    values = [point.value for point in series.points]
    figure = go.Figure(go.Scatter(x=times, y=values, mode="lines+markers", name=series.metric,
                                  line={"color": _LINE, "width": 2},
                                  hovertemplate="%{x}<br>%{y}" + series.unit + "<extra></extra>"))
    if series.threshold is not None:
        figure.add_hline(y=series.threshold, line_dash="dash", line_color=_THRESHOLD,
                         annotation_text=f"threshold {series.threshold:g}{series.unit}",
                         annotation_position="top left")
        low = min([*values, series.threshold])
        high = max([*values, series.threshold])
        pad = max((high - low) * 0.15, 1.0)
        figure.update_yaxes(range=[low - pad, high + pad])
    figure.update_layout(title=series_title(series), height=280, showlegend=False,
                         margin={"l": 10, "r": 10, "t": 44, "b": 10})
    return figure
