"""What the simulated model reads and writes: the conversation's tool results, and honest
claims with citations in several quoting styles (see ``simulated``).

Everything comes from the REAL tool results the product sent in the conversation (the
recorded invocation JSON of each tool message): the alerts, log lines and runbook blocks, their
``evidence_refs`` and invocation ids. Nothing here knows the demo pack.

Styles (each honest -- every quote is copied, every value stated in its role):

- ``strict``: whole ref texts quoted; claims restate the alert's fields and the newest line;
- ``prefixless``: the same claims; log lines quoted without their ``[time][LEVEL][service]``
  prefix, alerts by their fields only;
- ``natural``: the alert named while its (Chinese) summary is quoted; log lines described as a
  person would ("最新一条出现在 11:17"), quoted without prefix.

A negative observation (a topic the logs have nothing about) cites every no-hit log query of
the service, in every style -- the narrower ERROR-only one next to the broader ones.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

Style = Literal["strict", "prefixless", "natural"]
STYLES: tuple[Style, ...] = ("strict", "prefixless", "natural")
_PREFIX = re.compile(r"^\[[^\]]*\]\[[^\]]*\]\[[^\]]*\]\s*")
_NUMBER = re.compile(r"\d+")
_IDENTIFIER = re.compile(r"\b[A-Za-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b")


@dataclass(frozen=True)
class Cited:
    """One evidence entry of a tool result: where it is, its ref text and the raw entry."""

    tool_name: str
    invocation_id: int
    raw_path: str
    text: str
    entry: dict[str, Any]

    def binding(self, excerpt: str | None = None) -> dict[str, Any]:
        """A binding citing this entry (the whole ref text unless ``excerpt``)."""
        return {"tool_name": self.tool_name, "source_invocation_id": self.invocation_id,
                "raw_path": self.raw_path, "evidence_excerpt": excerpt or self.text}


@dataclass
class Seen:
    """What the conversation shows the model: the question, the plan and the tool results."""

    question: str
    plan: dict[str, Any]
    invocations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def language(self) -> str:
        return str(self.plan.get("language") or "zh")

    @property
    def services(self) -> list[str]:
        return [str(s) for s in self.plan.get("services") or []]

    @property
    def topics(self) -> list[str]:
        return [str(t) for t in self.plan.get("topics") or []]

    def keyword(self) -> str:
        """A searchable identifier the question names (HikariCP), else its first topic."""
        services = set(self.services)
        words = [w for w in _IDENTIFIER.findall(self.question) if w not in services]
        return words[0] if words else (self.topics[0] if self.topics else "")

    def cited(self, tool_name: str, list_key: str) -> list[Cited]:
        """Every ref of every successful call of ``tool_name`` under ``$.<list_key>``."""
        found: list[Cited] = []
        for invocation in self.invocations:
            output = invocation.get("output") or {}
            if invocation.get("tool_name") != tool_name or not output.get("success"):
                continue
            details = invocation.get("retrieval_details") or {}
            texts = {ref["raw_path"]: ref["text"] for ref in details.get("evidence_refs") or []}
            for index, entry in enumerate(output.get(list_key) or []):
                path = f"$.{list_key}[{index}]"
                if path in texts:
                    found.append(Cited(tool_name, int(invocation["invocation_id"]), path,
                                       texts[path], entry))
        return found

    def no_hit_log_queries(self, service: str) -> list[dict[str, Any]]:
        """The log queries about ``service`` that succeeded and returned nothing."""
        return [inv for inv in self.invocations if inv.get("tool_name") == "query_logs"
                and inv.get("arguments", {}).get("service") == service
                and (inv.get("output") or {}).get("success")
                and not (inv.get("output") or {}).get("logs")]


def read_task(text: str) -> tuple[str, dict[str, Any]]:
    """The question and the plan from the executor's task message."""
    question = ""
    for line in text.splitlines():
        if line.startswith("Question:"):
            question = line.partition(":")[2].strip()
            break
    start = text.find("{")
    plan: dict[str, Any] = {}
    if start >= 0:
        try:
            plan, _ = json.JSONDecoder().raw_decode(text[start:])
        except json.JSONDecodeError:
            plan = {}
    return question, plan


def relevant_alerts(seen: Seen) -> list[Cited]:
    """Alerts of the plan's services that the question is about (by name or topic)."""
    names = {str(n).lower() for n in seen.plan.get("alert_names") or []}
    found = []
    for cited in seen.cited("query_metrics", "alerts"):
        alert = cited.entry
        if seen.services and alert.get("service") not in seen.services:
            continue
        words = f"{alert.get('alert_name', '')} {alert.get('metric', '')}".lower()
        if str(alert.get("alert_name", "")).lower() in names or any(
                topic.split("_")[0] in words for topic in seen.topics):
            found.append(cited)
    return found


def relevant_lines(seen: Seen, service: str) -> list[Cited]:
    """The service's lines of the most common kind in the unfiltered-by-level queries (the
    lines a person would talk about), newest first, at most five."""
    lines = [c for c in seen.cited("query_logs", "logs") if c.entry.get("service") == service]
    kinds: dict[str, list[Cited]] = {}
    for cited in lines:
        kinds.setdefault(_NUMBER.sub("N", str(cited.entry.get("message", ""))), []).append(cited)
    if not kinds:
        return []
    biggest = max(kinds.values(), key=len)
    unique = {c.text: c for c in biggest}  # the same line from two queries is one line
    return sorted(unique.values(), key=lambda c: str(c.entry.get("timestamp")), reverse=True)[:5]


def alert_claim(cited: Cited, style: Style, language: str) -> tuple[str, dict[str, Any]]:
    """An alert's claim text and its binding."""
    a = cited.entry
    service, name, state = a.get("service"), a.get("alert_name"), a.get("state", "firing")
    details = [str(d) for d in a.get("details") or []]
    if style == "natural" and a.get("summary"):
        text = (f"{name} 告警正在触发：{a['summary']}" if language == "zh"
                else f"The {name} alert is firing: {a['summary']}")
        return text, cited.binding(str(a["summary"]))
    if language == "zh":
        text = (f"{service} 当前存在 {name} 告警（{state}）：当前值 {a.get('current')}，"
                f"阈值 {a.get('threshold')}，已持续 {a.get('duration')}")
        text += "".join(f"；{detail}" for detail in details) + "。"
    else:
        text = (f"{service} currently has a {state} {name} alert: current {a.get('current')}, "
                f"threshold {a.get('threshold')}, lasting {a.get('duration')}")
        text += "".join(f"; {detail}" for detail in details) + "."
    excerpt = cited.text.split("; ")[0] if style == "prefixless" else None
    return text, cited.binding(excerpt)


def lines_claim(lines: list[Cited], style: Style, language: str) -> tuple[str, list[dict[str, Any]]]:
    """A claim about log lines of one kind (newest first) and a binding per line."""
    newest = lines[0].entry
    service, level, message = newest.get("service"), newest.get("level"), newest.get("message")
    stamp = str(newest.get("timestamp"))
    if style == "natural":
        clock = stamp[11:16] if len(stamp) >= 16 else stamp
        text = (f"{service} 持续输出 {level} 级别日志，最新一条出现在 {clock}：{message}"
                if language == "zh" else
                f"{service} keeps logging {level} lines; the latest, at {clock}: {message}")
    else:
        text = (f"{service} 在 {stamp} 的 {level} 日志：{message}" if language == "zh"
                else f"{service} logged at {stamp} ({level}): {message}")
    bindings = [c.binding(_PREFIX.sub("", c.text) if style != "strict" else None) for c in lines]
    return text, bindings


def negative_claim(seen: Seen, service: str) -> dict[str, Any] | None:
    """"Nothing found" for the service, citing every no-hit log query about it."""
    queries = seen.no_hit_log_queries(service)
    if not queries:
        return None
    keyword = seen.keyword()
    text = (f"未检索到 {service} 的 {keyword} 相关日志" if seen.language == "zh"
            else f"No {keyword} logs were found for {service}")
    bindings = [{"tool_name": "query_logs", "source_invocation_id": inv["invocation_id"],
                 "raw_path": None,
                 "evidence_excerpt": "query_logs(" + ", ".join(
                     f"{k}={v}" for k, v in inv["arguments"].items()) + ") -> logs=[], total=0"}
                for inv in queries]
    return {"claim_type": "negative_observation", "claim_text": text,
            "evidence_bindings": bindings, "subject_services": [service],
            "subject_topics": seen.topics}


def honest_output(seen: Seen, style: Style) -> dict[str, Any]:
    """The executor output an honest model writes in ``style``."""
    claims: list[dict[str, Any]] = []
    for cited in relevant_alerts(seen):
        text, binding = alert_claim(cited, style, seen.language)
        claims.append(_claim(text, [binding], seen, str(cited.entry.get("service"))))
    for service in seen.services:
        lines = relevant_lines(seen, service)
        if lines:
            text, bindings = lines_claim(lines, style, seen.language)
            claims.append(_claim(text, bindings, seen, service))
        elif not any(c["subject_services"] == [service] for c in claims):
            negative = negative_claim(seen, service)
            if negative is not None:
                claims.append(negative)
    for number, claim in enumerate(claims[:2], start=1):
        claim["claim_id"] = f"claim-{number}"
    return {"claims": claims[:2], "hypotheses": [], "missing_info": [],
            "recommended_actions": []}


def _claim(text: str, bindings: list[dict[str, Any]], seen: Seen, service: str) -> dict[str, Any]:
    return {"claim_type": "observation", "claim_text": text, "evidence_bindings": bindings,
            "subject_services": [service], "subject_topics": seen.topics}
