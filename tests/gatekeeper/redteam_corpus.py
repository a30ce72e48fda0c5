"""A red-team corpus for the gatekeeper: real sessions, bindings tampered the way people do it.

Session documents come from the real offline pipeline (``core.pipeline.ask``) on the demo pack.
Each binding that passed is then edited the way a human tester or a careless / dishonest model
edits a session document by hand -- benign drift that must still pass, forgeries that must be
rejected, incomplete citations that must be low_confid -- and each edit becomes one case:
(document, the tampered claim, the grade it must get). Everything is deterministic, so the case
ids are the same in every pytest-xdist worker.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from core.contracts import TOOL_NAMES, Claim, EvidenceBinding, ExecutorOutput, Invocation, SessionDocument
from core.tools.spec import RAW_PATH_PREFIXES
from tests.gatekeeper.redteam_gk3 import benign_quote_edits, document_edits, forged_quote_edits, negative_text_swaps

Grade = Literal["pass", "low_confid", "reject"]

# The acceptance matrix's six questions (docs/design.md §10) in Chinese and English, and one
# question per other demo topic.
QUESTIONS: tuple[tuple[str, str], ...] = (
    ("cpu-zh", "只确认 payment-service 当前是否存在 CPU 使用率过高告警。"),
    ("cpu-en", "Only confirm whether payment-service currently has a high CPU usage alert."),
    ("mem-zh", "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。"),
    ("mem-en", "Only confirm whether order-service has a HighMemoryUsage alert right now."),
    ("slow-zh", "只确认 user-service 是否存在 SlowResponse 告警和慢请求日志。"),
    ("slow-en", "Only confirm whether user-service has a SlowResponse alert and slow request logs."),
    ("pool-zh", "确认 order-service 是否存在 HikariCP 连接池耗尽。"),
    ("pool-en", "Confirm whether order-service has HikariCP connection pool exhaustion."),
    ("nopool-zh", "确认 inventory-service 是否存在 HikariCP 连接池耗尽"),
    ("nopool-en", "Confirm whether inventory-service has HikariCP connection pool exhaustion."),
    ("scope-zh", "只确认 HighCPUUsage，不要分析订单123、OOM、数据库慢查询、连接池或 user-service。"),
    ("disk-zh", "只确认 log-collector 的 /data 磁盘使用率是否过高。"),
    ("redis-en", "Only confirm whether payment-service logged Redis timeouts."),
    ("mq-zh", "只确认 order-service 的消息队列是否积压。"),
    ("mysql-en", "Only confirm whether mysql logged slow queries."),
    ("oom-zh", "只确认 order-service 的 Pod 是否因为 OOMKilled 被重启。"),
    ("http500-en", "Does user-service return HTTP 500 errors?"),
)

SERVICES = ("order-service", "payment-service", "user-service", "inventory-service")
ALERTS = ("HighMemoryUsage", "HighCPUUsage", "SlowResponse")
LEVELS = {"[WARN]": "[ERROR]", "[ERROR]": "[WARN]", "[INFO]": "[WARN]"}
# Words whose change reverses what the line says (Chinese and English).
MEANING_SWAPS: tuple[tuple[str, str], ...] = (
    ("过高", "正常"), ("过高", "过低"), ("超时", "正常"), ("超过阈值", "低于阈值"), ("耗尽", "充足"),
    ("积压", "正常"), ("被重启", "未重启"), ("频繁", "偶尔"), ("通过", "失败"), ("慢请求", "快请求"),
    ("慢查询", "快查询"), ("全表扫描", "索引扫描"), ("锁等待", "无锁等待"), ("已持续", "已恢复"),
    ("not available", "available"), ("timed out", "succeeded"), ("timeout", "success"),
    ("out of memory", "enough memory"), ("full scan", "index scan"), ("status=UP", "status=DOWN"),
    ("lock wait", "no lock wait"), ("Java heap space", "Java heap fine"), ("firing", "resolved"),
    ("severity=critical", "severity=info"), ("severity=warning", "severity=info"),
    ("Full GC", "Young GC"), ("OutOfMemoryError", "StackOverflowError"), ("OOMKilled", "Evicted"),
    ("SELECT", "DELETE"), ("GET", "POST"), ("kernel", "kubelet"), ("Connection", "Session"),
    ("request", "response"), ("heap", "stack"), ("内存", "磁盘"), ("CPU", "GPU"), ("响应时间", "等待时间"),
    ("连接池", "线程池"), ("超过", "低于"), ("持续", "短暂"), ("增加", "减少"), ("异常", "正常"),
)
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")
_PREFIX_RE = re.compile(r"^\[[^\]]+\]\[[A-Z]+\]\[[^\]]+\]\s*")
_UNIT_RE = re.compile(r"(\d)(%|ms|GB|s\b)")
_UNIT_SWAPS = {"%": "ms", "ms": "s", "GB": "MB", "s": "ms"}


@dataclass(frozen=True)
class Mutation:
    """One tampered binding (in a tampered document, if given) and the grade it must get."""

    name: str
    grade: Grade
    binding: EvidenceBinding
    claim_type: str = "observation"
    document: SessionDocument | None = None


@dataclass(frozen=True)
class Case:
    """A session document, one tampered claim for it, and the grade that claim must get."""

    case_id: str
    document: SessionDocument
    claim: Claim
    grade: Grade

    def output(self) -> ExecutorOutput:
        return ExecutorOutput(claims=[self.claim])


Edit = Callable[[str], Iterator[tuple[str, str]]]


# ------------------------------------------------------------------ benign edits of a quote


def benign_edits(excerpt: str) -> Iterator[tuple[str, str]]:
    """(name, edited excerpt) that quote the same text: each must still pass."""
    message = _PREFIX_RE.sub("", excerpt)
    if message != excerpt and len(message) >= 12:
        yield "message_only", message
    clauses = [part.strip() for part in re.split(r"[,，;；]", excerpt)
               if len(part.strip()) >= 12 and re.search(r"\d", part)]
    if len(clauses) > 1:
        yield "middle_clause", clauses[len(clauses) // 2]
    yield "newlines", excerpt.replace(", ", ",\n  ").replace(" ", "  ")
    yield "fullwidth_punct", excerpt.replace(",", "，").replace(":", "：").replace("(", "（").replace(")", "）")
    ascii_punct = excerpt.replace("，", ", ").replace("：", ": ").replace("（", "(").replace("）", ")")
    if ascii_punct != excerpt:
        yield "ascii_punct", ascii_punct
    yield "upper", excerpt.upper()
    yield "lower", excerpt.lower()
    words = excerpt.split(" ")
    if len(words) >= 6:
        yield "ellipsis_start", "…" + " ".join(words[len(words) // 3:])
        yield "ellipsis_end", " ".join(words[: 2 * len(words) // 3]) + "..."
        yield "ellipsis_middle", " ".join(words[:2]) + " ... " + " ".join(words[-2:])
    cut = _boundary_cuts(excerpt)
    if cut:
        yield "ellipsis_chars", excerpt[:cut[0]] + "…" + excerpt[cut[1]:]
    yield "no_space_after_comma", excerpt.replace(", ", ",")
    yield "brackets_dropped", re.sub(r"[\[\]]", " ", excerpt)
    yield "combo_message_fullwidth_quoted", "“" + message.replace(",", "，").replace(":", "：") + "。”"
    yield "nbsp", excerpt.replace(" ", "\u00a0")
    yield "zero_width", "\u200b".join(excerpt[i:i + 5] for i in range(0, len(excerpt), 5))
    yield "trailing_period", excerpt + "."
    yield "trailing_cjk_period", excerpt + "。"
    yield "curly_quotes", f"“{excerpt}”"
    yield "straight_quotes", f'"{excerpt}"'
    yield "corner_quotes", f"「{excerpt}」"
    spaced = _UNIT_RE.sub(r"\1 \2", excerpt)
    if spaced != excerpt:
        yield "unit_spaced", spaced
    decimal = re.sub(r"(?<![\d.])(\d\d)%", r"\1.0%", excerpt, count=1)
    if decimal != excerpt:
        yield "percent_decimal", decimal


def _boundary_cuts(text: str) -> tuple[int, int] | None:
    """Two cut points (at a third and two thirds) moved to the nearest space or punctuation,
    so a truncation never cuts a number or a name in half."""
    def boundary(position: int) -> int | None:
        for index in range(position, len(text)):
            if text[index] in " ,，:：;；":
                return index
        return None
    first, second = boundary(len(text) // 3), boundary(2 * len(text) // 3)
    if first is None or second is None or second - first < 4:
        return None
    return first, second


# ------------------------------------------------------------------ forged edits of a quote


def forged_edits(excerpt: str) -> Iterator[tuple[str, str]]:
    """(name, edited excerpt) that change a fact: each must be rejected."""
    prefix = _PREFIX_RE.match(excerpt)
    body_start = prefix.end() if prefix else 0
    numbers = [match for match in _NUMBER_RE.finditer(excerpt) if match.start() >= body_start]
    if prefix:  # one change in the timestamp is enough; the message's numbers all count
        numbers.insert(0, next(_NUMBER_RE.finditer(excerpt, 0, body_start)))
    for number, match in enumerate(numbers):
        text, start, end = match.group(), match.start(), match.end()
        last = str((int(text[-1]) + 1) % 10)
        yield f"digit{number}", excerpt[:start] + text[:-1] + last + excerpt[end:]
        if "." in text:
            whole, fraction = text.split(".")
            moved = (f"{whole[:-1]}.{whole[-1]}{fraction}" if len(whole) > 1
                     else f"{whole}{fraction[0]}.{fraction[1:] or '0'}")
            yield f"decimal{number}", excerpt[:start] + moved + excerpt[end:]
        elif len(text) >= 2:
            yield f"decimal{number}", excerpt[:start] + text[0] + "." + text[1:] + excerpt[end:]
    for number, match in enumerate(_UNIT_RE.finditer(excerpt)):
        unit = match.group(2)
        yield f"unit{number}", excerpt[:match.start(2)] + _UNIT_SWAPS[unit] + excerpt[match.end(2):]
    percents = re.findall(r"\d+(?:\.\d+)?%", excerpt)
    if len(percents) >= 2 and percents[0] != percents[1]:
        first, second = percents[0], percents[1]
        yield "percent_swap", excerpt.replace(first, "\0").replace(second, first, 1).replace("\0", second, 1)
    for service in SERVICES:
        if service in excerpt:
            other = SERVICES[(SERVICES.index(service) + 1) % len(SERVICES)]
            yield f"service_{service.split('-')[0]}", excerpt.replace(service, other)
    pod = re.search(r"pod-[a-z-]+-[0-9a-f]{9}-([a-z0-9]{5})", excerpt)
    if pod:
        suffix = pod.group(1)
        yield "pod_char", excerpt.replace(suffix, suffix[:-1] + ("x" if suffix[-1] != "x" else "y"))
    for old, new in (("/profile", "/orders"), ("/orders", "/profile")):
        if old in excerpt:
            yield f"endpoint{old.replace('/', '_')}", excerpt.replace(old, new)
    for alert in ALERTS:
        if alert in excerpt:
            yield f"alert_{alert}", excerpt.replace(alert, ALERTS[(ALERTS.index(alert) + 1) % len(ALERTS)])
    for old, new in LEVELS.items():
        if old in excerpt:
            yield f"level_{old.strip('[]').lower()}", excerpt.replace(old, new)
    for index, (old, new) in enumerate(MEANING_SWAPS):
        if old in excerpt:
            yield f"meaning{index}", excerpt.replace(old, new, 1)
    cjk = re.search(r"[\u4e00-\u9fff]{2,}", excerpt)
    if cjk:
        yield "negation_zh", excerpt[:cjk.start()] + "未" + excerpt[cjk.start():]
    zh_negation = re.search(r"不|未|没有|无", excerpt)
    if zh_negation:
        yield "negation_zh_dropped", excerpt[:zh_negation.start()] + excerpt[zh_negation.end():]
    if "not " in excerpt:
        yield "negation_dropped", excerpt.replace("not ", "", 1)
    elif " is " in excerpt:
        yield "negation_added", excerpt.replace(" is ", " is not ", 1)


# ------------------------------------------------------------------ the corpus


@lru_cache(maxsize=1)
def documents() -> tuple[tuple[str, SessionDocument], ...]:
    """One real session document per question, in memory, with a fixed session id."""
    from core.pipeline import ask

    return tuple((label, ask(question, session_id=f"s-redteam-{label}")) for label, question in QUESTIONS)


def _ref_text(invocations: dict[int, Invocation], binding: EvidenceBinding) -> str | None:
    invocation = invocations.get(binding.source_invocation_id or -1)
    if invocation is None or invocation.retrieval_details is None:
        return None
    return next((ref.text for ref in invocation.retrieval_details.evidence_refs
                 if ref.raw_path == binding.raw_path), None)


def _with(binding: EvidenceBinding, **changes: object) -> EvidenceBinding:
    return binding.model_copy(update=changes)


def excerpt_mutations(binding: EvidenceBinding, ref_text: str) -> Iterator[Mutation]:
    """Benign and forged edits of the excerpt and of the ref text it quotes."""
    seen: set[str] = set()
    for base_name, base in (("excerpt", binding.evidence_excerpt), ("ref", ref_text)):
        graded: tuple[tuple[Grade, Callable[[str], Iterator[tuple[str, str]]]], ...] = (
            ("pass", benign_edits), ("reject", forged_edits),
            ("pass", benign_quote_edits), ("reject", forged_quote_edits))
        for grade, edits in graded:
            for name, text in edits(base):
                if text in seen or text == base:
                    continue
                seen.add(text)
                yield Mutation(f"{base_name}.{name}", grade, _with(binding, evidence_excerpt=text))


def citation_mutations(binding: EvidenceBinding, document: SessionDocument, ref_text: str,
                       first_of_invocation: bool) -> Iterator[Mutation]:
    """Edits of the locator: raw_path, invocation id, tool name; and incomplete citations.
    Edits that do not depend on the ref text are made once per invocation."""
    invocation = next(inv for inv in document.invocations if inv.invocation_id == binding.source_invocation_id)
    refs = invocation.retrieval_details.evidence_refs if invocation.retrieval_details else []
    raw_path = binding.raw_path or ""
    for neighbour in refs:
        if neighbour.raw_path != raw_path and neighbour.text != ref_text:
            yield Mutation("locator.neighbour_path", "reject", _with(binding, raw_path=neighbour.raw_path))
            break
    for other in document.invocations:
        other_refs = other.retrieval_details.evidence_refs if other.retrieval_details else []
        if other.invocation_id != invocation.invocation_id and other.tool_name == invocation.tool_name and any(
                ref.raw_path == raw_path and ref.text != ref_text for ref in other_refs):
            yield Mutation("invocation.same_tool_other", "reject",
                           _with(binding, source_invocation_id=other.invocation_id))
            break
    stitched = _stitch(ref_text, [ref.text for ref in refs if ref.text != ref_text])
    if stitched:
        yield Mutation("excerpt.stitched", "reject", _with(binding, evidence_excerpt=stitched))
    short_number = re.search(r"\d+(?:\.\d+)?%", ref_text)
    if short_number:
        yield Mutation("low.short_number", "low_confid", _with(binding, evidence_excerpt=short_number.group()))
    if first_of_invocation:
        yield from _locator_edits(binding, document, invocation, ref_text, len(refs))
        others = [other for _, other in documents() if other.session_id != document.session_id]
        for name, edited, invocation_id, excerpt in document_edits(document, invocation, raw_path, others[:1]):
            yield Mutation(name, "reject", _with(binding, source_invocation_id=invocation_id,
                                                 evidence_excerpt=excerpt), document=edited)


def _locator_edits(binding: EvidenceBinding, document: SessionDocument, invocation: Invocation,
                   ref_text: str, ref_count: int) -> Iterator[Mutation]:
    raw_path = binding.raw_path or ""
    prefix, index = raw_path.split("[")[0], int(raw_path.split("[")[1].rstrip("]"))
    name = prefix.removeprefix("$.")
    for label, path in (("zero_padded", f"{prefix}[0{index}]"), ("spaced", f"{prefix}[ {index} ]"),
                        ("bracket", f"$['{name}'][{index}]"), ("capital", f"$.{name.capitalize()}[{index}]"),
                        ("out_of_range", f"{prefix}[{ref_count + 5}]"), ("subfield", f"{raw_path}.text")):
        yield Mutation(f"raw_path.{label}", "reject", _with(binding, raw_path=path))
    biggest = max(inv.invocation_id for inv in document.invocations)
    yield Mutation("invocation.unknown", "reject", _with(binding, source_invocation_id=biggest + 7919))
    other_tool = next(tool for tool in TOOL_NAMES if tool != invocation.tool_name)
    yield Mutation("tool.swapped", "reject", _with(binding, tool_name=other_tool))
    yield Mutation("low.empty_excerpt", "low_confid", _with(binding, evidence_excerpt=""))
    yield Mutation("low.blank_excerpt", "low_confid", _with(binding, evidence_excerpt="  \n "))
    yield Mutation("low.no_raw_path", "low_confid", _with(binding, raw_path=None))
    generic = next((word for word in ("ERROR", "WARN", "firing", *SERVICES) if word in ref_text), None)
    if generic:
        yield Mutation("low.generic", "low_confid", _with(binding, evidence_excerpt=generic))
    # Back-filled from a unique candidate or not back-filled at all: never a pass either way.
    yield Mutation("low.no_invocation_id", "low_confid", _with(binding, source_invocation_id=None))
    yield Mutation("low.no_id_no_path", "low_confid", _with(binding, source_invocation_id=None, raw_path=None))


def _stitch(ref_text: str, others: list[str]) -> str | None:
    """The first half of this ref joined to the second half of a different one."""
    for other in others:
        head, tail = ref_text[: len(ref_text) // 2], other[len(other) // 2:]
        if head not in other and tail not in ref_text:
            return head + tail
    return None


def negative_mutations(claim: Claim, document: SessionDocument) -> Iterator[Mutation]:
    """A negative observation re-pointed to a query that found evidence or to another subject."""
    binding = claim.evidence_bindings[0]
    cited = next(inv for inv in document.invocations if inv.invocation_id == binding.source_invocation_id)
    for other in document.invocations:
        details = other.retrieval_details
        if other.tool_name == cited.tool_name and details is not None and details.evidence_refs:
            yield Mutation("negative.found_evidence", "reject",
                           _with(binding, source_invocation_id=other.invocation_id), "negative_observation")
            break
    for number, prefix in enumerate(RAW_PATH_PREFIXES[cited.tool_name]):
        label = "negative.indexed_path" + (f".{prefix.removeprefix('$.')}" if number else "")
        yield Mutation(label, "reject", _with(binding, raw_path=f"{prefix}[0]"), "negative_observation")


def negative_subject_swaps(claim: Claim, document: SessionDocument) -> Iterator[tuple[str, Claim]]:
    """The same negative citation under a claim about another service (its query did not look)."""
    binding = claim.evidence_bindings[0]
    cited = next(inv for inv in document.invocations if inv.invocation_id == binding.source_invocation_id)
    service = cited.arguments.get("service")
    if isinstance(service, str) and service in SERVICES:
        other = SERVICES[(SERVICES.index(service) + 1) % len(SERVICES)]
        yield "negative.other_service", claim.model_copy(update={
            "claim_text": claim.claim_text.replace(service, other), "subject_services": [other],
            "evidence_bindings": [binding]})


def _claim_for(claim: Claim, mutation: Mutation) -> Claim:
    return claim.model_copy(update={"evidence_bindings": [mutation.binding], "claim_type": mutation.claim_type})


def build_cases() -> list[Case]:
    """Every (document, tampered claim, expected grade) of the corpus, with readable ids."""
    cases: list[Case] = []
    seen_refs: set[str] = set()  # one set of edits per kind of ref text keeps the corpus fast
    for label, document in documents():
        invocations = {inv.invocation_id: inv for inv in document.invocations}
        claims = document.executor_output.claims if document.executor_output else []
        seen_invocations: set[int | None] = set()
        for claim in claims:
            if claim.claim_type == "negative_observation":
                for mutation in negative_mutations(claim, document):
                    cases.append(Case(f"{label}/{claim.claim_id}/{mutation.name}", document,
                                      _claim_for(claim, mutation), mutation.grade))
                for name, swapped in [*negative_subject_swaps(claim, document), *negative_text_swaps(claim)]:
                    cases.append(Case(f"{label}/{claim.claim_id}/{name}", document, swapped, "reject"))
                continue
            for number, binding in enumerate(claim.evidence_bindings):
                ref_text = _ref_text(invocations, binding)
                template = re.sub(r"\d", "", ref_text or "")  # the CPU samples differ only in digits
                if ref_text is None or template in seen_refs:
                    continue
                seen_refs.add(template)
                first_of_invocation = binding.source_invocation_id not in seen_invocations
                seen_invocations.add(binding.source_invocation_id)
                mutations = [*excerpt_mutations(binding, ref_text),
                             *citation_mutations(binding, document, ref_text, first_of_invocation)]
                for mutation in mutations:
                    cases.append(Case(f"{label}/{claim.claim_id}.{number}/{mutation.name}",
                                      mutation.document or document, _claim_for(claim, mutation), mutation.grade))
    return cases
