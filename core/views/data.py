"""The Data page: a pack's alerts, runbooks and metric series charts, and its log search,
which is the world's ``query_logs`` itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from core.contracts import Alert, MetricSeries
from core.errors import ToolError
from core.sources.base import World
from core.tools.spec import call_tool

LOG_ROW_LIMIT = 200  # query_logs' largest limit
_LINE, _THRESHOLD = "#1c83e1", "#ff4b4b"


def alert_rows(alerts: Sequence[Alert]) -> list[dict[str, Any]]:
    """One row per alert, most telling fields first."""
    return [{"alert": a.alert_name, "state": a.state, "service": a.service,
             "current": a.current or "", "threshold": a.threshold or "",
             "duration": a.duration or "", "severity": a.severity or "", "pod": a.pod or "",
             "namespace": a.namespace or "", "started": a.started_at or "",
             "details": "; ".join([*a.details, *([a.summary] if a.summary else [])])}
            for a in alerts]


# One name per level rank, lowest first: the choices of the minimum level (query_logs' ``level``).
MINIMUM_LEVELS: tuple[str, ...] = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")


@dataclass(frozen=True)
class LogSearch:
    """What ``query_logs`` answered the Data page: the lines shown (most relevant first), the
    groups of every matching line, how many lines matched in all and the tool's message; or
    the one-line error a source raised."""

    rows: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    matched: int
    message: str = ""
    error: str | None = None


def search_logs(world: World, *, text: str = "", service: str | None = None, level: str | None = None,
                limit: int = LOG_ROW_LIMIT) -> LogSearch:
    """The world's log search, exactly as the tool runs it (``query_logs`` through its spec:
    the same synonyms, identifiers, quoted phrases, ranking and groups the agents get)."""
    arguments: dict[str, Any] = {"limit": limit}
    if text.strip():
        arguments["query"] = text.strip()
    if service:
        arguments["service"] = service
    if level:
        arguments["level"] = level
    try:
        output = call_tool(world, "query_logs", arguments).output
    except ToolError as error:
        return LogSearch(rows=[], groups=[], matched=0, error=str(error))
    rows = [{"#": index, "timestamp": log["timestamp"], "level": log["level"], "service": log["service"],
             "message": log["message"], "source": log.get("source") or ""}
            for index, log in enumerate(output["logs"])]
    groups = [{"lines": group["count"], "level": group["level"], "service": group["service"],
               "template": group["template"], "first": group["first_timestamp"],
               "last": group["last_timestamp"], "shown": ", ".join(map(str, group["sample_indexes"]))}
              for group in output["groups"]]
    return LogSearch(rows=rows, groups=groups, matched=output["total"], message=output["message"])


def log_line_count(world: World) -> int | None:
    """How many log lines the world's log source holds (None: no log source, or it failed)."""
    if world.logs is None:
        return None
    try:
        lines = world.logs.describe().holds.get("lines")
    except ToolError:
        return None
    return lines if isinstance(lines, int) else None


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
