"""Diagnosis concepts beyond the lexicon's topics, and the Chinese words real logs say in English.

The lexicon (``core.language.lexicon``) names the demo world's topics (CPU, HikariCP, Redis ...). Logs
nobody here wrote talk about connections, timeouts, sessions, crashes, permissions ... in their
own (mostly English) words. Each ``Concept`` below is one small bilingual synonym set:

- ``asks``: how a question names it, in Chinese and English (an English word also matches its
  inflections: ``connect`` matches "connections", "connecting");
- ``terms``: phrases log lines use for it, searched as whole words (``query_logs`` ``terms``,
  ``match="any"``) -- the words of trouble, not every mention ("connection refused", not
  "connection");
- ``stems``: word parts searched as substrings (``exception`` is in ``java.io.IOException``);
- ``qualifier``: the concept says *that* something is wrong, not *what* (error, exception,
  failure, problem). Asked with another subject it only qualifies it ("连接异常" is the
  connection concept); asked on its own it is searched by ``level`` (a minimum) and its terms;
  a ``broad`` one ("what problems does X have?") asks about the service as a whole: its alerts
  and its lines at ``level`` or above;
- ``succeeded``: the concept a mention of this one names when its clause says it went right
  (``core.language.success``): "failed logins" are ``login``, "logged in successfully", "登录成功" and "who
  logged in?" are ``signin``. Such a concept has no question words of its own.

``TRANSLATIONS`` maps Chinese question words to the English word stems logs use ("任务" ->
``task``), for questions whose subject is not a concept ("spark-executor 是否有任务完成").

Everything here is vocabulary, not answers: it says which words to search, never what is true.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from core.language.alternation import Alternative, FirstCharAlternation
from core.language.chars import ASCII_WORD_CHARS
from core.language.lexicon import phrase_pattern
from core.language.success import success_words
from core.language.text import normalize


@dataclass(frozen=True)
class Concept:
    """One diagnosis concept: how questions name it, how logs say it (see the module doc)."""

    name: str
    label_zh: str
    label_en: str
    asks: tuple[str, ...]
    terms: tuple[str, ...] = ()
    stems: tuple[str, ...] = ()
    qualifier: bool = False
    level: str | None = None
    broad: bool = False
    # The level whose lines report it without its words (a line at ERROR is a failure; an
    # exception or a timeout is not said by a level): what a search falls back to.
    reported_at: str | None = None
    succeeded: str | None = None


_CONCEPT_TABLE: tuple[Concept, ...] = (
    # ------------------------------------------------------------ qualifiers
    Concept("error", "错误", "errors",
            ("error", "errors", "errored", "错误", "报错", "出错"),
            stems=("error",), qualifier=True, level="ERROR"),
    Concept("exception", "异常", "exceptions",
            ("exception", "exceptions", "throw", "thrown", "throws", "threw", "stack trace",
             "stacktrace", "traceback",
             "异常", "堆栈", "抛出"),
            terms=("traceback", "stack trace", "stacktrace", "throwable"), stems=("exception",),
            qualifier=True),
    Concept("failure", "失败", "failures",
            ("fail", "fails", "failed", "failing", "failure", "failures", "unsuccessful", "失败",
             "不成功"),
            terms=("unable to", "could not", "couldn't", "cannot", "unsuccessful"), stems=("fail",),
            qualifier=True, reported_at="ERROR"),
    Concept("problem", "问题", "problems",
            ("problem", "problems", "issue", "issues", "trouble", "wrong", "abnormal", "anomaly",
             "anomalies", "unhealthy", "问题", "故障", "不正常", "异动", "毛病"),
            qualifier=True, level="WARN", broad=True),
    # ------------------------------------------------------------ what is wrong
    Concept("connection", "连接异常", "connection problems",
            ("connection", "connections", "connect", "connecting", "connectivity", "disconnect",
             "disconnected", "reconnect", "连接", "连不上", "断连", "断开", "掉线", "连接断开", "建连"),
            terms=("connection refused", "connection reset", "connection broken", "connection closed",
                   "connection lost", "lost connection", "connection timed out", "connection error",
                   "connection failed", "failed to connect", "could not connect", "unable to connect",
                   "cannot connect", "retrying connect", "connectexception", "disconnected",
                   "broken pipe", "no route to host", "cannot open channel", "connection aborted")),
    Concept("network", "网络异常", "network problems",
            ("network", "networking", "unreachable", "reachable", "reach", "reachability", "dns",
             "route", "routing", "packet loss",
             "网络", "不可达", "丢包", "路由", "域名解析"),
            terms=("no route to host", "noroutetohostexception", "network is unreachable",
                   "host is unreachable", "unreachable", "unknownhostexception", "unknown host",
                   "unresolved address", "name resolution", "sockettimeoutexception",
                   "socket timeout", "connection reset", "broken pipe", "packet loss",
                   "network error")),
    Concept("timeout", "超时", "timeouts",
            ("timeout", "timeouts", "time out", "timed out", "超时"),
            terms=("timed out", "time out", "timeout of", "timeoutexception", "sockettimeoutexception",
                   "deadline exceeded", "read timeout", "connect timeout", "request timeout",
                   "timeout exceeded", "timeout expired", "timeout exception")),
    Concept("session", "会话异常", "session problems",
            ("session", "sessions", "会话"),
            terms=("session expired", "expiring session", "session expiration", "expired session",
                   "session timeout", "session timed out", "sessionexpiredexception",
                   "close of session", "closing session", "session closed", "session termination",
                   "invalid session", "session lost", "session moved")),
    Concept("expired", "过期", "expiry",
            ("expire", "expired", "expires", "expiring", "expiry", "expiration", "过期", "失效",
             "到期"),
            terms=("expired", "expiring", "expire", "expires", "expiration", "expiry")),
    Concept("crash", "崩溃", "crashes",
            ("crash", "crashed", "crashes", "crashing", "panic", "segfault", "core dump", "崩溃",
             "宕机", "挂了", "挂掉", "闪退"),
            terms=("crash", "crashed", "crashing", "crashloopbackoff", "segfault",
                   "segmentation fault", "core dumped", "core dump", "coredump", "core file",
                   "generating core", "panic", "fatal error", "aborted", "exited unexpectedly",
                   "unexpected exception causing shutdown")),
    Concept("killed", "被杀", "killed processes",
            ("kill", "killed", "killing", "sigkill", "被杀", "杀掉", "杀死", "被kill"),
            terms=("killed", "killing", "kill", "sigkill", "sigterm", "killed process",
                   "terminated by signal", "oom-kill", "oomkilled")),
    # "log in" is also "log" (a service writing lines, or the noun) before "in" + when or where:
    # "what errors did payments log in the last hour?", "what did nginx log in production?",
    # "errors logged in the past day", "an ERROR log in zookeeper" are not about logins. So a
    # wording ending in "in" (``_LOG_IN``) names login unless "in" is followed by a time or place
    # phrase -- ``_IN_WHEN_OR_WHERE``: "the ...", "past", "previous", "production", "prod",
    # "staging", a number; or a service the question names (``named_before_a_place``) -- and
    # even then it does after "to" or a negation, a person signing in ("failed to log in the last
    # hour", "couldn't log in the past day"). Otherwise it is the phrasal verb: "users could not
    # log in", "log in attempts", "who logged in as root", "log in this morning". "log into" is
    # always login ("log into the console").
    Concept("login", "登录认证失败", "failed logins",
            ("login", "logins", "log in", "logged in", "log into", "logged into", "logon",
             "sign in", "signed in", "authentication", "authenticate", "auth", "password", "credentials",
             "登录", "登陆", "认证", "鉴权", "密码"),
            terms=("failed password", "authentication failure", "authentication failed",
                   "invalid user", "login failed", "failed login", "login incorrect",
                   "invalid password", "bad password", "auth failed", "invalid credentials",
                   "access denied", "permission denied", "unauthorized", "status: 401"),
            succeeded="signin"),
    # Logins that went right: what sshd ("Accepted password for alice from ...", "Accepted
    # publickey ...", PAM's "session opened for user ...") and other software write for them.
    # Named only through ``login`` (its ``succeeded``): "successful logins", "登录成功".
    # Not "accepted" alone: ZooKeeper accepts socket connections.
    Concept("signin", "登录成功", "successful logins", (),
            terms=("accepted password", "accepted publickey", "accepted keyboard-interactive",
                   "accepted gssapi-with-mic", "accepted hostbased",
                   "session opened for user", "login successful", "successful login",
                   "login succeeded", "logged in successfully", "successfully logged in",
                   "authenticated successfully", "successfully authenticated",
                   "authentication succeeded", "authentication successful", "successful authentication",
                   "logon successful", "successfully logged on", "ok login")),
    Concept("denied", "权限拒绝", "permission denied",
            ("denied", "permission", "permissions", "forbidden", "unauthorized", "unauthorised",
             "authorization", "access denied", "权限", "无权限", "拒绝访问", "授权"),
            terms=("permission denied", "access denied", "denied", "forbidden", "unauthorized",
                   "not authorized", "authentication failed", "auth failed",
                   "accesscontrolexception", "securityexception", "status: 401", "status: 403",
                   "invalid credentials", "invalid token")),
    Concept("refused", "拒绝", "refusals",
            ("refuse", "refused", "reject", "rejected", "拒绝", "被拒"),
            terms=("refused", "refusing", "rejected", "rejecting", "reject")),
    Concept("retry", "重试", "retries",
            ("retry", "retries", "retrying", "retried", "重试"),
            terms=("retry", "retrying", "retries", "retried", "will retry")),
    Concept("shutdown", "停止", "shutdowns",
            ("shutdown", "shut down", "shutting down", "stop", "stopped", "stopping", "exit",
             "exited", "exiting", "terminate", "terminated", "terminating", "close", "closed",
             "closing", "关闭", "停止", "退出", "终止", "停机"),
            terms=("shutdown", "shutting down", "shut down", "stopped", "stopping", "exited",
                   "exiting", "terminated", "terminating", "exit code", "goodbye")),
    Concept("down", "宕机或下线", "unavailability",
            # Not a bare 挂: 挂载 is mounting, 挂起 suspending (挂了 / 挂掉 are crashes).
            ("down", "offline", "unavailable", "not available", "unreachable target", "不可用", "离线",
             "下线"),
            terms=("is down", "went down", "unavailable", "not running", "offline", "not available",
                   "no longer available", "is not reachable")),
    Concept("leader", "选主", "leader election",
            ("leader", "election", "elect", "quorum", "选举", "选主", "领导者", "主节点", "脑裂"),
            terms=("leader election", "election", "new leader", "no leader", "leader lost",
                   "looking", "quorum", "leaderless", "not leader")),
    Concept("heartbeat", "心跳", "heartbeats",
            ("heartbeat", "heartbeats", "心跳"),
            terms=("heartbeat", "heartbeats", "missed heartbeat", "heartbeat timeout",
                   "lost heartbeat", "heartbeat failed")),
    Concept("corrupt", "数据损坏", "corruption",
            ("corrupt", "corrupted", "corruption", "checksum", "损坏", "校验"),
            terms=("corrupt", "corrupted", "corruption", "checksum", "checksumexception",
                   "bad block", "bad datanode", "missing block")),
    Concept("quota", "配额限制", "limits and quotas",
            ("quota", "quotas", "limit", "limits", "throttle", "throttled", "rate limit", "配额",
             "限流", "上限"),
            terms=("quota", "quota exceeded", "throttled", "throttling", "rate limit",
                   "limit exceeded", "too many requests", "status: 429")),
    Concept("certificate", "证书", "certificates",
            ("certificate", "certificates", "cert", "tls", "ssl", "x509", "证书"),
            terms=("certificate", "ssl", "tls", "x509", "handshake", "sslexception")),
    Concept("deadlock", "死锁", "deadlocks",
            ("deadlock", "deadlocks", "死锁"),
            terms=("deadlock", "deadlocked", "deadlock detected")),
)

CONCEPTS: dict[str, Concept] = {concept.name: concept for concept in _CONCEPT_TABLE}

# Chinese question words -> the English stems logs use for them (alternatives, most common
# first). Only for words that are not a topic or a concept: those are searched as such.
TRANSLATIONS: dict[str, tuple[str, ...]] = {
    "任务": ("task",), "作业": ("job",), "完成": ("finish", "complet", "succe"),
    "成功": ("success", "succe"), "实例": ("instance",), "虚拟机": ("vm", "instance"),
    "启动": ("start", "spawn", "boot", "launch"), "删除": ("delet", "remov"), "创建": ("creat",), "块": ("block",),
    "数据块": ("block",), "副本": ("replica",), "节点": ("node",), "容器": ("container",),
    "租约": ("lease",), "续约": ("renew",), "续租": ("renew",), "请求": ("request",),
    "响应": ("respons",), "镜像": ("image",), "调度": ("schedul",), "分配": ("allocat", "assign"),
    "写入": ("writ",), "读取": ("read",), "同步": ("sync",), "注册": ("regist",),
    "令牌": ("token",), "客户端": ("client",), "服务器": ("server",), "端口": ("port",),
    "地址": ("address",), "文件": ("file",), "目录": ("director",), "进程": ("process",),
    "广播": ("broadcast",), "分区": ("partition",), "阶段": ("stage",), "执行器": ("executor",),
    "驱动": ("driver",), "应用": ("application",), "尝试": ("attempt",), "提交": ("commit", "submit"),
    "迁移": ("migrat",), "快照": ("snapshot",), "检查点": ("checkpoint",), "通知": ("notification",),
    "事件": ("event",), "电源": ("power",), "接收": ("receiv",), "发送": ("send", "sent"),
    "变量": ("variable",), "缓冲": ("buffer",), "清理": ("clean",), "资源": ("resource",),
    "心跳": ("heartbeat",), "用户": ("user",), "锁": ("lock",), "证书": ("certificate",),
    "丢失": ("lost", "missing"), "失联": ("lost", "unreachable"), "状态码": ("status",),
    "耗时": ("took", "elapsed"), "销毁": ("destroy",), "挂载": ("mount",),
    "卸载": ("unmount", "uninstall", "unload"), "扩容": ("scal", "expand", "resiz"),
    "缩容": ("scal", "shrink"), "备份": ("backup",), "恢复": ("recover", "restor"),
    "回滚": ("rollback", "revert"), "部署": ("deploy",), "升级": ("upgrad",),
    "降级": ("downgrad", "degrad"), "过载": ("overload",), "阻塞": ("blocked", "blocking"),
    "卡住": ("stuck", "hang", "hung"), "泄漏": ("leak",), "泄露": ("leak",), "溢出": ("overflow",),
    "重连": ("reconnect",), "重传": ("retransmi",), "队列": ("queue",), "主机": ("host",),
    "网关": ("gateway",), "负载": ("load",), "均衡": ("balanc",), "存储": ("storage",),
    "事务": ("transaction",), "索引": ("index",), "下载": ("download",), "上传": ("upload",),
    "异步": ("async",), "复制": ("replicat", "copy", "copied"), "分片": ("shard", "split"),
    "密钥": ("key",), "加密": ("encrypt",), "解密": ("decrypt",), "注销": ("logout", "unregist"),
    "服务端": ("server",), "超限": ("exceed",), "数据": ("data",), "路径": ("path",),
    "配置": ("config",), "参数": ("param", "argument"), "版本": ("version",), "集群": ("cluster",),
}

_INFLECTION = r"(?:s|es|ed|d|ing)?"

# The login wordings that end in "in", where "in" may open a time or place instead (see the
# login concept): what follows "in" then, and what before "log" makes it a person's verb anyway.
_LOG_IN = frozenset({"log in", "logged in"})
_IN_WHEN_OR_WHERE = r"\s+(?:(?:the|past|previous|production|prod|staging)(?![a-z0-9])|\d)"
_PERSON_BEFORE = r"(?:(?<=(?<![a-z0-9])to )|(?<=not )|(?<=n't )|(?<=n\u2019t ))"


def _ask_parts(word: str) -> tuple[str, str, str]:
    """A question word's regex as (prefix, body, suffix): ASCII words whole (with inflections),
    Chinese as a substring; a ``_LOG_IN`` wording not before a time or place phrase unless a
    person's "to"/negation precedes it."""
    normalized = " ".join(normalize(word).split())
    body = r"[\s_\-]+".join(re.escape(part) for part in normalized.split())
    if normalized[:1] in ASCII_WORD_CHARS:
        prefix = r"(?<![a-z0-9])"
        if normalized in _LOG_IN:
            prefix += rf"(?:{_PERSON_BEFORE}|(?!{body}{_IN_WHEN_OR_WHERE}))"
        return prefix, body, rf"{_INFLECTION}(?![a-z0-9])"
    return "", body, ""


def _ask_owners() -> dict[str, str]:
    """Each ask (normalised, single spaces) and the concept it names; an ask naming two is an
    error."""
    owner: dict[str, str] = {}
    for concept in _CONCEPT_TABLE:
        for word in concept.asks:
            key = " ".join(normalize(word).split())
            if owner.setdefault(key, concept.name) != concept.name:
                raise ValueError(f"ask {word!r} belongs to {owner[key]} and {concept.name}")
    return owner


@lru_cache(maxsize=1)
def _asks_index() -> tuple[FirstCharAlternation, dict[str, str]]:
    """Every ask as one alternation (longest first, so "连接断开" wins over "连接"), compiled
    per first character as texts need it, and the owner of each named group."""
    owner = _ask_owners()
    ordered = sorted(owner, key=len, reverse=True)
    alternatives = []
    for i, word in enumerate(ordered):
        prefix, body, suffix = _ask_parts(word)
        alternatives.append(Alternative(word[0], f"(?P<a{i}>{body})", prefix, suffix))
    matcher = FirstCharAlternation(alternatives, word_guard=True)
    return matcher, {f"a{i}": owner[word] for i, word in enumerate(ordered)}


@dataclass(frozen=True)
class ConceptMention:
    """One concept named in normalised text: ``text[start:end]``."""

    start: int
    end: int
    concept: str


def _worded_mentions(normalized_text: str) -> list[ConceptMention]:
    """Each mention as its words name it, before its clause says whether it went right."""
    matcher, owners = _asks_index()
    return [ConceptMention(m.start(), m.end(), owners[m.lastgroup or ""])
            for m in matcher.finditer(normalized_text)]


def concept_mentions(normalized_text: str) -> list[ConceptMention]:
    """Every non-overlapping concept mention in text already passed through ``normalize``; a
    mention its clause says went right names the concept's ``succeeded`` one ("登录成功": signin)."""
    return [_in_its_sense(normalized_text, mention) for mention in _worded_mentions(normalized_text)]


def _in_its_sense(normalized_text: str, mention: ConceptMention) -> ConceptMention:
    """The mention as its clause reads it: its ``succeeded`` concept when the clause says it went
    right, spanning the success word next to it too ("登录成功", "successful logins": the label's
    words are all the concept's, so a sentence naming it says nothing else)."""
    succeeded = CONCEPTS[mention.concept].succeeded
    words = success_words(normalized_text, mention.start, mention.end) if succeeded else None
    if succeeded is None or words is None:
        return mention
    start, end = mention.start, mention.end
    if words[1] <= start and not normalized_text[words[1]:start].strip():
        start = words[0]
    elif words[0] >= end and not normalized_text[end:words[0]].strip():
        end = words[1]
    return ConceptMention(start, end, succeeded)


def named_before_a_place(normalized_text: str, mention: ConceptMention) -> bool:
    """Whether ``mention`` still names its concept when a place follows it that this module cannot
    know -- a service the question names: "an ERROR log in zookeeper" is a log kept there, not a
    login. Read as if a place phrase ("the ...", see the login concept) came next. Compared as
    worded: whether it went right is read from the whole clause, which the probe cuts."""
    probe = normalized_text[:mention.end] + " the"
    worded = {m.start: m.concept for m in _worded_mentions(normalized_text)}
    return any(found.start == mention.start and found.concept == worded.get(mention.start)
               for found in _worded_mentions(probe))


def concepts_in(text: str) -> list[str]:
    """Concept names a text names, by first appearance, no duplicates."""
    return list(dict.fromkeys(m.concept for m in concept_mentions(normalize(text))))


def concepts_held(text: str) -> set[str]:
    """Concepts a text (a log line, an excerpt) is about: it names one (its asks) or holds one of
    its log phrases or stems ("Connection broken for id 3" is about connection)."""
    normalized = normalize(text)
    held = {mention.concept for mention in concept_mentions(normalized)}
    for name, stems, terms in _held_probes():
        if name not in held and (any(stem in normalized for stem in stems)
                                 or any(rarest in normalized and _term_regex(term).search(normalized)
                                        for rarest, term in terms)):
            held.add(name)
    return held


@lru_cache(maxsize=1)
def _held_probes() -> tuple[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]], ...]:
    """Each concept's stems and log phrases as ``holds_term`` reads them (normalised), each
    phrase with its longest word: a text without it cannot match the phrase's regex, and most
    texts lack it ("not available" is tried only where "available" is; its first word, "not",
    is in many). Prepared once: the verifier asks this of every evidence text of every claim."""
    prepared = []
    for concept in _CONCEPT_TABLE:
        terms = tuple(normalize(term) for term in concept.terms)
        prepared.append((concept.name, concept.stems, tuple((max(term.split(), key=len), term) for term in terms)))
    return tuple(prepared)


def concept_terms(names: Iterable[str]) -> list[str]:
    """The log phrases of the concepts (whole-word terms), in order, no duplicates."""
    return list(dict.fromkeys(term for name in names if name in CONCEPTS
                              for term in CONCEPTS[name].terms))


def concept_stems(names: Iterable[str]) -> list[str]:
    """The substring stems of the concepts, in order, no duplicates."""
    return list(dict.fromkeys(stem for name in names if name in CONCEPTS
                              for stem in CONCEPTS[name].stems))


def concept_label(name: str, language: str) -> str:
    """The concept's label in the language (``zh`` or ``en``); the name for an unknown one."""
    concept = CONCEPTS.get(name)
    if concept is None:
        return name
    return concept.label_zh if language == "zh" else concept.label_en


def holds_term(text: str, term: str) -> bool:
    """Whether normalised ``text`` holds ``term`` as ``query_logs`` matches terms: the words in
    order, whole words at alphanumeric edges (a Chinese edge is a plain substring)."""
    term = normalize(term)
    # Most texts do not hold a term's first word at all: say so without compiling its regex.
    return term.split(maxsplit=1)[0] in text and _term_regex(term).search(text) is not None


@lru_cache(maxsize=2048)
def _term_regex(term: str) -> re.Pattern[str]:
    return re.compile(phrase_pattern(term))

