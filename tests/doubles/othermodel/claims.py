"""The model's honest answer, written from the tool results it was sent.

Two wordings: ``strict`` mirrors the evidence's own labels (当前值 91%, current=91%); ``natural``
says it the way a person would (内存使用率目前为 91%，超过 85% 的阈值，持续约 15 分钟; "the newest
line at 11:17 says ..."; "P99 latency is 4.2 s against a 3 s threshold"). Quotes are honest in
several styles, drawn per binding: the whole ref text, a log message without its
``[time][LEVEL][service]`` prefix, a middle part (``current=91%, threshold=85%``), an ellipsis
quote that keeps the labels, the alert's own summary sentence.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from tests.doubles.othermodel.intent import Intent, topic_phrase
from tests.doubles.othermodel.reading import ToolResult

Binding = dict[str, Any]
ClaimDict = dict[str, Any]

WORDINGS = ("strict", "natural")
ALERT_QUOTES = ("whole", "middle", "ellipsis", "summary")
LOG_QUOTES = ("whole", "prefixless", "middle", "ellipsis")

_LOG_REF = re.compile(r"^\[(?P<ts>[^\]]+)\]\[(?P<level>[^\]]+)\]\[(?P<service>[^\]]+)\]\s*(?P<msg>.*)$",
                      re.DOTALL)
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*([A-Za-z%]*)")
_DURATION = re.compile(r"^(\d+)\s*([smhd])$")
_NEGATIONS = {"not", "no", "never", "none", "cannot", "without", "未", "没有", "无"}
_ZH_UNITS = {"s": "秒", "m": "分钟", "h": "小时", "d": "天"}
_EN_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
_USED_TOTAL = re.compile(r"(?P<label>[A-Za-z][\w ]*?)\s+(?P<used>\d+(?:\.\d+)?[A-Za-z]+)/"
                         r"(?P<total>\d+(?:\.\d+)?[A-Za-z]+)")


@dataclass(frozen=True)
class Writer:
    """Writes claims in one wording, drawing quote styles from ``rng``."""

    intent: Intent
    wording: str
    rng: random.Random
    quote: str | None = None        # a fixed quote style, else drawn per binding

    @property
    def zh(self) -> bool:
        return self.intent.language == "zh"

    # ------------------------------------------------------------------ quotes
    def alert_quote(self, ref: str, alert: dict[str, Any]) -> str:
        style = self.quote if self.quote in ALERT_QUOTES else self.rng.choice(ALERT_QUOTES)
        middle = re.search(r"current=[^,;]+, threshold=[^,;]+", ref)
        summary = str(alert.get("summary") or "")
        if style == "middle" and middle:
            return middle.group(0)
        if style == "summary" and summary and summary in ref:
            return summary
        if style == "ellipsis":
            segments = ref.split("; ")
            fields = segments[0].split(", ")
            if len(fields) >= 5:
                later = segments[1] if len(segments) > 2 else fields[-1]
                return f"{', '.join(fields[:4])} ... {later}"
        return ref

    def log_quote(self, ref: str) -> str:
        style = self.quote if self.quote in LOG_QUOTES else self.rng.choice(LOG_QUOTES)
        parsed = _LOG_REF.match(ref)
        message = parsed.group("msg") if parsed else ref
        if style == "prefixless":
            return message
        if style == "middle":
            pairs = re.search(r"\w+=\S+(?:, \w+=\S+)+", message)
            if pairs:
                return pairs.group(0)
            after = message.split(": ", 1)
            return after[1] if len(after) == 2 and len(after[1]) >= 12 else message
        if style == "ellipsis" and parsed:
            words = message.split(" ")
            if len(words) >= 4:
                cut = len(words) // 2
                # An honest shortening never leaves out a negation ("not available").
                negated = [i for i, word in enumerate(words[1:cut], 1)
                           if word.casefold().strip(",.") in _NEGATIONS]
                cut = negated[0] if negated else cut
                return f"[{parsed.group('ts')}][{parsed.group('level')}][{parsed.group('service')}] " \
                       f"{words[0]} ... {' '.join(words[cut:])}"
        return ref

    # ------------------------------------------------------------------ claims
    def alert_claim(self, result: ToolResult, index: int) -> ClaimDict:
        alert = result.output["alerts"][index]
        path = f"$.alerts[{index}]"
        ref = next(r["text"] for r in result.refs if r["raw_path"] == path)
        binding = {"tool_name": result.tool_name, "source_invocation_id": result.invocation_id,
                   "raw_path": path, "evidence_excerpt": self.alert_quote(ref, alert)}
        return {"claim_type": "observation", "claim_text": self.alert_text(alert),
                "evidence_bindings": [binding],
                "subject_services": [alert.get("service")],
                "subject_topics": [str(alert.get("metric") or "")] if self.rng.random() < 0.5 else []}

    def alert_text(self, alert: dict[str, Any]) -> str:
        service, name = alert.get("service"), alert.get("alert_name")
        state = str(alert.get("state") or "firing")
        current, threshold = str(alert.get("current") or ""), str(alert.get("threshold") or "")
        duration = str(alert.get("duration") or "")
        usage = next((m for d in alert.get("details") or [] if (m := _USED_TOTAL.search(str(d)))),
                     None)
        if self.wording == "strict":
            if self.zh:
                text = (f"{service} 存在 {name} 告警（{state}）：当前值 {current}，阈值 {threshold}，"
                        f"已持续 {duration}")
                return text + (f"；{usage.group(0)}" if usage else "")
            text = (f"{service} has a {state} {name} alert: current={current}, "
                    f"threshold={threshold}, duration={duration}")
            return text + (f"; {usage.group(0)}" if usage else "")
        cur, thr = _value(current), _value(threshold)
        minutes = _DURATION.match(duration)
        if self.zh:
            words = _metric_words_zh(alert, cur)
            text = f"{service} 的 {name} 告警正在触发，{words}目前为 {cur}，超过 {thr} 的阈值"
            if minutes:
                text += f"，持续约 {minutes.group(1)} {_ZH_UNITS[minutes.group(2)]}"
            if usage:
                text += f"，JVM 堆内存已用 {usage.group('used')}（共 {usage.group('total')}）"
            return text
        text = (f"{service} has a firing {name} alert: {_metric_words_en(alert)} is "
                f"{_spaced(cur)} against a {_spaced(thr)} threshold")
        if minutes:
            text += f", for about {minutes.group(1)} {_EN_UNITS[minutes.group(2)]}"
        if usage:
            text += f"; the JVM heap is using {usage.group('used')} of {usage.group('total')}"
        return text

    def logs_claim(self, result: ToolResult) -> ClaimDict:
        chosen = [result.refs[0]]
        first = _template(result.refs[0]["text"])
        chosen += [ref for ref in result.refs[1:] if _template(ref["text"]) != first][:1]
        bindings = [{"tool_name": result.tool_name, "source_invocation_id": result.invocation_id,
                     "raw_path": ref["raw_path"], "evidence_excerpt": self.log_quote(ref["text"])}
                    for ref in chosen]
        lines = [_LOG_REF.match(ref["text"]) for ref in chosen]
        service = next((line.group("service") for line in lines if line), self.intent.service)
        assert self.intent.log_ask is not None
        topic = topic_phrase(self.intent.log_ask, self.intent.language)
        messages = [line.group("msg") if line else ref["text"] for line, ref in zip(lines, chosen, strict=True)]
        times = [_hm(line.group("ts")) if line else "" for line in lines]
        if self.wording == "strict":
            text = (f"{service} 的日志中有{topic}相关记录：" + "；".join(messages) if self.zh else
                    f"{service} logs show {topic} lines: " + "; ".join(messages))
        elif self.zh:
            text = f"{service} 存在{topic}：最新一条日志出现在 {times[0]}，内容为 {messages[0]}"
            if len(messages) > 1:
                text += f"；{times[1]} 还有一条：{messages[1]}"
        else:
            text = f"{service} shows {topic}: the newest line at {times[0]} says {messages[0]}"
            if len(messages) > 1:
                text += f", and the line at {times[1]} says {messages[1]}"
        return {"claim_type": "observation", "claim_text": text, "evidence_bindings": bindings,
                "subject_services": [service], "subject_topics": []}

    def absent_logs_claim(self, empties: list[ToolResult]) -> ClaimDict:
        assert self.intent.log_ask is not None
        service = self.intent.service or "the service"
        topic = topic_phrase(self.intent.log_ask, self.intent.language)
        if self.wording == "strict":
            text = (f"未检索到 {service} 的{topic}相关日志" if self.zh else
                    f"No {topic} log lines were found for {service}")
        else:
            text = (f"{service} 没有{topic}的日志，几次查询都没有结果" if self.zh else
                    f"{service} shows no {topic}: the log searches for it came back empty")
        bindings = [{"tool_name": r.tool_name, "source_invocation_id": r.invocation_id,
                     "raw_path": None, "evidence_excerpt": self.empty_quote(r)} for r in empties]
        return {"claim_type": "negative_observation", "claim_text": text,
                "evidence_bindings": bindings, "subject_services": [service],
                "subject_topics": []}

    def absent_alert_claim(self, result: ToolResult) -> ClaimDict:
        service = self.intent.service or "the service"
        name = self.intent.alert_name or ("告警" if self.zh else "alert")
        text = (f"未发现 {service} 的 {name} 告警" if self.zh else
                f"No {name} alert is firing for {service}")
        return {"claim_type": "negative_observation", "claim_text": text,
                "evidence_bindings": [{"tool_name": result.tool_name,
                                       "source_invocation_id": result.invocation_id,
                                       "raw_path": None,
                                       "evidence_excerpt": self.empty_quote(result)}],
                "subject_services": [service], "subject_topics": []}

    def empty_quote(self, result: ToolResult) -> str:
        arguments = ", ".join(f"{k}={v}" for k, v in result.arguments.items())
        style = self.rng.choice(("call", "message", "lists"))
        if style == "message" and result.output.get("message"):
            return str(result.output["message"])
        if style == "lists":
            return f"logs=[], total={result.output.get('total', 0)}"
        return f"{result.tool_name}({arguments}) returned nothing (total=0)"


def honest_claims(writer: Writer, results: list[ToolResult]) -> list[ClaimDict]:
    """The claims an honest model writes from ``results``: the alert asked about, the log lines
    asked about, or that nothing was found (citing every empty search)."""
    intent = writer.intent
    claims: list[ClaimDict] = []
    metrics = [r for r in results if r.tool_name == "query_metrics"]
    logs = [r for r in results if r.tool_name == "query_logs"]
    if intent.wants_alert and metrics:
        hit = next(((r, i) for r in reversed(metrics)
                    for i, alert in enumerate(r.output.get("alerts") or [])
                    if _asked_alert(intent, alert)), None)
        if hit is not None:
            claims.append(writer.alert_claim(*hit))
        elif all(r.empty for r in metrics):
            claims.append(writer.absent_alert_claim(metrics[-1]))
    if intent.log_ask and logs:
        found = next((r for r in logs if r.refs and r.tool_name == "query_logs"), None)
        if found is not None:
            claims.append(writer.logs_claim(found))
        else:
            claims.append(writer.absent_logs_claim([r for r in logs if r.empty]))
    for number, claim in enumerate(claims, 1):
        claim["claim_id"] = f"claim-{number}"
    return claims


def _asked_alert(intent: Intent, alert: dict[str, Any]) -> bool:
    if intent.alert_name:
        return str(alert.get("alert_name", "")).casefold() == intent.alert_name.casefold()
    if intent.service and alert.get("service") != intent.service:
        return False
    metric = str(alert.get("metric") or "").casefold()
    return intent.alert_kind is None or {"cpu": "cpu", "memory": "memory",
                                         "latency": "latency"}[intent.alert_kind] in metric


def _value(text: str) -> str:
    """``P99 4.2s`` -> ``4.2s``; ``91%`` -> ``91%``."""
    found = _NUMBER.search(text.replace("P99", "").replace("p99", ""))
    return f"{found.group(1)}{found.group(2)}" if found else text


def _spaced(value: str) -> str:
    """``4.2s`` -> ``4.2 s`` (percent stays ``91%``)."""
    found = _NUMBER.fullmatch(value)
    if found and found.group(2) and found.group(2) != "%":
        return f"{found.group(1)} {found.group(2)}"
    return value


def _metric_words_zh(alert: dict[str, Any], current: str) -> str:
    """The words the alert's own summary puts before the current value (内存使用率)."""
    summary = str(alert.get("summary") or "")
    service = str(alert.get("service") or "")
    number = _NUMBER.search(current)
    at = summary.find(number.group(1)) if number else -1
    if summary.startswith(service) and at > len(service):
        return summary[len(service):at].strip()
    return str(alert.get("metric") or "指标")


def _metric_words_en(alert: dict[str, Any]) -> str:
    """``http_p99_latency_seconds`` -> ``P99 latency``; ``cpu_usage_percent`` -> ``CPU usage``."""
    words = [w for w in str(alert.get("metric") or "value").split("_")
             if w not in {"percent", "seconds", "bytes", "ms", "http", "total", "ratio"}]
    return " ".join(w.upper() if w in {"cpu", "p99", "p95", "jvm"} else w for w in words)


def _hm(timestamp: str) -> str:
    found = re.search(r"T(\d{2}:\d{2})", timestamp)
    return found.group(1) if found else timestamp


def _template(text: str) -> str:
    parsed = _LOG_REF.match(text)
    return re.sub(r"\d+", "#", parsed.group("msg") if parsed else text)
