"""Typed arguments of the three tools and their one-line validation errors (the tools' table is
``core.tools.spec``)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import ErrorDetails

from core.contracts import empty_list
from core.errors import ToolArgumentError
from core.language.lexicon import TOPICS, topics_in


def _blank_to_none(value: Any) -> Any:
    """Optional filters: surrounding spaces are noise and an empty string means "no filter"."""
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return value


class ToolArgs(BaseModel):
    """Base of tool arguments: unknown keys are errors (a typo must not silently widen a query)."""

    model_config = ConfigDict(extra="forbid")


class QueryMetricsArgs(ToolArgs):
    """Arguments of ``query_metrics``; every filter is optional."""

    service: str | None = Field(None, description="Service name, exact match, case-insensitive.")
    alert_name: str | None = Field(None, description="Alert name such as HighCPUUsage.")
    state: str | None = Field(None, description="Alert state such as firing or resolved.")
    metric: str | None = Field(
        None, pattern=r"^[a-zA-Z_:][a-zA-Z0-9_:]*$",
        description="Metric name such as cpu_usage_percent: its series (of the service, if given) "
                    "and only the alerts about it.")

    _clean = field_validator("service", "alert_name", "state", "metric", mode="before")(_blank_to_none)


class QueryLogsArgs(ToolArgs):
    """Arguments of ``query_logs``; every filter is optional, filters combine with AND.

    Search units are read from ``query`` (topics, identifiers, words, "quoted phrases") and
    ``terms`` (each an exact phrase, matched case-insensitively on word boundaries). With
    ``match="all"`` a line must hold every unit, with ``"any"`` at least one; either way lines
    are ranked by relevance to the units (newest first on ties). ``level`` is a minimum:
    ERROR covers ERROR, FATAL, CRITICAL and SEVERE. ``since`` / ``until`` bound the time window
    (inclusive, ISO 8601; a time without a zone is in the source's zone).
    """

    service: str | None = Field(None, description="Service name, exact match, case-insensitive.")
    query: str | None = Field(
        None, description="Free text, Chinese or English (keywords, topics, identifiers, \"phrases\").")
    terms: list[str] = Field(default_factory=empty_list, max_length=20,
                             description="Exact phrases to search for (case-insensitive, whole words).")
    match: Literal["all", "any"] = Field(
        "all", description="all: a line must contain every search unit; any: at least one.")
    level: str | None = Field(
        None, description="Minimum log level: DEBUG, INFO, WARN or ERROR (ERROR includes FATAL/CRITICAL).")
    exclude: list[str] = Field(default_factory=empty_list, max_length=20,
                               description="Lines containing any of these words or phrases are left out.")
    since: str | None = Field(None, description="Earliest timestamp, ISO 8601, inclusive.")
    until: str | None = Field(None, description="Latest timestamp, ISO 8601, inclusive.")
    topic: str | None = Field(None, description=f"A topic name: {', '.join(TOPICS)}.")
    limit: int = Field(20, ge=1, le=200, description="Most log lines to return, most relevant first.")

    _clean = field_validator("service", "query", "level", "topic", "since", "until",
                             mode="before")(_blank_to_none)

    @field_validator("terms", "exclude", mode="before")
    @classmethod
    def _phrases(cls, value: Any) -> Any:
        """A single string is one phrase; blank phrases are dropped."""
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list):
            return [item.strip() for item in value if not (isinstance(item, str) and not item.strip())]
        return value

    @field_validator("topic")
    @classmethod
    def _known_topic(cls, value: str | None) -> str | None:
        """A topic name, or a word naming one ("HikariCP" -> connection_pool)."""
        if value is None or value.lower() in TOPICS:
            return value.lower() if value else None
        named = topics_in(value)
        if not named:
            raise ValueError(f"unknown topic (known: {', '.join(TOPICS)})")
        return named[0]


class LookupKnowledgeArgs(ToolArgs):
    """Arguments of ``lookup_knowledge``."""

    query: str = Field(..., description="What to look up, Chinese or English.")
    top_k: int = Field(3, ge=1, le=20, description="Most runbook sections to return.")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()


def _shown(value: Any) -> str:
    """A short JSON rendering of the offending input, for error messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _explain(model: type[BaseModel], item: ErrorDetails) -> str:
    """One pydantic error as ``field: what is wrong (got X)``."""
    field = ".".join(str(part) for part in item["loc"]) or "arguments"
    kind, ctx = item["type"], item.get("ctx") or {}
    got = f" (got {_shown(item.get('input'))})"
    if kind == "extra_forbidden":
        return f"{field}: unknown argument (allowed: {', '.join(model.model_fields)})"
    if kind == "missing":
        return f"{field}: required"
    bounds = {"less_than_equal": ("<=", "le"), "less_than": ("<", "lt"),
              "greater_than_equal": (">=", "ge"), "greater_than": (">", "gt")}
    if kind in bounds:
        sign, key = bounds[kind]
        return f"{field}: must be {sign} {ctx.get(key)}{got}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"{field}: must be an integer{got}"
    if kind in ("string_type",):
        return f"{field}: must be a string{got}"
    if kind == "value_error":
        return f"{field}: {ctx.get('error', item['msg'])}{got}"
    return f"{field}: {item['msg'][0].lower()}{item['msg'][1:]}{got}"


def parse_arguments(tool_name: str, model: type[ToolArgs], arguments: Any) -> ToolArgs:
    """``arguments`` validated by ``model``; a ``ToolArgumentError`` with a one-line message such
    as ``query_logs: limit: must be <= 200 (got 500)`` when they do not fit it."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolArgumentError(f"{tool_name}: arguments must be a JSON object, got {_shown(arguments)}")
    try:
        return model.model_validate(arguments)
    except ValidationError as error:
        reasons = "; ".join(_explain(model, item) for item in error.errors())
        raise ToolArgumentError(f"{tool_name}: {reasons}") from None


# Which arguments of a recorded query filter what (the gatekeeper's coverage and search checks,
# the verifier's reading of what was searched): any tool's, under any of their usual names.
SERVICE_ARGS: tuple[str, ...] = ("service", "services", "service_name")
# Arguments that restrict a query to a topic (each one a filter the tools AND together).
TOPIC_ARGS: tuple[str, ...] = ("topic", "topics", "alert_name", "alertname", "metric")
# Search units (free text, phrases): ANDed, or ORed with ``match=any``.
UNIT_ARGS: tuple[str, ...] = ("query", "q", "keyword", "keywords", "pattern", "search", "terms")
# Search units that are exact phrases (whole words, in order): they never stand for a topic.
PHRASE_ARGS: tuple[str, ...] = ("terms",)


def argument_values(arguments: dict[str, Any], keys: tuple[str, ...]) -> list[str]:
    """The non-blank values of ``keys`` (lists flattened), as strings without the whitespace
    around them (the tools strip it too: ``" order-service "`` searched order-service)."""
    values: list[str] = []
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, (list, tuple)):
            values += [str(item).strip() for item in value if str(item).strip()]
        elif value is not None and str(value).strip():
            values.append(str(value).strip())
    return values
