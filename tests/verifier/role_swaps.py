"""The role-swap suite: real sessions of the demo pack, claims rewritten, re-judged by ``replay``.

Each case starts from a real session (the rules engine on a seed question: real invocations,
real bindings the gatekeeper passes) and puts a new executor output in it: a claim written
from the tool output's own values with a template, or the session's own claim with one value
moved. What is true comes from the tool output (the alert's ``current`` / ``threshold`` /
``duration`` / details, the log lines' values and times), never from the verifier, so the
suite is an independent oracle:

- *wrong*: a value in another role (current and threshold swapped, the threshold or an old
  sample as current, used and total swapped, a trend reversed, an older time as the latest), a
  duration in another unit, a rounded value that changes it, runbook text appended, a repair
  action, a gap that concludes -- none may PASS;
- *right*: the same facts reordered, in the other language, in other words, ``91.0%`` for
  ``91%``, quotes without their ``[time][LEVEL][service]`` prefix -- all must PASS.

Run as a script to print the counts (``python tests/verifier/role_swaps.py``); the tests
(``test_role_swaps.py``) assert them. The cases use only the pipeline's public surface
(``ask``, ``replay``, the contracts), so the same script measures any version of the verifier.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from core.contracts import (
    Alert,
    Claim,
    EvidenceBinding,
    ExecutorOutput,
    LogEntry,
    MissingInfo,
    RecommendedAction,
    SessionDocument,
)
from core.pipeline import ask, replay

QUESTIONS: dict[str, str] = {
    "memory-zh": "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。",
    "memory-en": "Only confirm whether order-service has a HighMemoryUsage alert right now.",
    "cpu-zh": "只确认 payment-service 当前是否存在 CPU 使用率过高告警。",
    "cpu-en": "Only confirm whether payment-service currently has a high CPU usage alert.",
    "slow-zh": "只确认 user-service 是否存在 SlowResponse 告警和慢请求日志。",
    "slow-en": "Only confirm whether user-service has a SlowResponse alert and slow request logs.",
}
METRIC = {"HighMemoryUsage": ("内存使用率", "memory usage"), "HighCPUUsage": ("CPU 使用率", "CPU usage"),
          "SlowResponse": ("P99 响应时间", "P99 latency")}
# What the log lines of each alert's trend measure (a slow request's time is not a P99).
TREND_METRIC = {"HighMemoryUsage": ("内存使用率", "memory usage"), "HighCPUUsage": ("CPU 使用率", "CPU usage"),
                "SlowResponse": ("响应时间", "response time")}
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(m|s|h)$")
_UNIT_WORDS = {"m": ("分钟", "minutes"), "s": ("秒", "seconds"), "h": ("小时", "hours")}
_OTHER_UNIT = {"m": "s", "s": "m", "h": "m"}
_VALUE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(%|ms|s)(?![\w])")
_RATIO = re.compile(r"(\d+(?:\.\d+)?)(GB|MB)/(\d+(?:\.\d+)?)(GB|MB)")

REPAIRS_ZH = ("立即重启 {svc}。", "回滚 {svc} 最近一次发布。", "将 {svc} 扩容到 6 个副本。",
              "把 {svc} 的 JVM 堆内存上限调大到 8GB 以修复问题。", "杀掉 {svc} 中占用资源的线程。",
              "删除 {svc} 的旧日志文件释放空间。", "先导出堆 dump，然后重启 {svc}。")
REPAIRS_EN = ("Restart {svc} now.", "Roll back the last deployment of {svc}.",
              "Scale {svc} out to 6 replicas.", "Raise the JVM heap limit of {svc} to 8GB to fix it.",
              "Kill the busiest threads in {svc}.", "Delete old log files on {svc} to free space.",
              "Collect a heap dump, then restart {svc}.", "Increase the connection pool size of {svc} to 100.")
GATHERS_ZH = ("查看 {svc} 最近一小时的 GC 日志。", "导出 {svc} 的线程 dump 并统计各状态线程数。",
              "对比 {svc} 重启前后的内存曲线。", "查询 {svc} 的告警历史，确认告警开始时间。")
GATHERS_EN = ("Look at {svc}'s GC logs for the last hour.",
              "Capture a thread dump of {svc} and count threads by state.",
              "Compare {svc}'s memory curve before and after its restarts.",
              "Query the alert history of {svc} to see when the alert started.")
CONCLUDING_GAPS = ("{svc} 内存泄漏已确认，只缺少更长时间的监控数据。", "根因是 {svc} 内存泄漏，缺少堆 dump 佐证。",
                   "The memory leak in {svc} is confirmed; only a heap dump is missing.",
                   "Root cause is a leak in {svc}; allocation statistics are missing.")
HONEST_GAPS = ("缺少 {svc} 的堆 dump，尚不能判断内存增长的原因。",
               "A heap dump of {svc} is missing, so what keeps memory growing is not known.")


@dataclass(frozen=True)
class Case:
    """One edited session and whether a correct verifier may PASS it."""

    name: str
    kind: str            # what was done: a wrong-role move, a restatement, an action ...
    should_pass: bool
    document: SessionDocument


@dataclass(frozen=True)
class Truth:
    """What the tool output of a session says, read from the raw output (not from refs)."""

    service: str
    alert: Alert
    alert_binding: EvidenceBinding
    samples: list[tuple[str, str, EvidenceBinding]]  # (timestamp, value, binding), oldest first
    ratio: tuple[str, str] | None                     # (used, total) of the alert's details


@cache
def session(key: str) -> SessionDocument:
    """The real session of a seed question (in memory)."""
    return ask(QUESTIONS[key])


def truth(document: SessionDocument) -> Truth:
    """The alert and the trend of the session's first claim, from the raw tool output."""
    assert document.executor_output is not None
    claim = document.executor_output.claims[0]
    by_id = {inv.invocation_id: inv for inv in document.invocations}
    alert: Alert | None = None
    alert_binding: EvidenceBinding | None = None
    samples: list[tuple[str, str, EvidenceBinding]] = []
    for binding in claim.evidence_bindings:
        invocation = by_id[binding.source_invocation_id or -1]
        index = int(re.search(r"\[(\d+)\]", binding.raw_path or "[0]").group(1))
        if invocation.tool_name == "query_metrics":
            alert, alert_binding = Alert.model_validate(invocation.output["alerts"][index]), binding
        elif invocation.tool_name == "query_logs":
            entry = LogEntry.model_validate(invocation.output["logs"][index])
            value = _VALUE.search(entry.message)
            if value and ("使用率" in entry.message or "/profile" in entry.message):
                samples.append((entry.timestamp, value.group(), binding))
    assert alert is not None and alert_binding is not None
    ratio = next((m.groups() for d in alert.details if (m := _RATIO.search(d))), None)
    return Truth(alert.service, alert, alert_binding, sorted(samples, key=lambda s: s[0]),
                 (ratio[0] + ratio[1], ratio[2] + ratio[3]) if ratio else None)


def _edited(document: SessionDocument, output: ExecutorOutput) -> SessionDocument:
    return document.model_copy(update={"executor_output": output, "verifier_result": None,
                                       "composer_output": None, "gatekeeper_result": None})


def _with_claim(document: SessionDocument, text: str, bindings: list[EvidenceBinding]) -> SessionDocument:
    assert document.executor_output is not None
    first = document.executor_output.claims[0]
    claim = Claim(claim_id="claim-1", claim_type="observation", claim_text=text,
                  evidence_bindings=[b.model_copy() for b in bindings],
                  subject_services=list(first.subject_services), subject_topics=list(first.subject_topics))
    return _edited(document, ExecutorOutput(claims=[claim]))


def _durations(raw: str) -> tuple[str, str, str, str]:
    """(as written, Chinese words, English words, the same number in another unit)."""
    match = _DURATION.match(raw)
    assert match, raw
    number, unit = match.groups()
    zh, en = _UNIT_WORDS[unit]
    return raw, f"{number} {zh}", f"{number} {en}", f"{number}{_OTHER_UNIT[unit]}"


def _templates(t: Truth, cur: str, thr: str, dur: str, dur_zh: str, dur_en: str) -> list[tuple[str, str]]:
    """(style, claim text) restatements of an alert, Chinese and English, several orders."""
    svc, name = t.service, t.alert.alert_name
    zh, en = METRIC[name]
    return [
        ("zh-fields", f"{svc} 的 {name} 告警正在触发：当前值 {cur}，阈值 {thr}，已持续 {dur}。"),
        ("zh-natural", f"{svc} 当前{zh}为 {cur}，超过阈值 {thr}，告警已持续 {dur_zh}。"),
        ("zh-reordered", f"阈值 {thr}，当前值 {cur}：{svc} 的 {name} 告警（firing）已持续 {dur}。"),
        ("zh-duration-first", f"{name} 告警已持续 {dur_zh}，{svc} 目前为 {cur}（阈值 {thr}）。"),
        ("en-fields", f"{svc} has a firing {name} alert: current {cur}, threshold {thr}, for {dur}."),
        ("en-natural", f"{name} is firing for {svc}: {en} is currently {cur}, above the {thr} threshold, "
                       f"and the alert has lasted {dur_en}."),
        ("en-reordered", f"Threshold {thr}, current value {cur}, duration {dur}: {name} on {svc}."),
        ("en-duration-first", f"For {dur_en}, {svc} has been above its {thr} threshold ({name}); it is now {cur}."),
    ]


def _alert_cases(key: str) -> Iterator[Case]:
    document = session(key)
    t = truth(document)
    alert = t.alert
    assert alert.current and alert.threshold and alert.duration
    cur, thr = alert.current, alert.threshold
    dur, dur_zh, dur_en, dur_other = _durations(alert.duration)
    bindings = [t.alert_binding]
    oldest = t.samples[0][1] if t.samples else None
    trend_bindings = [b for _, _, b in t.samples]
    current_value = cur.split()[-1]
    rewritten = {
        "right": [(style, text) for style, text in _templates(t, cur, thr, dur, dur_zh, dur_en)],
        "swap-current-threshold": _templates(t, thr, cur, dur, dur_zh, dur_en),
        "threshold-as-current": _templates(t, thr, thr, dur, dur_zh, dur_en),
        "current-as-threshold": _templates(t, cur, cur, dur, dur_zh, dur_en),
        "duration-unit": _templates(t, cur, thr, dur_other, *_durations(dur_other)[1:3]),
    }
    if oldest is not None and oldest != current_value:
        rewritten["old-sample-as-current"] = _templates(t, oldest, thr, dur, dur_zh, dur_en)
    for kind, texts in rewritten.items():
        for style, text in texts:
            extra = trend_bindings if kind == "old-sample-as-current" else []
            yield Case(f"{key}/{kind}/{style}", kind, kind == "right",
                       _with_claim(document, text, bindings + extra))
    if "%" in current_value:  # 91% and 91.0% are the same value
        spelled = current_value.replace("%", ".0%") if "." not in current_value else current_value
        text = f"{t.service} 当前值 {spelled}，阈值 {thr}。"
        yield Case(f"{key}/right/rounding-kept", "right", True, _with_claim(document, text, bindings))
        rounded = f"{round(float(current_value[:-1]), -1):g}%"
        if rounded != current_value:
            yield Case(f"{key}/rounded-current/zh", "rounded-value", False,
                       _with_claim(document, f"{t.service} 当前值约 {rounded}，阈值 {thr}。", bindings))
    yield from _ratio_cases(key, document, t)
    yield from _trend_cases(key, document, t)


def _ratio_cases(key: str, document: SessionDocument, t: Truth) -> Iterator[Case]:
    if t.ratio is None:
        return
    used, total = t.ratio
    b = [t.alert_binding]
    svc = t.service
    for style, text, good in (
            ("zh-slash", f"{svc} 的 JVM 堆内存 {used}/{total}。", True),
            ("zh-words", f"{svc} 的 JVM 堆内存已用 {used}，总量 {total}。", True),
            ("en-of", f"{svc}'s JVM heap: {used} used of {total}.", True),
            ("en-words", f"{svc} JVM heap used {used}, total {total}.", True),
            ("zh-swapped", f"{svc} 的 JVM 堆内存 {total}/{used}。", False),
            ("zh-used-is-total", f"{svc} 的 JVM 堆内存当前使用 {total}。", False),
            ("zh-threshold", f"{svc} 的 JVM 堆内存阈值为 {used}，当前使用 {total}。", False),
            ("zh-rounded", f"{svc} 的 JVM 堆内存使用约 {total}。", False),
            ("en-swapped", f"{svc}'s JVM heap: {total} used of {used}.", False),
            ("en-rounded", f"{svc}'s JVM heap is using about {total}.", False)):
        yield Case(f"{key}/heap/{style}", "right" if good else "swap-used-total", good,
                   _with_claim(document, text, b))


def _trend_cases(key: str, document: SessionDocument, t: Truth) -> Iterator[Case]:
    if len(t.samples) < 3:
        return
    svc = t.service
    values = [value for _, value, _ in t.samples]
    bindings = [b for _, _, b in t.samples]
    first, last = values[0], values[-1]
    oldest_time, newest_time = t.samples[0][0][11:16], t.samples[-1][0][11:16]
    zh, en = TREND_METRIC[t.alert.alert_name]
    arrows = " → ".join(values)
    backwards = " → ".join(reversed(values))
    for style, text, good in (
            ("zh-arrows", f"{svc} 日志中{zh}依次为 {arrows}。", True),
            ("zh-from-to", f"{svc} 的{zh}从 {first} 上升到 {last}，最新一条出现在 {newest_time}。", True),
            ("en-from-to", f"{svc}'s {en} rose from {first} to {last}; the latest line was at {newest_time}.", True),
            ("zh-sample-at-time", f"{svc} 在 {oldest_time} 时{zh}为 {first}。", True),
            ("zh-reversed", f"{svc} 日志中{zh}依次为 {backwards}。", False),
            ("en-reversed", f"{svc}'s {en} went from {last} to {first}.", False),
            ("zh-old-latest", f"{svc} 的{zh}从 {first} 上升到 {last}，最新一条出现在 {oldest_time}。", False),
            ("zh-old-as-current", f"{svc} 当前{zh}为 {first}。", False),
            ("en-old-as-current", f"{svc}'s {en} is currently {first}.", False),
            ("zh-sample-wrong-time", f"{svc} 在 {newest_time} 时{zh}为 {first}。", False)):
        yield Case(f"{key}/trend/{style}", "right" if good else "trend", good,
                   _with_claim(document, text, bindings))
    # A quote without its [time][LEVEL][service] prefix still shows whose line it is.
    stripped = [b.model_copy(update={"evidence_excerpt": re.sub(r"^\[[^\]]*\]\[[^\]]*\]\[[^\]]*\]\s*", "",
                                                                b.evidence_excerpt)}) for b in bindings]
    yield Case(f"{key}/trend/quote-without-prefix", "right", True,
               _with_claim(document, f"{svc} 日志中{zh}依次为 {arrows}。", stripped))


# Natural wording a model writes (issue: honest quoting must pass), and the same with a value
# in the wrong role. {svc} is the session's service; values are the demo pack's.
NATURAL: dict[str, tuple[tuple[str, bool], ...]] = {
    "memory-zh": (
        ("{svc} 触发 HighMemoryUsage 告警，内存使用率 91%，超过 85% 阈值，已持续 15 分钟。", True),
        ("{svc} 的内存使用率在 11:05 到 11:17 之间从 86.2% 持续上升到 91.0%，最新一条出现在 11:17。", True),
        ("{svc} 触发 HighMemoryUsage 告警，内存使用率 85%，超过 91% 阈值，已持续 15 分钟。", False),
        ("{svc} 的内存使用率在 11:05 到 11:17 之间从 86.2% 持续上升到 91.0%，最新一条出现在 11:05。", False),
        ("{svc} JVM 堆内存约 4GB。", False),
        ("{svc} 当前内存使用率 91%（阈值 85%），已持续 15 分钟；JVM 堆内存 3.8G/4G。", True),
        ("{svc} 内存使用率达到 91%，高于 85% 的告警阈值。", True),
        ("{svc} 当前内存使用率 85%（阈值 91%），已持续 15 分钟。", False),
        ("{svc} JVM 堆内存使用 4G / 3.8G。", False),
    ),
    "memory-en": (
        ("The HighMemoryUsage alert for {svc} is firing: memory usage 91% (threshold 85%) for 15 minutes, "
         "JVM heap at 3.8GB out of 4GB.", True),
        ("{svc} memory usage has been climbing: 86.2% at 11:05, 91.0% at 11:17.", True),
        ("The HighMemoryUsage alert for {svc} is firing: memory usage 86.2% (threshold 85%) for 15 minutes.", False),
        ("{svc} memory usage: 91.0% at 11:05, 86.2% at 11:17.", False),
        ("{svc} JVM heap is at 4GB of 3.8GB.", False),
        ("{svc} memory usage (91%) exceeds the threshold (85%); it uses 3.8 GB of the 4 GB heap.", True),
        ("{svc}'s heap holds 3.8GB against a 4GB heap limit.", True),
        ("{svc} memory usage (85%) exceeds the threshold (91%).", False),
        ("{svc} uses 4 GB of the 3.8 GB heap.", False),
    ),
    "cpu-en": (
        ("{svc}'s CPU is at 92%, over its 80% threshold for 25 minutes, with 245 active threads.", True),
        ("{svc}'s CPU is at 92%, over its 80% threshold for 25 seconds.", False),
        ("{svc}'s CPU is at 86.0%, over its 80% threshold for 25 minutes.", False),
    ),
    "slow-en": (
        ("{svc} is slow: P99 latency is 4.2s against a 3s threshold (firing for 10 minutes); the slowest "
         "/api/v1/users/profile request took 4200ms.", True),
        ("{svc} P99 latency is 3s against a 4.2s threshold.", False),
    ),
}


def _natural_cases(key: str) -> Iterator[Case]:
    document = session(key)
    assert document.executor_output is not None
    bindings = document.executor_output.claims[0].evidence_bindings
    svc = truth(document).service
    for index, (template, good) in enumerate(NATURAL.get(key, ())):
        yield Case(f"{key}/natural/{index}", "right" if good else "natural-wrong", good,
                   _with_claim(document, template.format(svc=svc), bindings))


def _step_cases(key: str) -> Iterator[Case]:
    document = session(key)
    assert document.executor_output is not None
    output = document.executor_output
    svc = truth(document).service
    anchor = output.claims[0].evidence_bindings[:1]
    for index, template in enumerate(REPAIRS_ZH + REPAIRS_EN):
        action = RecommendedAction(action_id="action-9", action_text=template.format(svc=svc),
                                   evidence_bindings=[b.model_copy() for b in anchor])
        changed = output.model_copy(update={"recommended_actions": [*output.recommended_actions, action]})
        yield Case(f"{key}/repair/{index}", "repair-action", False, _edited(document, changed))
    for index, template in enumerate(GATHERS_ZH + GATHERS_EN):
        action = RecommendedAction(action_id="action-9", action_text=template.format(svc=svc))
        changed = output.model_copy(update={"recommended_actions": [*output.recommended_actions, action]})
        yield Case(f"{key}/gather/{index}", "right", True, _edited(document, changed))
    for index, template in enumerate(CONCLUDING_GAPS):
        gap = MissingInfo(info_id="missing-9", description=template.format(svc=svc))
        changed = output.model_copy(update={"missing_info": [*output.missing_info, gap]})
        yield Case(f"{key}/concluding-gap/{index}", "gap-asserts-state", False, _edited(document, changed))
    for index, template in enumerate(HONEST_GAPS):
        gap = MissingInfo(info_id="missing-9", description=template.format(svc=svc))
        changed = output.model_copy(update={"missing_info": [*output.missing_info, gap]})
        yield Case(f"{key}/honest-gap/{index}", "right", True, _edited(document, changed))
    runbook = _runbook_line(document)
    if runbook is not None:
        claim = output.claims[0]
        appended = claim.model_copy(update={"claim_text": f"{claim.claim_text.rstrip('。.')}；{runbook}"})
        yield Case(f"{key}/runbook-appended", "runbook-appended", False,
                   _edited(document, output.model_copy(update={"claims": [appended, *output.claims[1:]]})))


def _runbook_line(document: SessionDocument) -> str | None:
    for invocation in document.invocations:
        if invocation.tool_name != "lookup_knowledge":
            continue
        for block in invocation.output.get("evidence_blocks") or []:
            if "原因" not in block.get("title", "") and "cause" not in block.get("title", "").lower():
                continue
            for raw in str(block.get("content", "")).splitlines():
                line = raw.strip().lstrip("-*").strip()
                if len(line) >= 8:
                    return line
    return None


def cases() -> list[Case]:
    """Every case of the suite, in a stable order."""
    found: list[Case] = []
    for key in QUESTIONS:
        found += list(_alert_cases(key))
        found += list(_natural_cases(key))
        found += list(_step_cases(key))
    return found


def judged(case: Case) -> str:
    """The verdict ``replay`` gives the edited session."""
    result = replay(case.document).verifier_result
    assert result is not None
    return result.verdict


def report() -> dict[str, Counter[str]]:
    """Per kind: how many cases, how many of the wrong ones passed, how many right ones did not."""
    counts: dict[str, Counter[str]] = {}
    for case in cases():
        verdict = judged(case)
        tally = counts.setdefault(case.kind, Counter())
        tally["cases"] += 1
        if case.should_pass and verdict != "PASS":
            tally["right blocked"] += 1
        if not case.should_pass and verdict == "PASS":
            tally["wrong passed"] += 1
    return counts


if __name__ == "__main__":
    totals: Counter[str] = Counter()
    for kind, tally in sorted(report().items()):
        totals.update(tally)
        print(f"{kind:24} {tally['cases']:4} cases  wrong passed {tally['wrong passed']:3}  "
              f"right blocked {tally['right blocked']:3}")
    print(f"{'total':24} {totals['cases']:4} cases  wrong passed {totals['wrong passed']:3}  "
          f"right blocked {totals['right blocked']:3}")
