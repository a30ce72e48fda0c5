"""Sending session traces (``core.otlp.spans``) to an OTLP/HTTP collector -- Arize Phoenix,
or any OpenTelemetry collector -- and their span annotations to Phoenix's REST API.

Needs the optional extra ``superbiz[otel]`` (opentelemetry-sdk, opentelemetry-exporter-otlp-
proto-http, openinference-semantic-conventions); ``OtelMissing`` says how to install it.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.contracts import SessionDocument
from core.errors import SuperbizError
from core.otlp.spans import SessionTrace, SpanSpec, session_trace

log = logging.getLogger(__name__)
# The exporter logs each retry as a warning; like ours, shown only with --verbose (core.log),
# never by logging's last-resort handler on a command's stderr.
logging.getLogger("opentelemetry").addHandler(logging.NullHandler())

DEFAULT_PROJECT = "superbiz"
TIMEOUT_S = 10.0
TRACES_PATH = "/v1/traces"
INGEST_WAIT_S = 15.0  # how long annotations wait for their spans to be stored
LIVE_TIMEOUT_S = 3.0  # SUPERBIZ_OTLP_ENDPOINT: the most a closing session waits on the collector


class OtelMissing(SuperbizError):
    """The OpenTelemetry packages of ``superbiz[otel]`` are not installed."""


class ExportFailed(SuperbizError):
    """The collector refused the spans or could not be reached."""


class _NotYet(ExportFailed):
    """Phoenix does not hold the annotated spans yet (HTTP 404)."""


@dataclass
class ExportReport:
    """What one export sent."""

    sessions: int = 0
    spans: int = 0
    annotations: int = 0
    annotation_error: str | None = None  # the collector is no Phoenix, or refused them


def collector_urls(endpoint: str) -> tuple[str, str]:
    """``(traces URL, base URL)`` of an endpoint given as the collector's base
    (``http://127.0.0.1:6006``) or its traces URL (``…/v1/traces``)."""
    base = endpoint.strip().rstrip("/")
    if base.endswith(TRACES_PATH):
        base = base[: -len(TRACES_PATH)]
    if not base.startswith(("http://", "https://")):
        raise ExportFailed(f"OTLP endpoint {endpoint!r} is not an http(s) URL")
    return base + TRACES_PATH, base


def export_sessions(documents: Iterable[SessionDocument], endpoint: str, *,
                    project: str = DEFAULT_PROJECT, timeout_s: float = TIMEOUT_S,
                    annotation_wait_s: float = INGEST_WAIT_S) -> ExportReport:
    """Export each session as one trace (spans over OTLP/HTTP protobuf), then the gatekeeper's
    and verifier's results as Phoenix span annotations. ``ExportFailed`` when the spans are
    refused; annotations a collector refuses are reported in the result, not raised."""
    traces_url, base = collector_urls(endpoint)
    traces = [session_trace(document) for document in documents]
    report = ExportReport(sessions=len(traces))
    if not traces:
        return report
    _send_spans(traces, traces_url, project, timeout_s)
    report.spans = sum(len(trace.spans) for trace in traces)
    annotations = [item for trace in traces for item in trace.annotations]
    if annotations:
        try:
            _annotate(f"{base}/v1/span_annotations", annotations, annotation_wait_s)
            report.annotations = len(annotations)
        except ExportFailed as exc:
            report.annotation_error = str(exc)
    return report


def _annotate(url: str, annotations: list[dict[str, Any]], wait_s: float) -> None:
    """Post the annotations once their spans are stored: Phoenix ingests spans in the
    background and refuses (404) a synchronous annotation of a span it does not hold yet; after
    ``wait_s`` they are queued instead (Phoenix stores them when the spans arrive)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            _post_json(f"{url}?sync=true", {"data": annotations})
            return
        except _NotYet:
            if time.monotonic() > deadline:
                _post_json(url, {"data": annotations})
                return
            time.sleep(0.25)


def project_name() -> str:
    """The Phoenix project sessions go to: ``SUPERBIZ_OTLP_PROJECT`` or ``superbiz``."""
    from core.settings import get_settings

    return get_settings().otlp_project.strip() or DEFAULT_PROJECT


def export_finished(document: SessionDocument) -> None:
    """Export a session that just closed when ``SUPERBIZ_OTLP_ENDPOINT`` is set (the
    pipeline calls this): a failure is logged, never raised."""
    from core.settings import get_settings

    endpoint = get_settings().otlp_endpoint.strip()
    if endpoint:
        export_quietly(document, endpoint, project=project_name())


def export_quietly(document: SessionDocument, endpoint: str, *, project: str) -> None:
    """Export one finished session (``SUPERBIZ_OTLP_ENDPOINT``); a failure is logged, never
    raised: the session is stored whatever the trace tool says."""
    try:
        # A session waits on its trace tool briefly: annotations are queued at once.
        report = export_sessions([document], endpoint, project=project,
                                 timeout_s=LIVE_TIMEOUT_S, annotation_wait_s=0.0)
    except Exception as exc:  # the trace tool's trouble is never the session's
        log.warning("session %s: OTLP export failed: %s", document.session_id, exc)
        return
    if report.annotation_error:
        log.warning("session %s: span annotations not stored: %s", document.session_id,
                    report.annotation_error)


def _send_spans(traces: list[SessionTrace], url: str, project: str, timeout_s: float) -> None:
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace.export import SpanExportResult
    except ImportError as exc:
        raise OtelMissing(f"OTLP export needs the optional packages ({exc.name}): install "
                          "them with `pip install 'superbiz[otel]'`") from None
    resource = Resource.create({"service.name": "superbiz",
                                "openinference.project.name": project})
    spans = [_readable(trace.trace_id, spec, resource) for trace in traces for spec in trace.spans]
    exporter = OTLPSpanExporter(endpoint=url, timeout=timeout_s)
    try:
        result = exporter.export(spans)
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]
    if result is not SpanExportResult.SUCCESS:
        raise ExportFailed(f"the collector at {url} did not take the spans (see --verbose)")


def _readable(trace_id: str, spec: SpanSpec, resource: Any) -> Any:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

    def context(span_id: str) -> SpanContext:
        return SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=False,
                           trace_flags=TraceFlags(TraceFlags.SAMPLED))

    status = Status(StatusCode.ERROR, spec.error) if spec.error else Status(StatusCode.OK)
    return ReadableSpan(
        name=spec.name, context=context(spec.span_id),
        parent=context(spec.parent_id) if spec.parent_id else None, resource=resource,
        attributes=spec.attributes, kind=SpanKind.INTERNAL, status=status,
        start_time=spec.start_ns, end_time=max(spec.end_ns, spec.start_ns),
        instrumentation_scope=InstrumentationScope("superbiz.otlp"))


def _post_json(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        if exc.code == 404 and b"do not exist" in exc.read():
            raise _NotYet(url) from None
        raise ExportFailed(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ExportFailed(f"{url}: {getattr(exc, 'reason', exc)}") from None
