"""Readers of a pack's YAML files: ``pack.yaml`` (its meta), ``alerts.yaml``, ``series.yaml``.
Each returns what it read and the problems found, never raises."""

from __future__ import annotations

from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from core.contracts import Alert, MetricSeries
from core.packfiles.formats import (
    ALERTS_FILE,
    PACK_FILE,
    SERIES_FILE,
    PackMeta,
    PackProblem,
    dotted,
    field_problems,
    read_yaml,
)


def read_meta(root: Path) -> tuple[PackMeta | None, list[PackProblem]]:
    """``pack.yaml``: the pack's name, description, clock, example questions, log store."""
    data, problems = read_yaml(root, PACK_FILE, dict)
    if problems:
        return None, problems
    try:
        return PackMeta.model_validate(data or {}), []
    except ValidationError as error:
        return None, field_problems(PACK_FILE, error, lambda loc: (None, dotted(loc)))


_ALERTS = TypeAdapter(list[Alert])
_SERIES = TypeAdapter(dict[str, MetricSeries])


def read_alerts(root: Path) -> tuple[list[Alert], list[PackProblem]]:
    """``alerts.yaml`` (optional): a list of alerts."""
    data, problems = read_yaml(root, ALERTS_FILE, list, required=False)
    if problems:
        return [], problems
    try:
        return _ALERTS.validate_python(data), []
    except ValidationError as error:
        return [], field_problems(ALERTS_FILE, error,
                                  lambda loc: (f"alerts[{loc[0]}]", dotted(loc[1:])))


def read_series(root: Path) -> tuple[dict[str, MetricSeries], list[PackProblem]]:
    """``series.yaml`` (optional): metric series by name."""
    data, problems = read_yaml(root, SERIES_FILE, dict, required=False)
    if problems:
        return {}, problems
    try:
        return _SERIES.validate_python(data), []
    except ValidationError as error:
        return {}, field_problems(SERIES_FILE, error,
                                  lambda loc: (f"series[{loc[0]!r}]", dotted(loc[1:])))
