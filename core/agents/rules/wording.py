"""The rules executor's sentences, in Chinese and English.

Every sentence states only what its bound excerpts hold: alert fields copied from the alert
(``current``, ``threshold``, ``duration``, ``details``), log phrases quoted from the lines
(see ``evidence.render_logs``), and for an absence, which queries returned nothing. Topic
labels come from ``core.language.lexicon``; any label word carrying a digit (``5xx``) is dropped, since
a number in a claim must be a number in the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.contracts import Alert, Invocation, Language
from core.language.lexicon import TOPICS

_DIGIT_WORD_RE = re.compile(r"\s*\S*\d\S*")


def topic_label(topic: str | None, language: Language) -> str:
    """The topic's label in the language, without words that carry digits."""
    if topic is None or topic not in TOPICS:
        return ""
    entry = TOPICS[topic]
    label = entry.label_zh if language == "zh" else entry.label_en
    return _DIGIT_WORD_RE.sub("", label).strip()


def _zh_spaced(word: str) -> str:
    """A label inside Chinese text, with a space on any side where it meets a Latin letter."""
    if not word:
        return ""
    head = " " if word[0].isascii() else ""
    tail = " " if word[-1].isascii() else ""
    return f"{head}{word}{tail}"


def alert_sentence(alert: Alert, language: Language) -> str:
    """``order-service 当前存在 HighMemoryUsage 告警（firing）：当前值 91%，阈值 85%，已持续 15m；...``"""
    if language == "zh":
        fields = [f"当前值 {alert.current}" if alert.current else "",
                  f"阈值 {alert.threshold}" if alert.threshold else "",
                  f"已持续 {alert.duration}" if alert.duration else ""]
        # An alert with no service label (Watchdog, an aggregate such as RedisMissingMaster)
        # is said without a subject, never with an empty one.
        head = f"{alert.service + ' ' if alert.service else ''}当前存在 {alert.alert_name} 告警（{alert.state}）"
        body = "，".join(field for field in fields if field)
        tail = "".join(f"；{detail}" for detail in alert.details)
        return f"{head}{'：' + body if body else ''}{tail}。"
    fields = [f"current {alert.current}" if alert.current else "",
              f"threshold {alert.threshold}" if alert.threshold else "",
              f"for {alert.duration}" if alert.duration else ""]
    head = (f"{alert.service} has a {alert.state} {alert.alert_name} alert" if alert.service
            else f"There is a {alert.state} {alert.alert_name} alert")
    body = ", ".join(field for field in fields if field)
    tail = "".join(f"; {detail}" for detail in alert.details)
    return f"{head}{': ' + body if body else ''}{tail}."


def logs_sentence(service: str | None, topic: str | None, phrases: Sequence[str],
                  language: Language, *, after_alert: bool) -> str:
    """The log phrases, as a sentence of their own or following an alert sentence."""
    label = topic_label(topic, language)
    if language == "zh":
        quoted = "；".join(f"「{phrase}」" for phrase in phrases)
        if after_alert:
            return f"相关日志：{quoted}。"
        subject = f"与 {service} 相关的日志中" if service else "日志中"
        return f"{subject}存在{_zh_spaced(label)}相关记录：{quoted}。"
    quoted = "; ".join(f'"{phrase}"' for phrase in phrases)
    if after_alert:
        return f"Related logs: {quoted}."
    subject = f"Logs about {service}" if service else "The logs"
    return f"{subject} show records{' of ' + label if label else ''}: {quoted}."


def absence_sentence(service: str | None, topic: str | None, invocations: Sequence[Invocation],
                     language: Language) -> str:
    """``未检索到 inventory-service 的数据库连接池相关记录：query_logs 未返回记录。``"""
    label = topic_label(topic, language)
    calls = list(dict.fromkeys(_call_name(invocation) for invocation in invocations))
    if language == "zh":
        subject = f" {service} 的" if service else ""
        every = "均" if len(invocations) > 1 else ""
        return f"未检索到{subject}{_zh_spaced(label)}相关记录：{'、'.join(calls)} {every}未返回记录。"
    subject = f" for {service}" if service else ""
    return (f"No records{' of ' + label if label else ''} were found{subject}: "
            f"{', '.join(calls)} returned nothing.")


def alert_absence_sentence(alert_name: str | None, state: str | None, service: str | None,
                           invocations: Sequence[Invocation], language: Language) -> str:
    """``No firing KubeNodeNotReady alert was found: query_metrics(KubeNodeNotReady,
    state=firing) returned nothing.`` (the state when a call was narrowed to one)."""
    calls = list(dict.fromkeys(_call_name(invocation) for invocation in invocations))
    if language == "zh":
        parts = [*([f"{service} 的"] if service else []), *([f"{state} 状态的"] if state else []),
                 *([alert_name] if alert_name else [])]
        every = "均" if len(invocations) > 1 else ""
        return f"未检索到 {' '.join(parts)} 告警：{'、'.join(calls)} {every}未返回记录。"
    words = " ".join(word for word in (state, alert_name) if word)
    where = f" for {service}" if service else ""
    return f"No {words} alert was found{where}: {', '.join(calls)} returned nothing."


def _call_name(invocation: Invocation) -> str:
    """``query_metrics(HighCPUUsage, state=firing)``: the tool, the alert it asked for and the
    state, level or time window it was narrowed to, if any (an absence among firing alerts,
    among lines at WARN or above, or in the last hour, says so)."""
    arguments = invocation.arguments
    alert_name = arguments.get("alert_name")
    shown = ", ".join([*([str(alert_name)] if alert_name else []),
                       *(f"{key}={arguments[key]}" for key in ("state", "level", "since", "until")
                         if arguments.get(key))])
    return f"{invocation.tool_name}({shown})" if shown else invocation.tool_name


def unknown_subject_note(name: str, is_alert: bool, world_name: str, has: Sequence[str],
                         language: Language) -> str:
    """A gap: the service (or alert) is nowhere in the data; for a service, what the data has
    instead (an alert's absence is searched and said by a claim; other alerts are not listed,
    they are not what was asked)."""
    shown = ", ".join(has[:12]) + (" …" if len(has) > 12 else "")
    if language == "zh":
        if is_alert:
            return f"{world_name} 的数据中没有名为 {name} 的告警。"
        where = f"数据中的服务：{shown}" if has else "数据中没有任何服务"
        return f"{name} 不在 {world_name} 的数据中（{where}）。"
    if is_alert:
        return f"The data of {world_name} has no alert named {name}."
    where = f"its services: {shown}" if has else "it has no services"
    return f"{name} is not in the data of {world_name} ({where})."


def check_name_action(name: str, is_alert: bool, language: Language) -> str:
    """An evidence-gathering step for a name the data does not know."""
    if language == "zh":
        what = "告警名" if is_alert else "服务名"
        return f"确认 {name} 的{what}是否正确，以及是否已接入监控与日志采集。"
    return f"Check that {name} is the right name and that it is monitored and its logs collected."


def runbook_action(title: str, language: Language) -> str:
    """An evidence-gathering step pointing at a runbook section (what to check, not a fact)."""
    if language == "zh":
        return f"按 runbook「{title}」列出的检查项继续收集证据。"
    return f'Follow the checks of runbook "{title}" to gather more evidence.'


def rule_action(title: str, language: Language) -> str:
    """An evidence-gathering step pointing at an alert's rule (what it checks, its runbook)."""
    if language == "zh":
        return f"对照告警规则「{title}」（表达式、持续时间、说明与 runbook_url）检查相关指标，收集证据。"
    return (f'Check the metrics the rule "{title}" reads (its expr, for, description and '
            f"runbook_url) to gather evidence.")


def runbook_reason(language: Language) -> str:
    """Why a runbook is cited: it says what to look for, not what is happening."""
    if language == "zh":
        return "runbook 只说明要查什么，不代表当前状态。"
    return "A runbook says what to look for; it is not evidence of the current state."
