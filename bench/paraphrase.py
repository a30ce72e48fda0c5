"""Benchmark: honest claims in natural wording — how many does the verifier let through?

A model that quotes honestly (the whole ref, copied) but words its claim its own way must PASS.
For each of the seed's alert questions, the rules engine's session gives the real tool results;
its executor output is then replaced by one observation claim per phrasing below, citing the
alert's ref with its whole text, and the session is checked again (gatekeeper, verifier,
composer: ``core.pipeline.replay``). Every phrasing states only the alert's own facts (its
name, service, state, current value, threshold, duration); they were written as an SRE would
say them, not from the verifier's rules. Prints the PASS share, and each phrasing that did not
pass with the verifier's reasons. No assertions.

    .venv/bin/python bench/paraphrase.py [--figures PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _common  # noqa: F401  (puts the checkout on sys.path)

from core.agents.registry import build_engines
from core.contracts import ExecutorOutput, SessionDocument
from core.pipeline import ask, replay

QUESTIONS = (
    "只确认 payment-service 当前是否存在 CPU 使用率过高告警。",
    "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。",
    "Only confirm whether user-service has a SlowResponse alert and slow request logs.",
    "确认 order-service 是否存在 HikariCP 连接池耗尽。",
)
# Natural, honest wordings of one firing alert. Fields: service, name, current, threshold,
# duration (as the alert gives them); minutes / minutes_zh (the duration in words) and metric
# (what the alert measures, in words).
PHRASINGS = (
    "{name} on {service} is at {current}, above the {threshold} threshold, firing for {duration}",
    "{service} has been over its {threshold} threshold for {duration}; it is at {current} now",
    "The {name} alert is firing for {service}: {current} against a threshold of {threshold}",
    "{service} is running hot at {current} (threshold {threshold}) and has been for {duration}",
    "An active {name} alert on {service}, value {current} vs threshold {threshold}",
    "{service} triggered {name}: currently {current}, which exceeds {threshold}",
    "{service} 的 {name} 告警正在触发，当前 {current}，高于阈值 {threshold}，已持续 {duration}",
    "{service} 目前 {current}，超过了 {threshold} 的阈值，{name} 告警已经持续 {duration}",
    "{service} 触发了 {name}：当前值 {current}，阈值 {threshold}",
    "{name} has been firing on {service} for {duration}, with the value at {current}",
    "Yes: {service} has a firing {name} alert ({current}, threshold {threshold})",
    "是的，{service} 存在 {name} 告警，当前值 {current} 超出阈值 {threshold}",
    "{metric} on {service} is at {current}, above the {threshold} threshold, firing for {minutes}",
    "{service} 已经连续 {minutes_zh} 处于 {name} 状态，当前 {current}",
)
# The newest log line of a query, told as a person would. Fields: service, level, clock (HH:MM
# of its time), message (the line's message, copied).
LOG_PHRASINGS = (
    "{service} keeps logging {level} lines; the latest, at {clock}: {message}",
    "The most recent {level} log from {service} ({clock}) says: {message}",
    "At {clock}, {service} logged \"{message}\"",
    "{service} is still writing {level} logs, the newest at {clock}: {message}",
    "{service} 最近一条 {level} 日志出现在 {clock}：{message}",
    "{service} 在 {clock} 记录了一条 {level} 日志：{message}",
    "{service} 持续输出 {level} 日志，最新一条（{clock}）为：{message}",
    "Latest {service} log line ({level}, {clock}): {message}",
)


def with_claim(document: SessionDocument, text: str, kind: str = "alerts") -> SessionDocument | None:
    """The session with one observation claim of ``text`` citing its first alert (or its first
    log line), whole."""
    tool = "query_metrics" if kind == "alerts" else "query_logs"
    for invocation in document.invocations:
        if invocation.tool_name != tool:
            continue
        for ref in invocation.retrieval_details.evidence_refs:
            if not ref.raw_path.startswith(f"$.{kind}["):
                continue
            output = ExecutorOutput.model_validate({"claims": [{
                "claim_id": "claim-1", "claim_type": "observation", "claim_text": text,
                "subject_services": document.plan.services if document.plan else [],
                "subject_topics": document.plan.topics if document.plan else [],
                "evidence_bindings": [{
                    "tool_name": tool,
                    "source_invocation_id": invocation.invocation_id,
                    "raw_path": ref.raw_path, "evidence_excerpt": ref.text}]}]})
            return document.model_copy(update={"executor_output": output, "attempts": []})
    return None


def fields_of(document: SessionDocument) -> dict[str, str]:
    for invocation in document.invocations:
        alerts = invocation.output.get("alerts") if invocation.tool_name == "query_metrics" \
            else None
        if alerts:
            alert = alerts[0]
            duration = str(alert.get("duration"))
            minutes = duration[:-1] if duration.endswith("m") else duration
            metric = str(alert.get("metric") or "the metric").split("_")[0]
            return {"service": str(alert.get("service")), "name": str(alert.get("alert_name")),
                    "current": str(alert.get("current")),
                    "threshold": str(alert.get("threshold")), "duration": duration,
                    "minutes": f"{minutes} minutes", "minutes_zh": f"{minutes} 分钟",
                    "metric": {"cpu": "CPU usage", "memory": "Memory usage"}.get(
                        metric, metric.capitalize())}
    return {}


def log_fields_of(document: SessionDocument) -> dict[str, str]:
    for invocation in document.invocations:
        logs = invocation.output.get("logs") if invocation.tool_name == "query_logs" else None
        if logs:
            line = logs[0]
            stamp = str(line.get("timestamp"))
            return {"service": str(line.get("service")), "level": str(line.get("level")),
                    "clock": stamp[11:16], "message": str(line.get("message"))}
    return {}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row)")
    arguments = parser.parse_args()
    started = time.perf_counter()
    engines = build_engines("rules")
    misses: list[str] = []
    tally = {"alerts": [0, 0], "logs": [0, 0]}
    for question in QUESTIONS:
        base = ask(question, engines=engines)
        for kind, phrasings, fields in (("alerts", PHRASINGS, fields_of(base)),
                                        ("logs", LOG_PHRASINGS, log_fields_of(base))):
            if not fields:
                continue
            for phrasing in phrasings:
                text = phrasing.format(**fields)
                session = with_claim(base, text, kind)
                if session is None:
                    continue
                judged = replay(session, engines=engines)
                verdict = judged.verifier_result.verdict if judged.verifier_result else "-"
                tally[kind][1] += 1
                if verdict == "PASS":
                    tally[kind][0] += 1
                    continue
                reasons = [f"{result.rule}: {'; '.join(result.reasons)[:160]}"
                           for result in (judged.verifier_result.claim_results
                                          if judged.verifier_result else [])
                           if not result.entailed]
                misses.append(f"  {verdict:<10} {text}\n             {' | '.join(reasons)}")
    passed = sum(done for done, _ in tally.values())
    total = sum(asked for _, asked in tally.values())
    print(f"honest natural wording: PASS {passed}/{total} (alerts {tally['alerts'][0]}/"
          f"{tally['alerts'][1]}: {len(PHRASINGS)} phrasings; log lines {tally['logs'][0]}/"
          f"{tally['logs'][1]}: {len(LOG_PHRASINGS)} phrasings; {len(QUESTIONS)} questions)")
    print("\n".join(misses))
    if arguments.figures is not None:
        from _common import write_figures

        write_figures(arguments.figures, {
            "paraphrase.passed": float(passed), "paraphrase.claims": float(total),
            "paraphrase.phrasings": float(len(PHRASINGS) + len(LOG_PHRASINGS)),
            "paraphrase.questions": float(len(QUESTIONS)),
            "paraphrase.wall_seconds": time.perf_counter() - started})


if __name__ == "__main__":
    main()
