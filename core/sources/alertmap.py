"""Labels to ``Alert`` fields: how a live alert reads as the tools' contract.

Prometheus and Alertmanager alerts are label sets plus annotations. The contract wants a
service, a pod, a namespace, a severity, a current value, a threshold, a duration and a summary.
The mapping only copies and formats; it never invents:

- ``service``: the value of the first label of ``service_labels`` the alert has (default:
  ``service``, ``app``, ``app_kubernetes_io_name``, ``container``, ``deployment``,
  ``statefulset``, ``daemonset``, ``cronjob``, ``job_name``, ``node``, ``job``, ``namespace``,
  ``pod``, ``instance``: the workload or node an exporter reports about before the exporter's
  own ``job``; kube-state-metrics names a Kubernetes Job ``job_name``, since ``job`` is its own). A query for a
  service matches an alert whose value of *any* of those labels is that service, and the alert
  then reads as that service (so a question about a pod, a deployment, a node or a namespace
  finds its alerts, named as the question names them). ``instance`` also matches by its host
  (``node-1`` is the instance ``node-1:9100``).
- ``pod``, ``namespace``, ``severity``: the labels of those names.
- ``duration``: the time since the alert became active, by the server's clock (the answer's
  ``Date``), in the two largest units (``25m``, ``1h5m``, ``42s``).
- ``summary`` / ``details``: the ``summary`` annotation, then the ``description`` and
  ``runbook_url`` annotations as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

# A workload's own name first; ``container``, the workload and the node before ``job`` because
# exporters such as kube-state-metrics and node-exporter report about other things (pods'
# containers, deployments, nodes) under their own job.
DEFAULT_SERVICE_LABELS: tuple[str, ...] = (
    "service", "app", "app_kubernetes_io_name", "container", "deployment", "statefulset",
    "daemonset", "cronjob", "job_name", "node", "job", "namespace", "pod", "instance")
# Labels whose values are not service names a person types (addresses, pod hashes): the
# vocabulary leaves them out, though they still name an alert's service when nothing else does.
NOT_VOCABULARY_LABELS = frozenset({"instance", "pod"})
# Labels whose value is ``host[:port]``: they also name the host alone (``node-1:9100`` is
# ``node-1``), and a host name (not an address) is a name a person types.
HOST_LABELS = frozenset({"instance"})
_HOST_PORT = re.compile(r"^(?P<host>\[[^\]]*\]|[^:]+):\d{1,5}$")
_ADDRESS = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|\[.*\]|.*:.*|localhost)$", re.IGNORECASE)


def host_of(value: str) -> str:
    """``node-1`` of ``node-1:9100``; the value itself when it has no port."""
    match = _HOST_PORT.match(value)
    return match.group("host") if match else value


def host_name(value: str) -> str | None:
    """The host of an ``instance`` value when it is a name (``node-1``), not an address."""
    host = host_of(value)
    return None if not host or _ADDRESS.match(host) else host


@dataclass(frozen=True)
class LabelMapping:
    """Which labels name an alert's or a series' service, in order of preference."""

    service_labels: tuple[str, ...] = DEFAULT_SERVICE_LABELS

    def _names(self, labels: Mapping[str, str]) -> list[str]:
        """What the service labels name, in order: each value, and a host label's host."""
        names: list[str] = []
        for name in self.service_labels:
            value = labels.get(name)
            if value:
                names.append(value)
                if name in HOST_LABELS and host_of(value) != value:
                    names.append(host_of(value))
        return names

    def service_of(self, labels: Mapping[str, str], wanted: str | None = None) -> str:
        """``wanted`` as the labels spell it when one of the service labels names it (a host
        label by its host, too); else the value of the first service label present; else ``""``."""
        if wanted:
            folded = wanted.casefold()
            for value in self._names(labels):
                if value.casefold() == folded:
                    return value
        return next((labels[name] for name in self.service_labels if labels.get(name)), "")

    def matches_service(self, labels: Mapping[str, str], wanted: str) -> bool:
        """Whether any service label names ``wanted`` (case-insensitive; a host label by its
        host too)."""
        folded = wanted.casefold()
        return any(value.casefold() == folded for value in self._names(labels))

    def vocabulary_labels(self) -> tuple[str, ...]:
        """The service labels whose values are service names in the vocabulary."""
        return tuple(name for name in self.service_labels if name not in NOT_VOCABULARY_LABELS)

    def host_labels(self) -> tuple[str, ...]:
        """The service labels whose values' host names are in the vocabulary."""
        return tuple(name for name in self.service_labels if name in HOST_LABELS)


def parse_time(text: str | None) -> datetime | None:
    """An RFC 3339 time as the APIs write it (``2026-07-08T02:55:00.123456789Z``)."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def format_duration(seconds: float) -> str:
    """``42s``, ``3m12s``, ``25m``, ``1h5m``, ``2d3h``: the two largest units, floored."""
    remaining = max(0, int(seconds))
    counts = []
    for name, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, remaining = divmod(remaining, size)
        counts.append((count, name))
    first = next((index for index, (count, _) in enumerate(counts) if count), len(counts) - 1)
    shown = [f"{count}{name}" for count, name in counts[first:first + 2] if count]
    return "".join(shown) or "0s"


def active_for(active_at: str | None, now: datetime | None) -> tuple[str | None, str | None]:
    """``(duration, started_at)`` of an alert active since ``active_at`` at ``now``."""
    started = parse_time(active_at)
    if started is None:
        return None, active_at or None
    if now is None:
        return None, active_at
    return format_duration((now - started).total_seconds()), active_at


def annotation_details(annotations: Mapping[str, str], *, extra: Sequence[str] = ()) -> list[str]:
    """The alert's details: its description and runbook URL, then ``extra`` lines."""
    details: list[str] = []
    description = " ".join((annotations.get("description") or "").split())
    summary = " ".join((annotations.get("summary") or annotations.get("message") or "").split())
    if description and description != summary:
        details.append(description)
    if annotations.get("runbook_url"):
        details.append(f"runbook_url: {annotations['runbook_url']}")
    return [*details, *extra]


def summary_of(annotations: Mapping[str, str]) -> str | None:
    """The ``summary`` annotation (or the older ``message``), on one line."""
    text = " ".join((annotations.get("summary") or annotations.get("message") or "").split())
    return text or None


def label_text(labels: Mapping[str, str]) -> dict[str, str]:
    """Label values as strings (APIs give strings; anything else is dropped)."""
    return {str(key): value for key, value in labels.items() if isinstance(value, str)}
