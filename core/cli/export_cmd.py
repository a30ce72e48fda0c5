"""``superbiz export otlp``: stored sessions as OpenInference traces to an OTLP collector
(Arize Phoenix or any OpenTelemetry collector; docs/otlp.md)."""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime, timedelta

from core.cli.common import MAX_LIMIT, add_db_option, count_type, fail, open_cli_store, print_json, warn

_RELATIVE = re.compile(r"^(\d{1,6})([mhd])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days"}


def since_type(text: str) -> datetime:
    """An argparse ``type``: ``30m``, ``24h``, ``7d`` ago, or an ISO date or time (UTC unless
    it names a zone)."""
    value = text.strip()
    relative = _RELATIVE.match(value)
    if relative:
        return datetime.now(UTC) - timedelta(**{_UNITS[relative[2]]: int(relative[1])})
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a time: {text[:40]!r} (give 24h, 7d, 30m or an "
                                         "ISO date such as 2026-01-31T08:00)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``export`` and its ``otlp`` subcommand."""
    export = subparsers.add_parser("export", help="send stored sessions to other tools",
                                   description="Export stored sessions to other tools.")
    commands = export.add_subparsers(dest="export_command", metavar="SUBCOMMAND", required=True)
    otlp = commands.add_parser(
        "otlp", help="sessions as OpenInference traces to an OTLP/HTTP collector (Phoenix)",
        description="Send each closed session as one OpenInference trace over OTLP/HTTP "
                    "(roles as CHAIN spans, tool calls as TOOL spans, the gatekeeper a "
                    "GUARDRAIL, the verifier an EVALUATOR), and the gatekeeper's and "
                    "verifier's results as Phoenix span annotations. Needs superbiz[otel].")
    otlp.add_argument("--endpoint", metavar="URL", required=True,
                      help="the collector: its base URL (http://127.0.0.1:6006) or its "
                           "traces URL (…/v1/traces)")
    otlp.add_argument("--since", metavar="WHEN", type=since_type, default=None,
                      help="only sessions created since: 24h, 7d, 30m or an ISO date/time")
    otlp.add_argument("--project", metavar="NAME", default=None,
                      help="the Phoenix project (default: $SUPERBIZ_OTLP_PROJECT or superbiz)")
    otlp.add_argument("--limit", type=count_type(MAX_LIMIT), default=1000,
                      help="at most this many sessions, oldest first (default: 1000)")
    otlp.add_argument("--json", action="store_true", help="print what was sent as JSON only")
    add_db_option(otlp)
    otlp.set_defaults(handler=_otlp)


def _otlp(args: argparse.Namespace) -> int:
    from core.errors import StoredRowError
    from core.otlp.send import collector_urls, export_sessions, project_name
    from core.store.history import closed_session_ids, load_session_document

    collector_urls(args.endpoint)  # a malformed URL is refused before any work
    store = open_cli_store(args)
    documents = []
    for session_id in closed_session_ids(store, since=args.since, limit=args.limit):
        try:
            document = load_session_document(store, session_id=session_id)
        except StoredRowError as exc:
            warn(f"{exc}; skipped")
            continue
        if document is not None:
            documents.append(document)
    project = args.project or project_name()
    report = export_sessions(documents, args.endpoint, project=project)
    if args.json:
        print_json({"sessions": report.sessions, "spans": report.spans,
                    "annotations": report.annotations, "project": project,
                    "annotation_error": report.annotation_error})
    else:
        print(f"exported {report.sessions} session(s) as {report.spans} span(s) to project "
              f"{project!r}; {report.annotations} annotation(s)")
    if report.annotation_error:
        return fail(f"span annotations not stored: {report.annotation_error}", 1)
    return 0
