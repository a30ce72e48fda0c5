"""What a model reads from an SRE question: services, the alert asked about, the logs asked
about, what it is told to leave alone, and the language to answer in.

A model knows a few things no data tells it (HikariCP is a connection pool, 慢请求 are slow
requests); the table below is that knowledge, kept small. Everything else comes from the
question's own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.language.chars import HAN

Language = Literal["zh", "en"]
LogAsk = Literal["pool", "slow"]
AlertKind = Literal["cpu", "memory", "latency"]

# Words after which a question lists what NOT to look at.
_EXCLUDE = re.compile(r"不要分析|不要看|不要|忽略|排除|do not|don't|ignore|except|excluding",
                      re.IGNORECASE)
_NARROW = re.compile(r"只确认|只排查|只看|只回答|是否存在|是否真实存在|only confirm|only check|"
                     r"^\s*(?:does|is there|do)\b", re.IGNORECASE)
_SERVICE = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-service\b")
_CAMEL = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][A-Za-z]*)+\b")
_CJK = re.compile(f"[{HAN}]")

# A model's background knowledge: which words mean which log topic or alert kind.
_LOG_WORDS: dict[LogAsk, tuple[str, ...]] = {
    "pool": ("hikaricp", "连接池", "connection pool"),
    "slow": ("慢请求", "slow request"),
}
_ALERT_WORDS: dict[AlertKind, tuple[str, ...]] = {
    "cpu": ("cpu",),
    "memory": ("内存", "memory"),
    "latency": ("slowresponse", "响应时间", "latency"),
}
_NOT_ALERTS = {"hikaricp"}


@dataclass(frozen=True)
class Intent:
    """The question as the model understood it."""

    question: str
    language: Language
    services: tuple[str, ...]
    excluded: tuple[str, ...]
    alert_name: str | None
    alert_kind: AlertKind | None
    wants_alert: bool
    log_ask: LogAsk | None
    narrow: bool

    @property
    def service(self) -> str | None:
        return self.services[0] if self.services else None


def read_question(question: str) -> Intent:
    """The model's reading of ``question``."""
    cut = _EXCLUDE.search(question)
    head = question[:cut.start()] if cut else question
    tail = question[cut.end():] if cut else ""
    lowered = head.casefold()
    names = [name for name in _CAMEL.findall(head) if name.casefold() not in _NOT_ALERTS]
    kind = next((k for k, words in _ALERT_WORDS.items() if any(w in lowered for w in words)),
                None)
    log_ask = next((k for k, words in _LOG_WORDS.items() if any(w in lowered for w in words)),
                   None)
    wants_alert = bool(names) or "告警" in head or "alert" in lowered
    excluded = tuple(part.strip() for part in re.split(r"[、,，或和]|\bor\b|\band\b", tail)
                     if part.strip(" 。.?？"))
    return Intent(question=question, language="zh" if _CJK.search(question) else "en",
                  services=tuple(dict.fromkeys(_SERVICE.findall(head))), excluded=excluded,
                  alert_name=names[0] if names else None, alert_kind=kind,
                  wants_alert=wants_alert, log_ask=log_ask,
                  narrow=bool(_NARROW.search(question)))


def topic_phrase(ask: LogAsk, language: Language) -> str:
    """How the model names what it looked for in the logs."""
    return {("pool", "zh"): "HikariCP 连接池耗尽", ("pool", "en"): "HikariCP connection pool exhaustion",
            ("slow", "zh"): "慢请求", ("slow", "en"): "slow request"}[(ask, language)]


def search_words(ask: LogAsk, language: Language) -> tuple[str, ...]:
    """What the model types into a log search for ``ask`` (several ways)."""
    if ask == "pool":
        return ("HikariCP", "HikariCP 连接池", "connection pool") if language == "en" else (
            "HikariCP", "连接池耗尽", "HikariCP 连接池")
    return ("slow request", "慢请求") if language == "en" else ("慢请求", "慢请求 响应时间")


def search_topic(ask: LogAsk) -> str:
    """The tool's own topic name for ``ask`` (read from the tool's description)."""
    return {"pool": "connection_pool", "slow": "latency"}[ask]
