"""Opening a world from what the user configured: a pack, a sources file, live servers.

``open_world(pack=..., sources=...)`` is what the CLI (``ask``, ``tools call``, ``eval``) and
the console call:

1. a sources file (``--sources FILE``, else ``SUPERBIZ_SOURCES`` when no pack is named) is a
   world of its own: ``world_from_file``;
2. otherwise the pack's world (``load_world``), with ``SUPERBIZ_PROMETHEUS_URL`` /
   ``SUPERBIZ_ALERTMANAGER_URL`` layered on top: their alerts (and series) replace the pack's
   metrics; logs and runbooks stay the pack's. The world is then named ``<pack>+live``.

A sources file (YAML; relative paths are relative to the file)::

    name: prod                      # the world's name (default: the file's stem)
    now: 2015-10-18T18:10:00Z       # the world's clock (default: see ``world_clock``)
    description: "..."
    pack: demo                      # optional: a pack for every capability not named below
    example_questions: ["..."]
    metrics:                        # Prometheus and/or Alertmanager, or a pack
      prometheus: {url: http://127.0.0.1:9090, timeout_seconds: 5,
                   bearer_token_env: PROM_TOKEN, service_labels: [service, job],
                   series_window_minutes: 30}
      alertmanager: {url: http://127.0.0.1:9093}
    logs: {pack: demo}              # or {store: /data/app.db} (a log store), or an otel_logs
                                    # table: {clickhouse: {url: http://host:8123, database: otel,
                                    # table: otel_logs}} or {clickhouse: {path: DIR}} (chdb)
    knowledge:                      # a pack's runbooks and rules, and/or folders and files
      pack: demo
      runbooks: [./runbooks]
      rules: [./rules, /etc/prometheus/rules/node.yml]

Credentials: a URL may carry ``user:password@`` or secret query values, and a bearer token is
read from the environment variable the file names (``bearer_token_env``) or from
``SUPERBIZ_PROMETHEUS_TOKEN`` / ``SUPERBIZ_ALERTMANAGER_TOKEN``. None of them is ever part of a
source id, a request, an error message or a description (``core.sources.http``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from core.contracts import empty_list
from core.errors import LogStoreError, PackError, SourcesConfigError, first_error
from core.packs import Pack, load_pack
from core.redact import public_url
from core.settings import Settings, get_settings
from core.sources.alertmap import DEFAULT_SERVICE_LABELS, LabelMapping
from core.sources.base import KnowledgeSource, LogSource, MetricsSource, World
from core.sources.files import KnowledgeFiles
from core.sources.limits import DEFAULT_SERIES_WINDOW, DEFAULT_TIMEOUT
from core.sources.pack import (
    PackKnowledge,
    PackLogs,
    PackMetrics,
    load_world,
    pack_knowledge,
    pack_logs,
    pack_metrics,
)
from core.sources.rulefiles import read_yaml_documents

_MAX_SOURCES_FILE_BYTES = 1024 * 1024


class _Strict(BaseModel):
    # Validators built on first use: most asks read no sources file and name no server.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class ServerConfig(_Strict):
    """One HTTP server: its URL and how to talk to it."""

    url: str
    timeout_seconds: float = Field(DEFAULT_TIMEOUT, gt=0, le=300)
    bearer_token_env: str | None = None
    service_labels: list[str] | None = None

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        shown = public_url(value.strip())
        if not value.strip().lower().startswith(("http://", "https://")):
            raise ValueError(f"must be an http(s) URL (got {shown!r})")
        try:  # a malformed host or port is refused here, not on the first call
            parts = urlsplit(value.strip())
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"not a valid URL ({exc}): {shown!r}") from None
        if not parts.hostname:
            raise ValueError(f"names no host: {shown!r}")
        if port == 0:
            raise ValueError(f"port 0 is not a server's port: {shown!r}")
        return value.strip()


class PrometheusConfig(ServerConfig):
    """A Prometheus server."""

    series_window_minutes: float = Field(DEFAULT_SERIES_WINDOW.total_seconds() / 60, gt=0,
                                         le=7 * 24 * 60)


class MetricsConfig(_Strict):
    """Where alerts and series come from: servers, or a pack."""

    prometheus: PrometheusConfig | None = None
    alertmanager: ServerConfig | None = None
    pack: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> MetricsConfig:
        servers = self.prometheus is not None or self.alertmanager is not None
        if servers == (self.pack is not None):
            raise ValueError("name prometheus and/or alertmanager, or a pack (exactly one kind)")
        return self


class ClickHouseConfig(_Strict):
    """An ``otel_logs`` table: on a server (``url``) or in a chdb folder (``path``)."""

    url: str | None = None
    path: str | None = None
    database: str = "otel"
    table: str = "otel_logs"
    timeout_seconds: float = Field(10.0, gt=0, le=300)
    max_rows_to_read: int = Field(100_000_000, gt=0)

    @field_validator("url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        return None if value is None else ServerConfig(url=value).url

    @model_validator(mode="after")
    def _one(self) -> ClickHouseConfig:
        if (self.url is None) == (self.path is None):
            raise ValueError("name a url or a path (exactly one)")
        return self


class LogsConfig(_Strict):
    """Where log lines come from: a pack, a log store file or a ClickHouse table."""

    pack: str | None = None
    store: str | None = None
    clickhouse: ClickHouseConfig | None = None

    @model_validator(mode="after")
    def _one(self) -> LogsConfig:
        if sum(value is not None for value in (self.pack, self.store, self.clickhouse)) != 1:
            raise ValueError("name a pack, a store or a clickhouse table (exactly one)")
        return self


class KnowledgeConfig(_Strict):
    """Runbooks and alerting rules: a pack's, and/or folders and files."""

    pack: str | None = None
    runbooks: list[str] = Field(default_factory=empty_list)
    rules: list[str] = Field(default_factory=empty_list)

    @model_validator(mode="after")
    def _some(self) -> KnowledgeConfig:
        if self.pack is None and not self.runbooks and not self.rules:
            raise ValueError("name a pack, runbook folders or rule files")
        return self


class SourcesFile(_Strict):
    """The content of a sources file (see the module docstring)."""

    name: str | None = None
    description: str = ""
    pack: str | None = None
    example_questions: list[str] = Field(default_factory=empty_list)
    metrics: MetricsConfig | None = None
    logs: LogsConfig | None = None
    knowledge: KnowledgeConfig | None = None
    now: datetime | None = None

    @field_validator("now", mode="before")
    @classmethod
    def _moment(cls, value: object) -> datetime:
        # YAML reads an unquoted time as a datetime already; a number is not taken as epoch
        # seconds (pydantic would), it is a mistake.
        moment = value if isinstance(value, datetime) else None
        if isinstance(value, str):
            try:
                moment = datetime.fromisoformat(value.strip())
            except ValueError:
                moment = None
        if moment is None:
            raise ValueError(f"must be an ISO 8601 time such as 2015-10-18T18:10:00Z (got {value!r})")
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# ---------------------------------------------------------------- building sources


def _headers(server: ServerConfig, default_token: str, environ: Mapping[str, str],
             where: str) -> dict[str, str]:
    """``Authorization: Bearer`` from the variable the config names, else the default token."""
    token = default_token
    if server.bearer_token_env:
        token = environ.get(server.bearer_token_env, "")
        if not token:
            raise SourcesConfigError(f"{where}: bearer_token_env: environment variable "
                                     f"{server.bearer_token_env} is not set")
    return {"Authorization": f"Bearer {token}"} if token else {}


def _mapping(server: ServerConfig | None, default: tuple[str, ...]) -> LabelMapping:
    labels = tuple(server.service_labels) if server and server.service_labels else default
    return LabelMapping(labels)


def live_metrics(prometheus: PrometheusConfig | None, alertmanager: ServerConfig | None, *,
                 settings: Settings, environ: Mapping[str, str],
                 where: str = "sources") -> MetricsSource:
    """The metrics source of the configured servers (both: ``AlertingSources``)."""
    # The HTTP sources only now: a world without servers (most asks) never loads urllib/ssl.
    from core.sources.alerting import AlertingSources
    from core.sources.alertmanager import AlertmanagerSource
    from core.sources.prometheus import PrometheusSource

    default_labels = _service_labels(settings)
    prom = am = None
    if prometheus is not None:
        prom = PrometheusSource(
            prometheus.url, timeout=prometheus.timeout_seconds,
            headers=_headers(prometheus, settings.prometheus_token, environ, f"{where}: prometheus"),
            labels=_mapping(prometheus, default_labels),
            series_window=timedelta(minutes=prometheus.series_window_minutes))
    if alertmanager is not None:
        am = AlertmanagerSource(
            alertmanager.url, timeout=alertmanager.timeout_seconds,
            headers=_headers(alertmanager, settings.alertmanager_token, environ,
                             f"{where}: alertmanager"),
            labels=_mapping(alertmanager, default_labels))
    if prom is not None and am is not None:
        return AlertingSources(prom, am)
    if prom is not None:
        return prom
    assert am is not None  # MetricsConfig / env_metrics never call without a server
    return am


def _service_labels(settings: Settings) -> tuple[str, ...]:
    labels = tuple(part.strip() for part in settings.service_labels.split(",") if part.strip())
    return labels or DEFAULT_SERVICE_LABELS


def _timeout(settings: Settings) -> float:
    text = settings.source_timeout.strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 300:
        raise SourcesConfigError(f"SUPERBIZ_SOURCE_TIMEOUT: must be seconds in (0, 300] (got {text!r})")
    return value


def env_metrics(settings: Settings | None = None,
                environ: Mapping[str, str] | None = None) -> MetricsSource | None:
    """The metrics source ``SUPERBIZ_PROMETHEUS_URL`` / ``SUPERBIZ_ALERTMANAGER_URL`` name, if
    any (``SourcesConfigError`` for a malformed value, credentials never quoted)."""
    settings = settings or get_settings()
    environ = os.environ if environ is None else environ
    timeout = _timeout(settings)
    configs: dict[str, ServerConfig | None] = {}
    for name, url, model in (("prometheus", settings.prometheus_url, PrometheusConfig),
                             ("alertmanager", settings.alertmanager_url, ServerConfig)):
        try:
            configs[name] = model(url=url, timeout_seconds=timeout) if url.strip() else None
        except ValidationError as exc:
            raise SourcesConfigError(f"SUPERBIZ_{name.upper()}_URL: {_reason(exc)}") from None
    prometheus, alertmanager = configs["prometheus"], configs["alertmanager"]
    if prometheus is None and alertmanager is None:
        return None
    assert prometheus is None or isinstance(prometheus, PrometheusConfig)
    return live_metrics(prometheus, alertmanager, settings=settings, environ=environ,
                        where="environment")


def _reason(exc: ValidationError) -> str:
    """A validation error without the input echoed (it may be a URL with a password)."""
    first = exc.errors()[0]
    message = str(first.get("ctx", {}).get("error") or first["msg"])
    return message


# ---------------------------------------------------------------- the sources file


def read_sources_file(path: Path) -> SourcesFile:
    """Parse and validate a sources file (``SourcesConfigError``: one line naming the file and
    the field)."""
    if not path.is_file():
        raise SourcesConfigError(f"sources file not found: {path}")
    documents = read_yaml_documents(path, str(path), _MAX_SOURCES_FILE_BYTES)
    data = documents[0] if len(documents) == 1 else None
    if not isinstance(data, dict):
        raise SourcesConfigError(f"{path}: must be a mapping (name, pack, metrics, logs, knowledge)")
    try:
        return SourcesFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        if first["type"] == "extra_forbidden":
            raise SourcesConfigError(f"{path}: {field}: unknown key") from None
        plain = "url" in field or field == "now"  # the validator's own words
        reason = _reason(exc) if plain else first_error(exc).split(": ", 1)[-1]
        raise SourcesConfigError(f"{path}: {field}: {reason}") from None


def _local(base: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base / path


def _pack(base: Path, name: str) -> Pack:
    """A pack by name, or by a path relative to the sources file."""
    looks_like_path = "/" in name or name.startswith((".", "~"))
    return load_pack(str(_local(base, name)) if looks_like_path else name)


def world_clock(config: SourcesFile, where: str, sources: list[LogSource | MetricsSource | None]
                ) -> tuple[datetime, dict[str, datetime], str]:
    """The clock of a sources file's world: ``now``, each service's own clock, and what ``now`` is.

    ``now:`` in the file wins, one clock for every service. Live metrics (Prometheus,
    Alertmanager) are now: the wall clock, one for every service (a log store beside live
    servers is taken to be fed alongside them). Otherwise the data are recordings, read as a
    pack's are: each service's clock is its newest data (a store's newest line, by its
    service index: one seek per service, no scan), and ``now`` the latest of them.
    """
    from core.sources.logstore import LogStore

    if config.now is not None:
        return config.now, {}, f"now: in {where}"
    if config.metrics is not None and config.metrics.pack is None:
        return datetime.now(UTC), {}, "the wall clock: live metrics are now"
    clocks: dict[str, datetime] = {}
    ends: list[datetime] = []
    end: datetime | None
    for source in sources:
        if isinstance(source, PackMetrics | PackLogs):
            own, end = dict(source.pack.clocks), source.pack.now
        elif isinstance(source, LogStore) or _has_clocks(source):
            own = source.newest_by_service()  # type: ignore[union-attr]
            end = max(own.values(), default=None)
        else:
            continue
        for service, moment in own.items():
            clocks[service] = max(moment, clocks.get(service, moment))
        ends += [end] if end is not None else []
    if not ends:
        return datetime.now(UTC), {}, "the wall clock: no data with times"
    return max(ends), clocks, "the data's clock: its newest data"


def _has_clocks(source: object) -> bool:
    """A log source that tells each service's newest line (a ClickHouse table)."""
    from core.sources.clickhouse import ClickHouseLogs

    return isinstance(source, ClickHouseLogs)


def _log_store(path: Path, where: str) -> LogSource:
    """A log store file (``superbiz logs import``) as the world's log source."""
    from core.sources.logstore import LogStore

    try:
        return LogStore.open(path)
    except LogStoreError as exc:
        raise SourcesConfigError(f"{where}: logs.store: {exc}") from None


def clickhouse_logs(config: ClickHouseConfig, base: Path, where: str) -> LogSource:
    """The ClickHouse table a sources file names (``core.sources.clickhouse``), its names read
    now: a server that does not answer is a configuration error, said once."""
    from core.errors import SourceError
    from core.sources.clickhouse import open_clickhouse

    try:
        source = open_clickhouse(url=config.url, path=str(_local(base, config.path)) if config.path else None,
                                 database=config.database, table=config.table,
                                 timeout=config.timeout_seconds, max_rows=config.max_rows_to_read)
        source.facts()
    except (SourceError, ImportError) as exc:
        raise SourcesConfigError(f"{where}: logs.clickhouse: {exc}") from None
    return source


def env_clickhouse(url: str) -> ClickHouseConfig:
    """``SUPERBIZ_CLICKHOUSE_URL``: ``http(s)://host:8123[/database[/table]]`` (``clickhouse://``
    reads as ``http://``); the database and table default to the Collector's ``otel.otel_logs``."""
    text = url.strip()
    if text.lower().startswith("clickhouse://"):
        text = "http://" + text[len("clickhouse://"):]
    parts = urlsplit(text)
    names = [name for name in parts.path.split("/") if name]
    server = parts._replace(path="", query="", fragment="").geturl()
    try:
        return ClickHouseConfig(url=server, database=names[0] if names else "otel",
                                table=names[1] if len(names) > 1 else "otel_logs")
    except ValidationError as exc:
        raise SourcesConfigError(f"SUPERBIZ_CLICKHOUSE_URL: {_reason(exc)}") from None


def world_from_file(path: str | Path, *, settings: Settings | None = None,
                    environ: Mapping[str, str] | None = None) -> World:
    """The world a sources file describes; a capability it does not name comes from its
    ``pack``, if any, else the world has none (calls to that tool are failed invocations)."""
    settings = settings or get_settings()
    environ = os.environ if environ is None else environ
    file = Path(path).expanduser()
    config = read_sources_file(file)
    base = file.resolve().parent
    where = str(file)
    packs: dict[str, Pack] = {}

    def pack(name: str) -> Pack:
        if name not in packs:
            try:
                packs[name] = _pack(base, name)
            except PackError as exc:
                raise SourcesConfigError(f"{where}: pack: {exc}") from None
        return packs[name]

    base_pack = pack(config.pack) if config.pack else None
    # The base pack fills only the capabilities it has data for.
    metrics: MetricsSource | None = pack_metrics(base_pack) if base_pack else None
    logs: LogSource | None = pack_logs(base_pack) if base_pack else None
    knowledge: KnowledgeSource | None = pack_knowledge(base_pack) if base_pack else None
    if config.metrics is not None:
        if config.metrics.pack:
            metrics = PackMetrics(pack(config.metrics.pack))
        else:
            metrics = live_metrics(config.metrics.prometheus, config.metrics.alertmanager,
                                   settings=settings, environ=environ, where=where)
    if config.logs is not None:
        if config.logs.clickhouse is not None:
            logs = clickhouse_logs(config.logs.clickhouse, base, where)
        else:
            logs = (PackLogs(pack(config.logs.pack)) if config.logs.pack
                    else _log_store(_local(base, config.logs.store or ""), where))
    if config.knowledge is not None:
        known = config.knowledge
        knowledge_pack = pack(known.pack) if known.pack else None
        if known.runbooks or known.rules:
            knowledge = KnowledgeFiles.read(
                runbook_dirs=[_local(base, folder) for folder in known.runbooks],
                rule_paths=[_local(base, item) for item in known.rules], pack=knowledge_pack)
        elif knowledge_pack is not None:
            knowledge = PackKnowledge(knowledge_pack)
    examples = config.example_questions or (base_pack.example_questions if base_pack else [])
    now, clocks, basis = world_clock(config, where, [metrics, logs])
    return World(name=config.name or file.stem, now=now, metrics=metrics, logs=logs,
                 knowledge=knowledge,
                 description=config.description or (base_pack.description if base_pack else ""),
                 example_questions=tuple(examples), clocks=clocks, clock_basis=basis)


# ---------------------------------------------------------------- what the CLI and console open


def _with_clickhouse(world: World, config: ClickHouseConfig) -> World:
    """The world with the ClickHouse table as its logs, on the table's clock (its newest lines)."""
    logs = clickhouse_logs(config, Path.cwd(), "SUPERBIZ_CLICKHOUSE_URL")
    clocks = logs.newest_by_service()  # type: ignore[attr-defined]
    now = max(clocks.values(), default=world.now)
    return World(name=f"{world.name}+clickhouse", now=now, metrics=world.metrics, logs=logs,
                 knowledge=world.knowledge, description=world.description,
                 example_questions=world.example_questions, clocks=clocks,
                 clock_basis="the data's clock: the ClickHouse table's newest lines")


def open_world(pack: str | Path | Pack | World | None = None, *, sources: str | Path | None = None,
               settings: Settings | None = None,
               environ: Mapping[str, str] | None = None) -> World:
    """The world to investigate: the sources file if one is given (or ``SUPERBIZ_SOURCES``
    names one and no pack is given), else the pack (default ``SUPERBIZ_DEFAULT_PACK``) with
    the servers of ``SUPERBIZ_PROMETHEUS_URL`` / ``SUPERBIZ_ALERTMANAGER_URL`` as its metrics."""
    settings = settings or get_settings()
    if sources is None and pack is None and settings.sources_files():
        sources = settings.sources_files()[0]
    if sources is not None:
        return world_from_file(sources, settings=settings, environ=environ)
    world = load_world(pack if pack is not None else settings.default_pack)
    if isinstance(pack, World):
        return world
    if settings.clickhouse_url.strip():
        world = _with_clickhouse(world, env_clickhouse(settings.clickhouse_url))
    live = env_metrics(settings, environ)
    if live is None:
        return world
    return World(name=f"{world.name}+live", now=datetime.now(UTC), metrics=live, logs=world.logs,
                 knowledge=world.knowledge, description=world.description,
                 example_questions=world.example_questions,
                 clock_basis="the wall clock: live metrics are now")

